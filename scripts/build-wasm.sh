#!/usr/bin/env bash
# Builds wasm/pkg (wasm-pack, --target web) with npm binaryen's wasm-opt first on PATH.
# Skipped when nothing the module is built from changed since the last build: a hash
# of wasm/src, wasm/Cargo.toml, wasm/Cargo.lock, this script and the tools' versions
# is kept in wasm/pkg/.build-stamp (so a second `npm start` serves at once).
# TCPSCOPE_FORCE_WASM=1 builds anyway.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
STAMP=wasm/pkg/.build-stamp

inputs_hash() {
  {
    find wasm/src -type f -print0 | sort -z | xargs -0 sha256sum
    sha256sum wasm/Cargo.toml wasm/Cargo.lock scripts/build-wasm.sh
    wasm-pack --version 2>/dev/null || true
    wasm-bindgen --version 2>/dev/null || true
  } | sha256sum | cut -d' ' -f1
}

hash=$(inputs_hash)
if [ "${TCPSCOPE_FORCE_WASM:-0}" != 1 ] && [ -f wasm/pkg/tcpscope_core_bg.wasm ] && [ -f wasm/pkg/tcpscope_core.js ] \
  && [ "$(cat "$STAMP" 2>/dev/null)" = "$hash" ]; then
  echo "build-wasm: wasm/pkg is up to date (nothing under wasm/ changed; TCPSCOPE_FORCE_WASM=1 rebuilds)"
  exit 0
fi
rm -f "$STAMP"
# wasm-pack's own status decides: the grep only hides its [INFO] lines, and
# an earlier build's .wasm left in pkg/ must not pass for this one when wasm-pack (or its
# wasm-opt step) died half-way (session 38: a stopped wasm-opt left an unoptimised module
# stamped as current).
status=0
wasm-pack build wasm --target web --release --out-dir pkg --no-pack > >(grep -v '^\[INFO\]' || true) 2>&1 || status=$?
[ "$status" = 0 ] || { echo "build-wasm: wasm-pack failed (exit $status); wasm/pkg is not stamped" >&2; exit 1; }
test -f wasm/pkg/tcpscope_core_bg.wasm || { echo "build-wasm: wasm-pack did not produce wasm/pkg" >&2; exit 1; }
rm -f wasm/pkg/.gitignore   # wasm-pack writes "*"; wasm/.gitignore already keeps pkg/ out of git, and npm pack must see it
echo "$hash" > "$STAMP"
