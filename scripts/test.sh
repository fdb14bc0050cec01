#!/usr/bin/env bash
# npm test: install what is missing, then every suite: cargo tests, the CLI tests,
# Vitest unit tests, a type check, a production build, Playwright e2e in Chromium, and
# the Firefox ESR smoke suite (e2e/firefox/).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh --browser
export PATH="$HOME/.cargo/bin:$PATH"

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
step "cargo test (Rust core, natively)"
(cd wasm && cargo test --quiet)
step "build wasm"
bash scripts/build-wasm.sh
step "CLI tests (node --test)"
node --test cli/
step "unit tests (vitest)"
npx vitest run
step "type check + production build"
npx tsc -p .
npx vite build --logLevel warn
step "e2e (playwright, Debian chromium)"
npx playwright test
step "e2e in the second engine (Debian firefox-esr, puppeteer-core over WebDriver BiDi)"
node --test e2e/firefox/
