#!/usr/bin/env bash
# Installs only what is missing, so a second run is a few quick checks.
#   scripts/bootstrap.sh            toolchain for building and serving
#   scripts/bootstrap.sh --browser  also Debian's chromium, for the Playwright e2e tests
# Everything comes from the package registries (crates.io, npm, Debian); nothing is
# downloaded from elsewhere (see README "Why the toolchain is installed this way").
set -euo pipefail
cd "$(dirname "$0")/.."

WASM_PACK_VERSION=0.15.1
want_browser=0
[ "${1:-}" = "--browser" ] && want_browser=1

log() { printf '\033[1mbootstrap:\033[0m %s\n' "$*"; }
export PATH="$HOME/.cargo/bin:$PATH"

command -v cargo >/dev/null || { echo "bootstrap: Rust (cargo) is required: https://rustup.rs" >&2; exit 1; }
command -v node >/dev/null || { echo "bootstrap: Node.js ≥ 20 is required" >&2; exit 1; }

# 1. The wasm target of the Rust toolchain.
if command -v rustup >/dev/null && ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  log "adding rust target wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

# 2. wasm-pack, built from crates.io (the npm `wasm-pack` package downloads a binary).
if [ "$(wasm-pack --version 2>/dev/null || true)" != "wasm-pack $WASM_PACK_VERSION" ]; then
  log "installing wasm-pack $WASM_PACK_VERSION (cargo install, ~2 min)"
  cargo install wasm-pack --version "$WASM_PACK_VERSION" --locked
fi

# 3. wasm-bindgen-cli at exactly the version in wasm/Cargo.lock; otherwise wasm-pack
#    silently tries to download it and then cargo-installs it into its own cache.
#    No --locked: its lockfile pins a webpki-roots the registry lacks.
bindgen_version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' wasm/Cargo.lock)
if [ "$(wasm-bindgen --version 2>/dev/null || true)" != "wasm-bindgen $bindgen_version" ]; then
  log "installing wasm-bindgen-cli $bindgen_version (cargo install, ~2 min)"
  cargo install wasm-bindgen-cli --version "$bindgen_version"
fi

# 4. npm packages (includes npm binaryen, whose wasm-opt wasm-pack uses; Debian's
#    binaryen 108 produces modules that fail to instantiate).
#    @duckdb/node-api (cli/fleet.test.mjs) ships its engine inside the registry package.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ] \
  || [ ! -d node_modules/@duckdb/node-api ]; then
  log "installing npm packages"
  # npm 11's `npm ci` refuses this lock file because it holds only the Linux builds of
  # @duckdb/node-bindings (npm writes the optional packages of the platform it ran
  # on); `npm install` installs from the same lock and resolves what is missing.
  npm ci --no-audit --no-fund 2>/dev/null || npm install --no-audit --no-fund
fi

# 5. Chromium for Playwright, from Debian (`npx playwright install` cannot download here).
if [ "$want_browser" = 1 ] && [ -z "${TCPSCOPE_CHROMIUM:-}" ] && [ ! -x /usr/bin/chromium ]; then
  log "installing Debian chromium"
  sudo_cmd=""
  [ "$(id -u)" = 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -q chromium
fi
# 6. Firefox ESR for the second-engine tests (e2e/firefox/, puppeteer-core over
#    WebDriver BiDi; Playwright's own Firefox build cannot be downloaded here).
if [ "$want_browser" = 1 ] && [ -z "${TCPSCOPE_FIREFOX:-}" ] && [ ! -x /usr/bin/firefox-esr ]; then
  log "installing Debian firefox-esr"
  sudo_cmd=""
  [ "$(id -u)" = 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -q firefox-esr
fi
log "toolchain ready"
