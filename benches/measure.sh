#!/usr/bin/env bash
# Whole-process measurements of `cite` against the SPEC §5 numbers.
#
# Needs only cargo, python3 and /usr/bin/time (GNU time, for peak RSS). Installs nothing.
# Builds --release, builds ledgers of 0, 100,000 and 1,000,000 sources in a temp dir
# (removed on exit; set KEEP=1 to keep it), then prints each measurement and a markdown
# table. The import and 200 MB verify inputs come from benches/gen.py. Usage: benches/measure.sh   (env: RUNS=50 adds per ledger, WORK=/some/dir)
set -euo pipefail

cd "$(dirname "$0")/.."
RUNS="${RUNS:-50}"

. benches/release-bin.sh
[ -x "$CITE" ] || { echo "no release binary at $CITE" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time (GNU time) is required" >&2; exit 1; }

WORK="${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/cite-measure.XXXXXX")}"
mkdir -p "$WORK"
if [ "${KEEP:-0}" != 1 ]; then trap 'rm -rf "$WORK"' EXIT; fi
echo "binary: $CITE"
echo "work dir: $WORK"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
echo

env -u CITE_LEDGER -u CITE_ACTOR python3 - "$CITE" "$WORK" "$RUNS" <<'PY'
import json, os, statistics, subprocess, sys, time

cite, work, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
DEVNULL = subprocess.DEVNULL
rows = []  # (measurement, value, target, verdict)

def gen_input(n, host="site"):
    path = os.path.join(work, f"in-{host}-{n}.json")
    with open(path, "w") as f:
        f.write('{"results":[')
        for i in range(n):
            if i:
                f.write(",")
            f.write(f'{{"url":"https://{host}{i % 1000}.example/page/{i}",'
                    f'"title":"Page {i} of a generated corpus"}}')
        f.write("]}")
    return path

def run(args, stdout=DEVNULL):
    r = subprocess.run([cite, *args], stdin=DEVNULL, stdout=stdout, stderr=subprocess.PIPE)
    if r.returncode != 0:
        sys.exit(f"failed: cite {' '.join(args)}: {r.stderr.decode(errors='replace')}")

def timed(args):
    t = time.perf_counter()
    run(args)
    return time.perf_counter() - t

def rss(args):
    """Wall seconds and peak RSS (KiB) of one run, via GNU time."""
    r = subprocess.run(["/usr/bin/time", "-f", "%e %M", cite, *args],
                       stdin=DEVNULL, stdout=DEVNULL, stderr=subprocess.PIPE)
    if r.returncode != 0:
        sys.exit(f"failed: cite {' '.join(args)}: {r.stderr.decode(errors='replace')}")
    wall, kib = r.stderr.decode().strip().splitlines()[-1].split()
    return float(wall), int(kib)

def ms(s):
    return f"{s * 1000:.2f} ms"

def mib(kib):
    return f"{kib / 1024:.1f} MiB"

counter = 0
def add_medians(ledgers, n=runs, warmup=3):
    """Median, min and max wall time of `n` adds of new URLs into each ledger. The ledgers
    take turns, so a burst of load from other processes hits all of them alike."""
    global counter
    ts = {name: [] for name in ledgers}
    for _ in range(warmup):
        for ledger in ledgers.values():
            counter += 1
            run(["--ledger", ledger, "add", f"https://warm.example/{counter}"])
    for _ in range(n):
        for name, ledger in ledgers.items():
            counter += 1
            ts[name].append(timed(["--ledger", ledger, "add", f"https://fresh.example/new/{counter}"]))
    return {name: (statistics.median(t), min(t), max(t)) for name, t in ts.items()}

def load():
    return open("/proc/loadavg").read().split()[0]

def read_median(args, n=runs):
    run(args)  # warm the page cache
    return statistics.median(timed(args) for _ in range(n))

# Floor: what spawning a trivial process costs from this harness.
floor = statistics.median(
    (lambda t: (subprocess.run(["/bin/true"]), time.perf_counter() - t)[1])(time.perf_counter())
    for _ in range(runs))
