#!/usr/bin/env bash
# npm start: install what is missing, build the wasm, serve the app (with the example captures).
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
bash scripts/bootstrap.sh
t=$SECONDS
bash scripts/build-wasm.sh   # skipped when nothing under wasm/ changed
echo "start: wasm $((SECONDS - t)) s; serving after $((SECONDS - started)) s"
exec npx vite --host "${HOST:-127.0.0.1}" --port "${PORT:-5173}"
