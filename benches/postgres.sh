#!/usr/bin/env bash
# Whole-process measurements of `cite` on the PostgreSQL backend (issue 10's numbers).
#
# Uses the server at $CITE_BENCH_POSTGRES (a URL whose user may CREATE DATABASE, e.g.
# postgres://cite:cite-ci@127.0.0.1:PORT/postgres); without it, starts a throwaway one
# with .ci/postgres (installing Debian's postgresql if missing) and stops it on exit.
# Builds --release; makes a 100,000-source ledger in a redb file with `ingest`, copies it
# into a fresh database with `cite copy` (timed), then measures:
#   - `add` of a new URL into that database, whole process (median of RUNS, default 50);
#   - 8 writer processes at once, each running `cite add` WRITES times (default 100):
#     adds per second in total, then checks every id is there once (audit, dense ids);
#   - the same 8 one-shot writers through PgBouncer (session mode) in front of the server:
#     $CITE_BENCH_PGBOUNCER (the pooler's URL of the same server), or, when `pgbouncer` is
#     installed (Debian: pgbouncer) and the user may read pg_authid, a throwaway one;
#   - 8 writers that keep their connection: 8 `cite mcp` servers, one client each, one
#     call at a time (benches/mcp_adds.py), every answered id checked on the server.
# Usage: benches/postgres.sh   (env: RUNS, WRITES, CITE_BENCH_POSTGRES, CITE_BENCH_PGBOUNCER)
set -euo pipefail

cd "$(dirname "$0")/.."
RUNS="${RUNS:-50}"
WRITES="${WRITES:-100}"

. benches/release-bin.sh
WORK="$(mktemp -d "${TMPDIR:-/tmp}/cite-pgbench.XXXXXX")"
server=""
bouncer=""
cleanup() {
    if [ -n "$bouncer" ] && [ -f "$bouncer/pid" ]; then kill "$(cat "$bouncer/pid")" 2>/dev/null || true; fi
    if [ -n "$server" ]; then .ci/postgres stop "$server" >/dev/null 2>&1 || true; fi
    if [ -n "$bouncer" ]; then rm -rf "$bouncer"; fi
    rm -rf "$WORK"
}
trap cleanup EXIT
if [ -z "${CITE_BENCH_POSTGRES:-}" ]; then
    server="$(mktemp -d /tmp/cite-pgbench-server.XXXXXX)"
    .ci/postgres start "$server" >/dev/null
    CITE_BENCH_POSTGRES="$(cat "$server/url")"
fi
# A throwaway PgBouncer in session mode (the writer lock is a session advisory lock), in
# front of the same server, logging in with the server's own SCRAM secret for the user.
if [ -z "${CITE_BENCH_PGBOUNCER:-}" ] && command -v pgbouncer >/dev/null; then
    user="$(python3 -c 'import sys, urllib.parse as u; print(u.urlsplit(sys.argv[1]).username)' "$CITE_BENCH_POSTGRES")"
    secret="$(psql "$CITE_BENCH_POSTGRES" -Atc "SELECT rolpassword FROM pg_authid WHERE rolname = '$user'" 2>/dev/null || true)"
    if [ -n "$secret" ]; then
        bouncer="$(mktemp -d /tmp/cite-pgbouncer.XXXXXX)"
        port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
        read -r host upstream <<<"$(python3 -c 'import sys, urllib.parse as u; p = u.urlsplit(sys.argv[1]); print(p.hostname, p.port or 5432)' "$CITE_BENCH_POSTGRES")"
        printf '"%s" "%s"\n' "$user" "$secret" >"$bouncer/users.txt"
        printf '%s\n' "[databases]" "* = host=$host port=$upstream" "[pgbouncer]" \
            "listen_addr = 127.0.0.1" "listen_port = $port" "unix_socket_dir =" \
            "auth_type = scram-sha-256" "auth_file = $bouncer/users.txt" "pool_mode = session" \
            "max_client_conn = 200" "default_pool_size = 20" "logfile = $bouncer/log" \
            "pidfile = $bouncer/pid" >"$bouncer/pgbouncer.ini"
        if [ "$(id -u)" -eq 0 ]; then
            chown -R postgres "$bouncer"
            runuser -u postgres -- pgbouncer -d "$bouncer/pgbouncer.ini"
        else
            pgbouncer -d "$bouncer/pgbouncer.ini"
        fi
        sleep 0.5
        CITE_BENCH_PGBOUNCER="$(python3 -c 'import sys, urllib.parse as u; p = u.urlsplit(sys.argv[1]); print(p._replace(netloc=p.netloc.rsplit("@", 1)[0] + "@127.0.0.1:" + sys.argv[2]).geturl())' "$CITE_BENCH_POSTGRES" "$port")"
    fi
fi
export CITE_BENCH_PGBOUNCER="${CITE_BENCH_PGBOUNCER:-}"

echo "binary: $CITE"
echo "server: $(psql "$CITE_BENCH_POSTGRES" -Atc 'SELECT version()' 2>/dev/null | cut -d, -f1 || echo '?')"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
echo

