#!/usr/bin/env python3
"""Adds per second through `cite mcp` over stdio.

Each client is its own `cite mcp` process (as every stdio MCP client spawns one) that
calls the `add` tool with a new URL, waits for the answer, and calls again: sequential
calls, no pipelining. Every answered id must be on disk afterwards (checked with
`cite list --json`), so the figure is of durable adds.

With INFLIGHT above 1, each client keeps that many calls in flight (an agent's parallel
tool calls): the server commits the adds that arrive together in one transaction.

With $CITE_BENCH_LEDGER set (a postgres:// URL of an empty database, say), the clients
share that ledger instead of a new file.

Usage: benches/mcp_adds.py CITE_BINARY [CLIENTS] [ADDS_PER_CLIENT] [INFLIGHT]
"""

import json
import os
import subprocess
import sys
import tempfile
import threading
import time


def client(cite, ledger, n, tag, out, inflight=1):
    env = dict(os.environ)
    env.pop("CITE_LEDGER", None)
    p = subprocess.Popen(
        [cite, "--ledger", ledger, "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        bufsize=1,
        env=env,
    )

    def call(msg):
        p.stdin.write(json.dumps(msg) + "\n")
        p.stdin.flush()
        if "id" not in msg:
            return None
        while True:
            line = p.stdout.readline()
            if not line:
                raise RuntimeError("server closed stdout")
            reply = json.loads(line)
            if reply.get("id") == msg["id"]:
                return reply

    call({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"}}})
    call({"jsonrpc": "2.0", "method": "notifications/initialized"})
    ids, latencies = [], []
    sent = {}

    def send(i):
        url = f"https://{tag}.example/{i}"
        sent[i + 1] = (url, time.perf_counter())
        p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
                                  "params": {"name": "add", "arguments": {"urls": [url]}}}) + "\n")
        p.stdin.flush()

    nxt = 0
    while nxt < min(inflight, n):
        send(nxt)
        nxt += 1
    while sent:
        reply = json.loads(p.stdout.readline())
        url, t = sent.pop(reply["id"])
        latencies.append(time.perf_counter() - t)
        result = reply["result"]
        if result.get("isError"):
            raise RuntimeError(result["content"][0]["text"])
        ids.append((result["structuredContent"]["sources"][0]["id"], url))
        if nxt < n:
            send(nxt)
            nxt += 1
    p.stdin.close()
    p.wait()
    out.append((ids, latencies))


def main():
    cite = sys.argv[1]
    clients = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    adds = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
    inflight = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    with tempfile.TemporaryDirectory() as d:
        ledger = os.environ.get("CITE_BENCH_LEDGER") or os.path.join(d, "ledger.redb")
        subprocess.run([cite, "--ledger", ledger, "add", "https://warm.example"],
                       check=True, capture_output=True)
        out = []
        threads = [threading.Thread(target=client, args=(cite, ledger, adds, f"c{c}", out, inflight))
                   for c in range(clients)]
        start = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        took = time.perf_counter() - start
        if len(out) != clients:
            sys.exit("a client failed")
        listed = json.loads(subprocess.run(
            [cite, "--ledger", ledger, "list", "--json", "--limit", "1000000"],
            check=True, capture_output=True, text=True).stdout)
        if isinstance(listed, dict):
            listed = listed["sources"]
        on_disk = {s["id"]: s["url"] for s in listed}
        answered = [pair for ids, _ in out for pair in ids]
        lost = sum(1 for i, url in answered if on_disk.get(i) != url)
        lat = sorted(x for _, ls in out for x in ls)
        total = clients * adds
        print(f"{clients} client(s) x {adds} adds, {inflight} in flight each: {total / took:.0f} adds/s; "
              f"p50 {lat[len(lat) // 2] * 1e3:.2f} ms, p99 {lat[len(lat) * 99 // 100] * 1e3:.2f} ms; "
              f"answered ids lost: {lost}")
        if lost:
            sys.exit(1)


if __name__ == "__main__":
    main()
