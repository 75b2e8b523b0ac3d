#!/usr/bin/env python3
"""A TCP forwarder that adds network delay, and counts round trips.

Every chunk read from either side is written to the other RTT/2 later (order kept, no
bandwidth limit), so a request and its answer take one RTT more than on the loopback.
A round trip ("turn") is counted each time the server sends after the client has last
sent; the turns before the client's first query message (`Q` simple
query, `P` parse) are the login's. Per connection, when it closes, one JSON line
{"login": N, "after": M} is appended to STATS (when given).

Usage: benches/delay_proxy.py LISTEN_PORT UPSTREAM_HOST UPSTREAM_PORT RTT_MS [STATS]
"""

import asyncio
import json
import os
import sys
import time


async def pipe(reader, writer, delay, on_chunk):
    queue = asyncio.Queue()

    async def deliver():
        while True:
            at, data = await queue.get()
            if data is None:
                break
            wait = at - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            writer.write(data)
            await writer.drain()
        try:
            writer.close()
        except Exception:
            pass

    sender = asyncio.create_task(deliver())
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            on_chunk(data)
            await queue.put((time.monotonic() + delay, data))
    except (ConnectionError, OSError):
        pass
    await queue.put((0, None))
    try:
        await sender
    except (ConnectionError, OSError):
        pass


def main():
    port, host, upstream, rtt = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    stats = sys.argv[5] if len(sys.argv) > 5 else None
    delay = rtt / 2000.0

    async def handle(client_r, client_w):
        try:
            server_r, server_w = await asyncio.open_connection(host, upstream)
        except OSError:
            client_w.close()
            return
        state = {"last": "server", "login": 0, "after": 0, "logged_in": False}

        def from_client(data):
            if not state["logged_in"] and data[:1] in (b"Q", b"P"):
                state["logged_in"] = True
            state["last"] = "client"

        def from_server(_):
            # A round trip: the server answers what the client sent (the client's
            # goodbye, which has no answer, is none).
            if state["last"] == "client":
                state["after" if state["logged_in"] else "login"] += 1
            state["last"] = "server"

        await asyncio.gather(
            pipe(client_r, server_w, delay, from_client),
            pipe(server_r, client_w, delay, from_server),
        )
        if stats:
            with open(stats, "a") as f:
                f.write(json.dumps({"login": state["login"], "after": state["after"]}) + "\n")

    async def serve():
        # DELAY_PROXY_BIND: another loopback address lets the proxy take the server's own
        # port, so that cite sees the server reached directly (no pooler check).
        server = await asyncio.start_server(handle, os.environ.get("DELAY_PROXY_BIND", "127.0.0.1"), port)
        async with server:
            await server.serve_forever()

    asyncio.run(serve())


if __name__ == "__main__":
    main()
