#!/usr/bin/env bash
# Runs every fuzz target (or those named) for SECONDS each, the bounded fuzz step of CI:
#
#   fuzz/run.sh SECONDS [TARGET...]
#
# Each target starts from its committed seeds (fuzz/corpus/TARGET/) and from what earlier
# runs found; new inputs go to a scratch corpus (fuzz/scratch/TARGET/, ignored by git, or
# $CITE_FUZZ_SCRATCH/TARGET/), never into the committed one, so a CI run leaves the
# checkout clean. Exits 1 if any target crashed, after running the others, and prints
# the path of each crashing input (cargo-fuzz writes them to fuzz/artifacts/TARGET/).
#
# Stable Rust is enough: cargo-fuzz needs nightly only for its `-Zsanitizer` flag, and
# `-s none` leaves it out. Every other flag it passes (`-Cpasses=sancov-module`, the
# `-Cllvm-args=-sanitizer-coverage-*` options, `--cfg fuzzing`) is stable. Without
# AddressSanitizer a memory error in unsafe code may go unseen: cite's few unsafe blocks
# are FFI calls to libc (file locks, a socket's peer credentials, the monotonic clock),
# each with a SAFETY comment, on no path the targets drive; what the targets look for are
# panics, overflows and broken promises.
set -euo pipefail

# Pinned, so that a new cargo-fuzz cannot change the flags under CI; any version already
# installed is used as it is.
CARGO_FUZZ_VERSION=0.13.2

usage="usage: fuzz/run.sh SECONDS [TARGET...]"
seconds=${1:?$usage}
shift
[[ $seconds =~ ^[1-9][0-9]*$ ]] || { echo "$usage (SECONDS: a positive whole number)" >&2; exit 2; }

fuzz_dir=$(cd "$(dirname "$0")" && pwd)
cd "$fuzz_dir/.."
scratch=${CITE_FUZZ_SCRATCH:-$fuzz_dir/scratch}

if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install --locked cargo-fuzz --version "$CARGO_FUZZ_VERSION"
fi

# `-s none`: no sanitizer, so no nightly (see above). 16 codegen units instead of
# cargo-fuzz's 1: a cold build takes about 2 minutes instead of 3 on 2 cores, for about
# 15% fewer executions per second, the better trade for a bounded CI step. The same
# flags for `build` and `run`, or `run` would build again.
flags=(-s none --codegen-units 16)

# cargo-fuzz has no --locked: check fuzz/Cargo.lock is up to date (and fetch) first.
cargo fetch --locked --manifest-path fuzz/Cargo.toml
cargo fuzz build "${flags[@]}"

if [ $# -eq 0 ]; then
    mapfile -t targets < <(cargo fuzz list)
else
    targets=("$@")
fi

# Marks the start, so that only the crashes of this run are reported.
started=$(mktemp)
trap 'rm -f "$started"' EXIT

failed=()
for target in "${targets[@]}"; do
    mkdir -p "$scratch/$target"
    echo "== fuzz $target: ${seconds}s"
    # The first corpus folder receives new inputs; the seeds are only read.
    # -timeout: an input that takes 30 s (inputs are at most 4 KiB) is a hang, reported
    # as a crash instead of eating the whole budget. -verbosity=0: no line per new input
    # (thousands a minute) in the CI log; crashes and the final stats still print.
    if ! cargo fuzz run "${flags[@]}" "$target" "$scratch/$target" "fuzz/corpus/$target" -- \
        -max_total_time="$seconds" -timeout=30 -verbosity=0 -print_final_stats=1; then
        failed+=("$target")
    fi
done

if [ ${#failed[@]} -gt 0 ]; then
    echo
    for target in "${failed[@]}"; do
        echo "fuzz target $target failed; crashing input(s):"
        find "fuzz/artifacts/$target" -type f -newer "$started" -printf '    %p\n' 2>/dev/null || true
    done
    echo "reproduce one: cargo fuzz run ${flags[*]} TARGET fuzz/artifacts/TARGET/FILE (see fuzz/README.md)"
fi
# The plain closing line test harnesses read: targets that ran clean, targets that crashed.
echo "fuzz: $((${#targets[@]} - ${#failed[@]})) passed, ${#failed[@]} failed"
[ ${#failed[@]} -eq 0 ]
