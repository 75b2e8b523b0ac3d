#!/usr/bin/env bash
# `cite` on PostgreSQL across a network (issue 23): a delay proxy (benches/delay_proxy.py)
# between cite and the server adds RTT milliseconds to every round trip and counts them.
#
# Uses the server at $CITE_BENCH_POSTGRES (a URL whose user may CREATE DATABASE);
# without it, starts a throwaway one with .ci/postgres. Builds --release unless $CITE
# names a binary. For each RTT in $RTTS (default "0 2 10"):
#   - round trips after login, counted at the proxy: `add` of a new URL, `add` of a known
#     URL, `verify` of a draft citing 100 sources, `list`;
#   - adds per second in total of 1, 2, 4 (and 8) `cite mcp` servers on one database,
#     each with one client keeping INFLIGHT calls in flight (default 4: an agent's
#     parallel tool calls), every answered id checked afterwards (benches/mcp_adds.py);
# then `ingest` of N URLs (default 100,000) against `cite copy` of the same ledger, at RTT 0.
# Usage: benches/pg_rtt.sh   (env: RTTS, SERVERS, ADDS, INFLIGHT, INGEST, CITE, CITE_BENCH_POSTGRES)
set -euo pipefail

cd "$(dirname "$0")/.."
RTTS="${RTTS:-0 2 10}"
SERVERS="${SERVERS:-1 2 4 8}"
ADDS="${ADDS:-200}"
INFLIGHT="${INFLIGHT:-4}"
INGEST="${INGEST:-100000}"

if [ -z "${CITE:-}" ]; then
    . benches/release-bin.sh
fi
WORK="$(mktemp -d "${TMPDIR:-/tmp}/cite-pgrtt.XXXXXX")"
server=""
proxies=()
cleanup() {
    for p in "${proxies[@]}"; do kill "$p" 2>/dev/null || true; done
    if [ -n "$server" ]; then .ci/postgres stop "$server" >/dev/null 2>&1 || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT
if [ -z "${CITE_BENCH_POSTGRES:-}" ]; then
    server="$(mktemp -d /tmp/cite-pgrtt-server.XXXXXX)"
    .ci/postgres start "$server" >/dev/null
    CITE_BENCH_POSTGRES="$(cat "$server/url")"
fi
echo "binary: $CITE"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
echo

env -u CITE_LEDGER -u CITE_ACTOR python3 - "$CITE" "$WORK" "$CITE_BENCH_POSTGRES" "$RTTS" "$SERVERS" "$ADDS" "$INFLIGHT" "$INGEST" <<'PY'
import json, os, socket, subprocess, sys, time
from urllib.parse import urlsplit, urlunsplit

cite, work, base, rtts, servers, adds, inflight, ingest_n = sys.argv[1:9]
rtts = [float(r) for r in rtts.split()]
servers = [int(s) for s in servers.split()]
adds, inflight, ingest_n = int(adds), int(inflight), int(ingest_n)
DEVNULL = subprocess.DEVNULL
up = urlsplit(base)
proxies = []

def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p

def database(name):
    subprocess.run(["psql", base, "-qc", f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'], check=True)
    subprocess.run(["psql", base, "-qc", f'CREATE DATABASE "{name}"'], check=True)

def url_via(port, name, host="127.0.0.1"):
    netloc = up.netloc.rsplit("@", 1)[0] + f"@{host}:{port}"
    query = up.query
    if host != "127.0.0.1" and "sslmode=" not in query:
        # Round trips are counted by message kind: in plaintext, not TLS (prefer).
        query = "&".join(q for q in (query, "sslmode=disable") if q)
    return urlunsplit((up.scheme, netloc, "/" + name, query, ""))

def proxy(rtt, stats, host):
    # The server's own port on another loopback address: cite then takes the server as
    # reached directly, as it is across a network, and makes no pooler check.
    port = up.port or 5432
    env = dict(os.environ, DELAY_PROXY_BIND=host)
    p = subprocess.Popen([sys.executable, "benches/delay_proxy.py", str(port), up.hostname,
                          str(up.port or 5432), str(rtt), stats], env=env)
    proxies.append(p)
    time.sleep(0.3)
    return port

def run(*args, codes=(0,)):
    r = subprocess.run([cite, *args], stdout=DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode not in codes:
        sys.exit(f"cite {' '.join(args)} exited {r.returncode}: {r.stderr}")
    return r

def turns(stats, f):
    open(stats, "w").close()
    t = time.perf_counter()
    f()
    took = time.perf_counter() - t
    time.sleep(0.05)
    rows = [json.loads(l) for l in open(stats)]
    return sum(r["after"] for r in rows), sum(r["login"] for r in rows), len(rows), took

for i, rtt in enumerate(rtts):
    name = f"cite_rtt_{int(rtt * 10)}"
    database(name)
    stats = os.path.join(work, f"stats-{rtt}")
    host = f"127.0.0.{2 + i}"
    port = proxy(rtt, stats, host)
    ledger = url_via(port, name, host)
    direct = url_via(up.port or 5432, name)
    run("--ledger", direct, "add", *[f"https://pre.example/{i}" for i in range(100)])
    draft = os.path.join(work, "draft.md")
    with open(draft, "w") as f:
        f.write("\n".join(f"Claim {i} [{i}]." for i in range(1, 101)) + "\n")
    print(f"RTT {rtt:g} ms: round trips after login (login), connections, time")
    for label, f in [
        ("add of a new URL", lambda: run("--ledger", ledger, "add", f"https://new.example/{time.time_ns()}")),
        ("add of a known URL", lambda: run("--ledger", ledger, "add", "https://pre.example/7")),
        # The draft has no Sources block: verify reports it (exit 1) after reading every id.
        ("verify of 100 citations", lambda: run("--ledger", ledger, "verify", draft, codes=(0, 1))),
        ("list", lambda: run("--ledger", ledger, "list")),
    ]:
        after, login, conns, took = turns(stats, f)
        print(f"  {label:<26} {after:>3} ({login} login, {conns} connection(s)), {took * 1e3:.0f} ms")
    for n in servers:
        database(name)
        env = dict(os.environ, CITE_BENCH_LEDGER=ledger)
        r = subprocess.run([sys.executable, "benches/mcp_adds.py", cite, str(n), str(adds), str(inflight)],
                           env=env, capture_output=True, text=True)
        line = (r.stdout.strip() or r.stderr.strip()).splitlines()[-1]
        print(f"  {n} server(s): {line}")
    print()

if ingest_n:
    import random
    name = "cite_rtt_ingest"
    doc = os.path.join(work, "ingest.json")
    with open(doc, "w") as f:
        json.dump({"results": [{"url": f"https://s{i % 97}.example/p/{i}", "title": f"t{i}"}
                               for i in range(ingest_n)]}, f)
    database(name)
    target = url_via(up.port or 5432, name)
    t = time.perf_counter()
    run("--ledger", target, "ingest", doc)
    took_ingest = time.perf_counter() - t
    redb = os.path.join(work, "copy.redb")
    run("--ledger", redb, "ingest", doc)
    database(name + "_copy")
    t = time.perf_counter()
    run("copy", redb, url_via(up.port or 5432, name + "_copy"))
    took_copy = time.perf_counter() - t
    print(f"ingest of {ingest_n} URLs into PostgreSQL: {took_ingest:.1f} s; "
          f"`cite copy` of the same ledger: {took_copy:.1f} s ({took_ingest / took_copy:.1f}x)")

for p in proxies:
    p.terminate()
PY
