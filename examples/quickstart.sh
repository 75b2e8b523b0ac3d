#!/usr/bin/env bash
# The whole workflow on the example data in this folder, in a throwaway ledger:
# register sources (by hand and from JSON search output), attach verbatim quotes checked
# against the saved page text, render the Sources block into a draft, verify the draft.
# Needs only cargo. Usage: bash examples/quickstart.sh
set -euo pipefail
cd "$(dirname "$0")/.."

# A cold release build takes minutes on a small machine: cargo's progress stays on stderr
# so that it does not look like a hang. The binary is taken from where cargo says it put
# it, since the target folder may be elsewhere ($CARGO_TARGET_DIR, a cargo config).
echo "building cite (a few minutes the first time)…" >&2
bin=$(cargo build --release --locked --message-format=json-render-diagnostics |
    sed -n 's/.*"target":{"kind":\["bin"\][^}]*"name":"cite".*"executable":"\([^"]*\)".*/\1/p' |
    tail -n 1)
if [ ! -x "$bin" ]; then
    echo "quickstart: cargo reported no cite binary" >&2
    exit 1
fi
cite() { "$bin" "$@"; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export CITE_LEDGER="$work/ledger.redb"
export CITE_ACTOR=quickstart
cp examples/draft.md "$work/draft.md"

# Shows each command as you would type it, quoting only what needs quotes.
shown() {
    if [[ "$1" =~ ^[A-Za-z0-9_./:=,@%+-]+$ ]]; then printf ' %s' "$1"
    else printf " '%s'" "${1//\'/\'\\\'\'}"; fi
}
step() { printf '\n$ cite'; for a in "$@"; do shown "$a"; done; printf '\n'; cite "$@"; }

# 1. Register every source at retrieval time.
step reset
step ingest examples/search-results.json --via web
step add https://physics.example.org/water/density-anomaly/   # same page: same id
step add doi:10.1000/182 --title "A handbook" --via code
step list --by-via

# 2. Attach verbatim evidence, copied from the fetched page text.
step quote 1 --text "Ice is therefore about 9% less dense than the water it forms from" \
    --from examples/pages/density-anomaly.md
step quote 1 --text "every molecule is locked into four hydrogen bonds" \
    --from examples/pages/density-anomaly.md
step quote 1 --text "a lake freezes from the top down" --from examples/pages/density-anomaly.md
step quote 3 --text "the bottom of a deep lake stays near 4 °C all winter" \
    --from examples/pages/lake-ice.md
printf '\n# a paraphrase is refused:'
step quote 1 --text "ice is ten percent lighter than water" \
    --from examples/pages/density-anomaly.md || true

# 3. Render the Sources block into the draft, from the ledger, with the evidence.
step render --style evidence --replace-in "$work/draft.md"
printf '\n$ cat draft.md\n'
cat "$work/draft.md"

# 4. Verify before delivering: ids, block, coverage, evidence, and (--support) that each
#    figure, date and quoted phrase of a cited sentence is on the page it cites.
step verify "$work/draft.md" --strict --evidence --min-coverage 0.5 --support

# The same verdict as a page for whoever checks the draft: sentences marked, citations
# linked to source cards with their quotes in page context. Kept outside the checkout (the
# rest of the run is thrown away), to open in a browser.
report="${TMPDIR:-/tmp}/cite-quickstart-report.html"
step report "$work/draft.md" -o "$report"

printf '\n# --support catches a figure that drifted between the page and the prose:'
text=$(<"$work/draft.md")
printf '%s\n' "${text/"roughly nine percent"/"roughly ten percent"}" > "$work/drifted.md"
step verify "$work/drifted.md" --support || true

# 5. What verify catches: an id the ledger never handed out (a citation made up from
#    memory) and a URL typed by hand into the Sources block (here, with its query lost).
text=$(<"$work/draft.md")
text=${text/"## Sources"/"Pure water is densest at about 4 °C, so colder water rises.[7]

## Sources"}
text=${text/"https://limnology.example.net/lakes/winter?lang=en"/"https://limnology.example.net/lakes/winter"}
printf '%s\n' "$text" > "$work/bad.md"
step verify "$work/bad.md" || true

printf '\n# What to do: never type an id or a Sources entry. Register the page the claim came
# from and cite the id add prints (or drop the claim, or mark it [unverified]); then let
# render rewrite the block from the ledger, and verify again:\n'
new=(add https://physics.example.org/water/maximum-density --title "Water's maximum density")
printf '\n$ cite'; for a in "${new[@]}"; do shown "$a"; done
added=$(cite "${new[@]}")
printf '\n%s\n' "$added"
id=${added%% *}   # the id add printed, as in "[5] https://…"
text=$(<"$work/bad.md")
printf '%s\n' "${text/"[7]"/"$id"}" > "$work/bad.md"
printf '\n# (the draft now cites %s where it said [7])\n' "$id"
step render --style evidence --replace-in "$work/bad.md"
step verify "$work/bad.md"

# 6. Anyone can check the history: how each id was registered, and that nothing was rewritten.
step show 1
step audit