print(f"load average at start: {load()} (other processes on the machine skew the timings)")
print(f"spawn floor (/bin/true from python): {ms(floor)}")
rows.append(("spawn floor: `/bin/true` from the harness", ms(floor), "—", "reference"))

# Ledgers.
in100k = gen_input(100_000)
in1m = gen_input(1_000_000)
l0 = os.path.join(work, "l0.redb")
l100k = os.path.join(work, "l100k.redb")
l1m = os.path.join(work, "l1m.redb")

ing = []
for i in range(3):
    path = l100k if i == 0 else os.path.join(work, f"scratch-{i}.redb")
    ing.append(rss(["--ledger", path, "ingest", in100k]))
    if i:
        os.remove(path)
ing_med = statistics.median(w for w, _ in ing)
ing_rss = max(k for _, k in ing)
print(f"ingest 100k (3 runs): median {ing_med:.2f} s, peak RSS {mib(ing_rss)}")
rows.append(("`ingest` 100k URLs, fresh ledger (median of 3)", f"{ing_med:.2f} s",
             "< 2 s", "met" if ing_med < 2 else "MISSED"))
rows.append(("peak RSS, `ingest` 100k", mib(ing_rss), "—", "not a 1M-ledger command"))

w1m, k1m = rss(["--ledger", l1m, "ingest", in1m])
print(f"ingest 1M (builds the 1M ledger): {w1m:.2f} s, peak RSS {mib(k1m)}")
rows.append(("`ingest` 1M URLs (builds the 1M ledger)", f"{w1m:.2f} s", "—", "reference"))
# Not a command *on* a 1M ledger: one transaction over a 1M-URL input buffers every id
# it will print until the commit, about 0.4 KiB per URL (see README).
rows.append(("peak RSS, `ingest` 1M URLs into a fresh ledger", mib(k1m), "—",
             "scales with the input"))
for p in (in100k, in1m):
    os.remove(p)

# add into 0 / 100k / 1M.
med = {}
print(f"load average before the adds: {load()}")
for name, (m, lo, hi) in add_medians({"0": l0, "100k": l100k, "1M": l1m}).items():
    med[name] = m
    print(f"add into {name}: median {ms(m)} (min {ms(lo)}, max {ms(hi)}, {runs} runs)")
rows.append((f"`add` new URL, empty ledger (median of {runs})", ms(med["0"]), "—", "baseline"))
rows.append((f"`add` new URL, 100k ledger (median of {runs})", ms(med["100k"]), "< 5 ms",
             "met" if med["100k"] < 0.005 else "MISSED"))
ratio = med["100k"] / med["0"]
rows.append(("`add` 100k ÷ empty", f"{ratio:.2f}×", "≤ 1.5×", "met" if ratio <= 1.5 else "MISSED"))
rows.append((f"`add` new URL, 1M ledger (median of {runs})", ms(med["1M"]), "—", "reference"))

