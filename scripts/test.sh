#!/usr/bin/env bash
# npm test: install what is missing, then every suite: cargo tests, the CLI tests,
# Vitest unit tests, a type check, a production build, Playwright e2e in Chromium, and
# the Firefox ESR smoke suite (e2e/firefox/).
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
bash scripts/bootstrap.sh --browser
export PATH="$HOME/.cargo/bin:$PATH"

# step NAME: starts a step; the previous one's time is printed when the next starts.
step_name="" step_start=$SECONDS
step() {
  [ -z "$step_name" ] || printf '\033[1m== %s: %d s\033[0m\n' "$step_name" "$((SECONDS - step_start))"
  step_name=$*
  step_start=$SECONDS
  [ -z "$step_name" ] || printf '\n\033[1m== %s\033[0m\n' "$step_name"
}
step "cargo test (Rust core, natively)"
(cd wasm && cargo test --quiet)
step "build wasm"
bash scripts/build-wasm.sh
step "build the static renderer (tcpscope render's Node bundle)"
npx vite build -c vite.render.config.ts
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
step ""
printf '\n\033[1m== npm test: every suite passed in %d s\033[0m\n' "$((SECONDS - started))"
