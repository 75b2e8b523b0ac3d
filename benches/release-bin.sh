# Sourced by the bench scripts: builds cite --release and sets CITE to the binary where
# cargo put it ($CARGO_TARGET_DIR or a cargo config may move the target folder), taken
# from cargo's own report of what it built. Cargo's progress stays on stderr.
bin=$(cargo build --release --locked --message-format=json-render-diagnostics |
    sed -n 's/.*"target":{"kind":\["bin"\][^}]*"name":"cite".*"executable":"\([^"]*\)".*/\1/p' |
    tail -n 1)
[ -x "$bin" ] || { echo "cargo reported no cite binary" >&2; exit 1; }
CITE="$bin"