# The floor of a durable add (issue 11): starting the process plus one fdatasync, measured
# now, on the same disk. `cite --version` is the process start; the sync is of a 4 KiB
# write in the work dir, as a commit's is.
def one_sync():
    fd = os.open(os.path.join(work, "sync-probe"), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        os.pwrite(fd, b"x" * 4096, 0)
        t = time.perf_counter()
        os.fdatasync(fd)
        return time.perf_counter() - t
    finally:
        os.close(fd)
start_ms = read_median(["--version"])
sync_ms = statistics.median(one_sync() for _ in range(runs))
floor_add = start_ms + sync_ms
print(f"process start {ms(start_ms)} + one fdatasync {ms(sync_ms)} = {ms(floor_add)}")
rows.append(("floor: `cite --version` + one fdatasync", ms(floor_add), "—", "reference"))
durable = med["100k"] / floor_add
rows.append(("`add` 100k ÷ floor", f"{durable:.2f}×", "≤ 2×", "met" if durable <= 2 else "MISSED"))

# Read-only commands on 100k.
draft = os.path.join(work, "draft.md")
block = subprocess.run([cite, "--ledger", l100k, "render", "--only", "1,2"], check=True,
                       stdout=subprocess.PIPE).stdout.decode()
with open(draft, "w") as f:
    f.write("The first claim is stated here clearly [1].\n\n"
            "The second claim follows from it [2].\n\n" + block)
for label, args, target in (
        ("`show 1`", ["show", "1"], True),
        ("`render --only 1,3,5-7`", ["render", "--only", "1,3,5-7"], True),
        ("`verify` of a 2-sentence draft", ["verify", draft], True),
        ("`list --epoch 1 >/dev/null` (full dump)", ["list", "--epoch", "1"], False)):
    m = read_median(["--ledger", l100k, *args])
    print(f"{label} on 100k: median {ms(m)}")
    if target:
        rows.append((f"{label}, 100k ledger (median of {runs})", ms(m), "< 3 ms",
                     "met" if m < 0.003 else "MISSED"))
    else:
        rows.append((f"{label}, 100k ledger (median of {runs})", ms(m), "— (not a §5 read)",
                     "reference"))

# Evidence and drafts: a 1 MB draft against 10,000 sources, a quote against a 10 MB page.
l10k = os.path.join(work, "l10k.redb")
in10k = gen_input(10_000)
run(["--ledger", l10k, "ingest", in10k])
os.remove(in10k)
sentence = "Claim number {i} is supported by its source and stated with care.[{id}] "
parts, size, i = [], 0, 0
while size < 1_000_000:
    line = sentence.format(i=i, id=i % 10_000 + 1)
    parts.append(line if i % 8 else line + "\n\n")
    size += len(line)
    i += 1
big_draft = os.path.join(work, "big-draft.md")
with open(big_draft, "w") as f:
    f.write("".join(parts))
run(["--ledger", l10k, "render", "--replace-in", big_draft])
print(f"1 MB draft: {os.path.getsize(big_draft)} bytes")
m = read_median(["--ledger", l10k, "verify", big_draft], n=10)
print(f"verify 1 MB draft against 10k sources: median {ms(m)}")
rows.append(("`verify` of a 1 MB draft, 10k ledger (median of 10)", ms(m), "< 100 ms",
             "met" if m < 0.1 else "MISSED"))
words = [f"word{j % 997}" for j in range(1_300_000)]
page = os.path.join(work, "page.txt")
with open(page, "w") as f:
    f.write(" ".join(words))
print(f"page: {os.path.getsize(page)} bytes")
first = timed(["--ledger", l10k, "quote", "1", "--text", " ".join(words[-6:]), "--from", page])
qs = [timed(["--ledger", l10k, "quote", "1", "--text", " ".join(words[-k - 6:-k]),
             "--from", page]) for k in range(1, 11)]
print(f"quote against a 10 MB page: first (stores the page) {ms(first)}, "
      f"median of 10 more {ms(statistics.median(qs))}")
rows.append(("`quote` against a 10 MB page, first (stores the page)", ms(first), "< 200 ms",
             "met" if first < 0.2 else "MISSED"))
rows.append(("`quote` against the same 10 MB page (median of 10)",
             ms(statistics.median(qs)), "< 200 ms",
             "met" if statistics.median(qs) < 0.2 else "MISSED"))
# A quote the page does not hold: refused, with the closest passage searched for.
def refused(args):
    t = time.perf_counter()
    r = subprocess.run([cite, *args], stdin=DEVNULL, stdout=DEVNULL, stderr=subprocess.PIPE)
    if r.returncode != 1 or b"closest on the page" not in r.stderr:
        sys.exit(f"expected a refusal with the closest passage: {r.stderr.decode(errors='replace')}")
    return time.perf_counter() - t
miss = statistics.median([refused(["--ledger", l10k, "quote", "1", "--text",
                                   " ".join(words[-k - 6:-k - 1] + ["nowhere"]), "--from", page])
                          for k in range(1, 6)])
print(f"quote refused against the 10 MB page, with the closest passage: median of 5 {ms(miss)}")
rows.append(("`quote` refused against the 10 MB page, closest passage shown (median of 5)",
             ms(miss), "< 1 s", "met" if miss < 1.0 else "MISSED"))

# Peak memory on 1M.
for label, args in (("`add` new URL", ["add", "https://rss.example/one"]),
                    ("`show 1`", ["show", "1"]),
                    ("`render --only 1,3,5-7`", ["render", "--only", "1,3,5-7"]),
                    ("`verify` of the 2-sentence draft", ["verify", draft]),
                    ("`list --json >/dev/null`", ["list", "--json"])):
    w, k = rss(["--ledger", l1m, *args])
    print(f"peak RSS on 1M, {label}: {mib(k)} ({w:.2f} s)")
    rows.append((f"peak RSS, {label}, 1M ledger", mib(k), "< 50 MiB",
                 "met" if k < 50 * 1024 else "MISSED"))

in100k_new = gen_input(100_000, host="other")
w, k = rss(["--ledger", l1m, "ingest", in100k_new])
os.remove(in100k_new)
print(f"ingest 100k new URLs into the 1M ledger: {w:.2f} s, peak RSS {mib(k)}")
rows.append(("`ingest` 100k new URLs into the 1M ledger", f"{w:.2f} s", "—", "reference"))
rows.append(("peak RSS, `ingest` 100k new URLs into the 1M ledger", mib(k), "< 50 MiB",
             "met" if k < 50 * 1024 else "MISSED"))
# Peak memory of `import` (a sources.py ledger, streamed twice, never held) and of
# `verify` of a 200 MB draft (issue 8: under 3x the draft's size plus 30 MiB), on inputs
# from benches/gen.py.
gen = os.path.join(os.getcwd(), "benches", "gen.py")

def generate(*args):
    subprocess.run([sys.executable, gen, *map(str, args)], check=True)

def remove_ledger(path):
    for p in (path, path + ".lock"):
        if os.path.exists(p):
            os.remove(p)

for n, name in ((300_000, "300k"), (1_000_000, "1M")):
    src = os.path.join(work, f"sources-py-{name}.json")
    generate("sources-py", n, src)
    dest = os.path.join(work, f"imported-{name}.redb")
    w, k = rss(["--ledger", dest, "import", src])
    os.remove(src)
    remove_ledger(dest)
    print(f"import of a {name}-source sources.py ledger: {w:.2f} s, peak RSS {mib(k)}")
    rows.append((f"`import` of a {name}-source sources.py ledger", f"{w:.2f} s", "—",
                 "reference"))
    rows.append((f"peak RSS, `import` of a {name}-source sources.py ledger", mib(k),
                 "< 50 MiB", "met" if k < 50 * 1024 else "MISSED"))

l1k = os.path.join(work, "l1k-imported.redb")
src = os.path.join(work, "sources-py-1k.json")
generate("sources-py", 1000, src)
run(["--ledger", l1k, "import", src])
for shape in ("prose", "lines"):
    d = os.path.join(work, f"draft-200mb-{shape}.md")
    generate("draft", 200_000_000, 1000, d, shape)
    size_kib = os.path.getsize(d) / 1024
    w, k = rss(["--ledger", l1k, "verify", d])
    os.remove(d)
    limit = 3 * size_kib + 30 * 1024
    print(f"verify of a 200 MB draft ({shape}): {w:.2f} s, peak RSS {mib(k)}")
    rows.append((f"`verify` of a 200 MB draft ({shape}), 1k ledger", f"{w:.2f} s", "—",
                 "reference"))
    rows.append((f"peak RSS, `verify` of a 200 MB draft ({shape})", mib(k),
                 f"< {mib(limit)} (3x + 30 MiB)", "met" if k < limit else "MISSED"))

for name, p in (("100k", l100k), ("1M", l1m)):
    print(f"ledger file size {name}: {os.path.getsize(p) / 2**20:.0f} MiB")

print(f"load average at the end: {load()}")
print()
print("| measurement | value | target | verdict |")
print("|---|---|---|---|")
for r in rows:
    print("| " + " | ".join(r) + " |")
PY
