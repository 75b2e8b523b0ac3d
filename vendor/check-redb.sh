#!/usr/bin/env bash
# Checks that vendor/redb is redb 4.6.0 as published on crates.io plus vendor/redb.patch,
# byte for byte, so that the patch is the whole of what cite changes in redb and can be
# reviewed (and sent upstream) as one diff (vendor/redb/PATCH.md).
#
#   vendor/check-redb.sh          check; exit 1 with the differences if they disagree
#   vendor/check-redb.sh --write  rewrite vendor/redb.patch from vendor/redb, after a
#                                 deliberate change to the patched crate
#
# The published crate: REDB_CRATE if set (a path to redb-4.6.0.crate), else cargo's
# download cache. The cite build does not put it there (the [patch.crates-io] source
# replaces it before anything is downloaded), so when it is missing this fetches it with
# cargo from a throwaway manifest that depends on redb =4.6.0 unpatched: cargo's own
# registry, mirror and proxy settings apply, and later runs are offline. Whatever its
# source, the .crate must have the checksum crates.io's index publishes for 4.6.0.
#
# Compared: the files git would commit under vendor/redb (tracked, or untracked and not
# ignored), so build output (target/) and scratch databases do not count. Left out:
#   PATCH.md  cite's account of the patch and the upstream pull request text; the diff
#             is what it describes, not part of it.
# Nothing else: crates.io adds Cargo.lock, .cargo_vcs_info.json and the normalized
# Cargo.toml to the package, and all three are vendored as published (Cargo.lock,
# which redb's own .gitignore ignores, is committed with `git add -f`: it pins the
# versions the vendored crate's test suite runs with, `cargo test --locked`). File
# contents are compared; modes are not (a diff carries none, git keeps only +x).
set -euo pipefail
# diff orders files by name through the locale: C keeps the patch the same everywhere.
export LC_ALL=C

version=4.6.0
sha256=096b1dd5ec053c9c2a5a26a93aafeadf73ebcb710ea54dc3151f17a8e20535ef

usage="usage: vendor/check-redb.sh [--write]"
write=false
case $# in
    0) ;;
    1) [ "$1" = --write ] || { echo "$usage" >&2; exit 2; }; write=true ;;
    *) echo "$usage" >&2; exit 2 ;;
esac

cd "$(dirname "$0")/.."
root=$PWD
patchfile=$root/vendor/redb.patch

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cache="${CARGO_HOME:-$HOME/.cargo}/registry/cache"
cached_crate() {
    local found
    for found in "$cache"/*/"redb-$version.crate"; do
        [ -f "$found" ] && { echo "$found"; return; }
    done
    return 0
}

crate=${REDB_CRATE:-$(cached_crate)}
if [ -z "$crate" ]; then
    echo "check-redb: redb-$version.crate is not in cargo's cache; fetching it" >&2
    mkdir -p "$work/fetch/src"
    touch "$work/fetch/src/lib.rs"
    # [workspace]: a manifest of its own even when the temporary folder is inside one.
    cat >"$work/fetch/Cargo.toml" <<EOF
[package]
name = "redb-pristine"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
redb = "=$version"

[workspace]
EOF
    cargo fetch --quiet --manifest-path "$work/fetch/Cargo.toml"
    crate=$(cached_crate)
    [ -n "$crate" ] || { echo "check-redb: cargo fetched redb $version but it is not in $cache" >&2; exit 1; }
fi
if ! echo "$sha256  $crate" | sha256sum --check --status; then
    echo "check-redb: $crate is not the published redb $version (sha256 $sha256 expected)" >&2
    exit 1
fi

# The two trees side by side, named so that the patch's paths say what they are:
# redb-4.6.0/ (published) and redb/ (vendored).
tar -xzf "$crate" -C "$work"
[ -d "$work/redb-$version" ] || { echo "check-redb: $crate has no redb-$version/ folder" >&2; exit 1; }
mkdir "$work/vendor"
git ls-files -z --cached --others --exclude-standard -- vendor/redb \
    | grep -zv '^vendor/redb/PATCH\.md$' \
    | tar --null --ignore-failed-read -T - -cf - \
    | tar -xf - -C "$work"
mv "$work/vendor/redb" "$work/redb"

cd "$work"
if $write; then
    # diff's headers carry modification times, which would change the patch on every
    # checkout: only the paths are kept.
    { diff -ruN "redb-$version" redb || [ $? -eq 1 ]; } \
        | sed -E 's/^((---|\+\+\+) [^\t]*)\t.*$/\1/' >"$patchfile"
    echo "check-redb: wrote vendor/redb.patch ($(grep -c '^diff ' "$patchfile") files)"
    exit 0
fi

cp -R "redb-$version" expected
# -F0: no fuzz, every hunk must match where it says; -E: a file the patch empties is
# removed, as diff -N records a deletion.
if ! patch --quiet -p1 -F0 -E -f --no-backup-if-mismatch -d expected -i "$patchfile" >patch.log 2>&1; then
    cat patch.log >&2
    echo "check-redb: vendor/redb.patch does not apply to redb $version" >&2
    exit 1
fi
if ! diff -r expected redb >/dev/null; then
    diff -ruN expected redb | sed -E 's/^((---|\+\+\+) [^\t]*)\t.*$/\1/' >&2 || true
    echo "check-redb: vendor/redb differs from redb $version + vendor/redb.patch (above: + is" >&2
    echo "the vendored tree). A deliberate change: vendor/check-redb.sh --write, then commit" >&2
    echo "vendor/redb.patch with it." >&2
    exit 1
fi
echo "check-redb: vendor/redb is redb $version + vendor/redb.patch ($(grep -c '^diff ' "$patchfile") files)"