env -u CITE_LEDGER -u CITE_ACTOR python3 - "$CITE" "$WORK" "$RUNS" "$WRITES" "$CITE_BENCH_POSTGRES" <<'PY'
import os, statistics, subprocess, sys, time
from urllib.parse import urlsplit, urlunsplit

cite, work, runs, writes, base = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
DEVNULL = subprocess.DEVNULL

def database(name):
    subprocess.run(["psql", base, "-qc", f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'], check=True)
    subprocess.run(["psql", base, "-qc", f'CREATE DATABASE "{name}"'], check=True)
    u = urlsplit(base)
    return urlunsplit((u.scheme, u.netloc, "/" + name, u.query, u.fragment))

def run(args):
    r = subprocess.run([cite, *args], stdin=DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode != 0:
        sys.exit(f"failed: cite {' '.join(args)}: {r.stderr.decode(errors='replace')}")
    return r.stdout.decode()

def timed(args):
    t = time.perf_counter()
    run(args)
    return time.perf_counter() - t

n = 100_000
inp = os.path.join(work, "in.json")
with open(inp, "w") as f:
    f.write('{"results":[' + ",".join(
        f'{{"url":"https://site{i % 1000}.example/page/{i}","title":"Page {i} of a generated corpus"}}'
        for i in range(n)) + "]}")
redb = os.path.join(work, "l100k.redb")
run(["--ledger", redb, "ingest", inp])
pg = database("cite_bench_100k")
t = timed(["--wait", "600", "copy", redb, pg])
print(f"copy of a 100k-source ledger, redb file → PostgreSQL: {t:.1f} s")

for i in range(3):
    run(["--ledger", pg, "add", f"https://warm.example/{i}"])
ts = [timed(["--ledger", pg, "add", f"https://fresh.example/new/{i}"]) for i in range(runs)]
med = statistics.median(ts)
print(f"add new URL into the 100k PostgreSQL ledger: median {med*1000:.2f} ms "
      f"(min {min(ts)*1000:.2f}, max {max(ts)*1000:.2f}; {runs} runs) — target < 10 ms: "
      f"{'met' if med < 0.010 else 'MISSED'}")
ts = [timed(["--ledger", pg, "add", "https://fresh.example/new/0"]) for i in range(runs)]
print(f"add of a URL already registered: median {statistics.median(ts)*1000:.2f} ms")
ts = [timed(["--ledger", pg, "list", "--limit", "50"]) for i in range(runs)]
print(f"list --limit 50 on 100k: median {statistics.median(ts)*1000:.2f} ms")

def one_shot_writers(conc, how):
    writers = 8
    run(["--ledger", conc, "add", "https://first.example/"])
    script = ("import subprocess, sys\n"
              "cite, ledger, w, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])\n"
              "for i in range(n):\n"
              "    subprocess.run([cite, '--ledger', ledger, 'add', f'https://w{w}.example/{i}'],"
              " check=True, stdout=subprocess.DEVNULL)\n")
    t = time.perf_counter()
    procs = [subprocess.Popen([sys.executable, "-c", script, cite, conc, str(w), str(writes)])
             for w in range(writers)]
    codes = [p.wait() for p in procs]
    took = time.perf_counter() - t
    total = writers * writes
    rate = total / took
    print(f"{writers} writers × {writes} adds, one process per add, {how}: {rate:.0f} adds/s "
          f"in total ({took:.1f} s) — target ≥ 300: {'met' if rate >= 300 else 'MISSED'}")
    assert codes == [0] * writers, codes
    audit = run(["--ledger", conc, "audit"])
    assert audit.startswith("audit OK"), audit
    ids = [int(l.split("]")[0][1:]) for l in run(["--ledger", conc, "list", "--limit", "100000"]).splitlines() if l.startswith("[")]
    assert sorted(ids) == list(range(1, total + 2)), "ids not dense"
    print(f"  after: {audit.strip()}; ids 1..{total + 1} dense")

one_shot_writers(database("cite_bench_writers"), "straight to the server")
bouncer = os.environ.get("CITE_BENCH_PGBOUNCER", "")
if bouncer:
    direct = urlsplit(database("cite_bench_pooled"))
    pooled = urlsplit(bouncer)
    one_shot_writers(urlunsplit((pooled.scheme, pooled.netloc, direct.path, "", "")),
                     "through PgBouncer (session mode)")
else:
    print("(no PgBouncer: set $CITE_BENCH_PGBOUNCER, or install pgbouncer, for the pooled figure)")

mcp = database("cite_bench_mcp")
r = subprocess.run([sys.executable, os.path.join(os.getcwd(), "benches", "mcp_adds.py"), cite, "8", "200", "1"],
                   env=dict(os.environ, CITE_BENCH_LEDGER=mcp), capture_output=True, text=True)
if r.returncode != 0:
    sys.exit(f"mcp_adds failed: {r.stdout}{r.stderr}")
print(f"8 writers through cite mcp (one connection each): {r.stdout.strip()}")
PY
