#!/usr/bin/env bash
# Many writers at once: W concurrent streams of A sequential `cite add` processes each,
# every process adding one new URL to one ledger. Prints the throughput (adds per second
# over the whole run) and checks what SPEC §5 promises: every add landed (0 lost), every
# printed id still maps to the URL it was printed with (0 moved), ids 1..N (dense).
#
# Usage: benches/writers.sh [WRITERS] [ADDS]   (default 32 × 1000; env CITE=binary)
# Needs cargo and python3; installs nothing. Exits non-zero if a promise breaks.
set -euo pipefail

cd "$(dirname "$0")/.."
WRITERS="${1:-32}"
ADDS="${2:-1000}"
if [ -z "${CITE:-}" ]; then
    . benches/release-bin.sh
fi
WORK="$(mktemp -d "${TMPDIR:-/tmp}/cite-writers.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

env -u CITE_LEDGER -u CITE_ACTOR python3 - "$CITE" "$WORK/ledger.redb" "$WRITERS" "$ADDS" <<'PY'
import json, subprocess, sys, threading, time

cite, ledger, writers, adds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
printed, failures = [], []
lock = threading.Lock()

def stream(w):
    for i in range(adds):
        url = f"https://w{w}.example/{i}"
        r = subprocess.run([cite, "--ledger", ledger, "--wait", "120", "add", url],
                           stdin=subprocess.DEVNULL, capture_output=True, text=True)
        with lock:
            if r.returncode != 0:
                failures.append(r.stderr.strip())
            else:
                printed.append(r.stdout.strip())

start = time.perf_counter()
threads = [threading.Thread(target=stream, args=(w,)) for w in range(writers)]
for t in threads: t.start()
for t in threads: t.join()
took = time.perf_counter() - start

rows = json.loads(subprocess.run([cite, "--ledger", ledger, "list", "--json"],
                                 capture_output=True, text=True, check=True).stdout)
held = {r["id"]: r["url"] for r in rows}
moved = 0
for line in printed:
    pid, url = line[1:].split("] ", 1)
    if held.get(int(pid)) != url:
        moved += 1
total = writers * adds
lost = total - len(printed)
dense = sorted(held) == list(range(1, total + 1))
print(f"{writers} writers x {adds} adds: {total / took:.0f} adds/s over {took:.1f} s; "
      f"lost {lost}, moved {moved}, ids dense: {'yes' if dense else 'NO'}")
for f in failures[:5]:
    print("  failure:", f)
sys.exit(0 if lost == 0 and moved == 0 and dense else 1)
PY
