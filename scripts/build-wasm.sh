#!/usr/bin/env bash
# Builds wasm/pkg (wasm-pack, --target web) with npm binaryen's wasm-opt first on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
wasm-pack build wasm --target web --release --out-dir pkg --no-pack 2>&1 | grep -v '^\[INFO\]' || true
test -f wasm/pkg/tcpscope_core_bg.wasm || { echo "build-wasm: wasm-pack did not produce wasm/pkg" >&2; exit 1; }
rm -f wasm/pkg/.gitignore   # wasm-pack writes "*"; wasm/.gitignore already keeps pkg/ out of git, and npm pack must see it
