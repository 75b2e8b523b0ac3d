#!/usr/bin/env bash
# Runs the registration workflow on the example data in this folder, in a throwaway
# ledger: register sources by hand and from JSON search output, then inspect the ledger.
# Needs only cargo. Usage: bash examples/quickstart.sh
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release --quiet
cite() { ./target/release/cite "$@"; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export CITE_LEDGER="$work/ledger.redb"
export CITE_ACTOR=quickstart

step() { printf '\n$ cite %s\n' "$*"; cite "$@"; }

step reset
step add https://example.com/a --title "A"
step add https://example.com/b --title "B"
step add https://example.com/a/            # same page: same id
step add doi:10.1000/182 arXiv:2305.14627 --via code
step ingest examples/search-results.json --via web
step list
step list --by-via
step show 1
step log --id 1
