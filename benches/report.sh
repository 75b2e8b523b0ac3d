#!/usr/bin/env bash
# `cite report` at the size of issue 22's target: a 1.4 MB draft citing 1,000 of 10,000
# sources, under 1 s and 100 MB. Builds --release (unless $CITE names a binary), imports
# a generated 10,000-source `sources.py` ledger (benches/gen.py; every tenth source has
# two quotes), then times the report (median of RUNS, default 5) and its peak RSS (GNU
# time): first with no page text, then with a 20 KB page text stored for each of the
# 1,000 cited sources (one `ingest` of a Tavily extract answer), holding the quotes, so
# that every card shows its quotes in their page passage and `--support` reads 1,000
# pages.
# Usage: benches/report.sh   (env: RUNS, CITE)
set -euo pipefail

cd "$(dirname "$0")/.."
RUNS="${RUNS:-5}"
if [ -z "${CITE:-}" ]; then
    . benches/release-bin.sh
fi
[ -x /usr/bin/time ] || { echo "/usr/bin/time (GNU time) is required" >&2; exit 1; }
WORK="$(mktemp -d "${TMPDIR:-/tmp}/cite-report.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
export CITE_LEDGER="$WORK/ledger.redb"
unset CITE_ACTOR
echo "binary: $CITE"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"

python3 benches/gen.py sources-py 10000 "$WORK/sources.json"
python3 benches/gen.py draft 1400000 1000 "$WORK/draft.md"
"$CITE" import "$WORK/sources.json" >/dev/null

measure() {
    local what=$1 times=() rss=0
    for _ in $(seq "$RUNS"); do
        /usr/bin/time -f "%e %M" -o "$WORK/time" "$CITE" report "$WORK/draft.md" -o "$WORK/report.html" >/dev/null
        read -r t m <"$WORK/time"
        times+=("$t")
        [ "$m" -gt "$rss" ] && rss=$m
    done
    local median
    median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((RUNS + 1) / 2))p")
    printf '%-44s %6s s (median of %s), peak RSS %5.1f MiB, page %5.1f MB\n' "$what" "$median" "$RUNS" \
        "$(echo "$rss / 1024" | bc -l)" "$(echo "$(stat -c %s "$WORK/report.html") / 1000000" | bc -l)"
}

echo "draft: $(stat -c %s "$WORK/draft.md") bytes"
measure "report, no page text"
python3 - "$WORK" <<'PY'
import json, sys
work = sys.argv[1]
def url(i):
    return f"https://site{i % 1000}.example/page/{i}"
filler = "Generated page text about the measured item, repeated to fill the page. " * 280
results = []
for i in range(1, 1001):
    quotes = ""
    if i % 10 == 0:
        quotes = f"The measured value for item {i} was stable. A second verbatim sentence from the page. "
    results.append({"url": url(i), "raw_content": filler[:10000] + quotes + filler[:10000]})
json.dump({"results": results}, open(f"{work}/extract.json", "w"))
PY
"$CITE" ingest "$WORK/extract.json" >/dev/null 2>&1
measure "report, 1,000 cited pages of 20 KB"
