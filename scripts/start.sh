#!/usr/bin/env bash
# npm start: install what is missing, build the wasm, serve the app (with the example captures).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
bash scripts/build-wasm.sh
exec npx vite --host "${HOST:-127.0.0.1}" --port "${PORT:-5173}"
