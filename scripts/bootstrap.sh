#!/usr/bin/env bash
# Installs only what is missing, so a second run is a few quick checks.
#   scripts/bootstrap.sh            toolchain for building and serving
#   scripts/bootstrap.sh --browser  also Debian's chromium, chromium-headless-shell and
#                                   firefox-esr, for the e2e tests
# Everything comes from the package registries (crates.io, npm, Debian); nothing is
# downloaded from elsewhere (see README "Why the toolchain is installed this way").
#
# First-run time (issue 16 item 6): the two `cargo install`s are the long part and use
# every core, so npm and apt (network and disk, little CPU) run beside them in the
# background; both installs share one cargo target directory, so the crates they have
# in common are built once. Each step prints how long it took.
set -euo pipefail
cd "$(dirname "$0")/.."

WASM_PACK_VERSION=0.15.1
want_browser=0
[ "${1:-}" = "--browser" ] && want_browser=1

log() { printf '\033[1mbootstrap:\033[0m %s\n' "$*"; }
export PATH="$HOME/.cargo/bin:$PATH"
started=$SECONDS
# timed NAME CMD...: runs CMD and says how long it took.
timed() {
  local name=$1 t=$SECONDS
  shift
  "$@"
  log "$name: $((SECONDS - t)) s"
}

command -v cargo >/dev/null || { echo "bootstrap: Rust (cargo) is required: https://rustup.rs" >&2; exit 1; }
command -v node >/dev/null || { echo "bootstrap: Node.js ≥ 20 is required" >&2; exit 1; }

logs=$(mktemp -d "${TMPDIR:-/tmp}/tcpscope-bootstrap.XXXXXX")
background=()   # "name:pid" of the steps running beside the cargo installs
cleanup() { rm -rf "$logs"; }
trap cleanup EXIT

# in_background NAME CMD...: runs CMD beside the rest, output to a log shown on failure.
in_background() {
  local name=$1
  shift
  log "$name (in the background)"
  ( t=$SECONDS; "$@" > "$logs/$name.log" 2>&1; rc=$?; echo "$((SECONDS - t))" > "$logs/$name.seconds"; exit $rc ) &
  background+=("$name:$!")
}

# npm packages (includes npm binaryen, whose wasm-opt wasm-pack uses; Debian's
# binaryen 108 produces modules that fail to instantiate). @duckdb/node-api
# (cli/fleet.test.mjs) ships its engine inside the registry package.
npm_install() {
  # The lock names every platform build of @duckdb/node-bindings (npm ci refuses a lock
  # without them), though this registry mirror serves only the Linux ones: the others
  # carry no integrity, and npm ci skips them on Linux. Should npm ci still refuse the
  # lock (a hand edit), `npm install` installs the same versions from it.
  npm ci --no-audit --no-fund || { echo "npm ci failed; npm install from the same lock file"; npm install --no-audit --no-fund; }
}
if [ -L node_modules ]; then
  # A node_modules that is a link to another checkout's (a git worktree sharing one
  # install): npm ci would empty the folder it points to, under everyone using it.
  log "node_modules is a link to $(readlink node_modules): left as it is (run npm ci there)"
elif [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ] \
  || [ ! -d node_modules/@duckdb/node-api ]; then
  in_background "npm packages" npm_install
fi

# Debian chromium and chromium-headless-shell (Playwright) and firefox-esr (e2e/firefox/, puppeteer-core over
# WebDriver BiDi): Playwright's own browser builds cannot be downloaded here.
apt_packages=()
if [ "$want_browser" = 1 ]; then
  [ -n "${TCPSCOPE_CHROMIUM:-}" ] || [ -x /usr/bin/chromium ] || apt_packages+=(chromium)
  # The headless shell is what e2e/chromium.sh launches for Playwright (fewer CPU-s per page).
  [ -n "${TCPSCOPE_CHROMIUM:-}" ] || [ -x /usr/bin/chromium-headless-shell ] || apt_packages+=(chromium-headless-shell)
  [ -n "${TCPSCOPE_FIREFOX:-}" ] || [ -x /usr/bin/firefox-esr ] || apt_packages+=(firefox-esr)
fi
if [ ${#apt_packages[@]} -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" = 0 ] || sudo_cmd="sudo"
  apt_install() {
    $sudo_cmd apt-get update -q && DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -q "${apt_packages[@]}"
  }
  # In the background only when it cannot stop to ask for a password.
  if [ -z "$sudo_cmd" ] || sudo -n true 2>/dev/null; then
    in_background "apt ${apt_packages[*]}" apt_install
  else
    timed "apt ${apt_packages[*]}" apt_install
  fi
fi

# The wasm target of the Rust toolchain.
if command -v rustup >/dev/null && ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  timed "rust target wasm32-unknown-unknown" rustup target add wasm32-unknown-unknown
fi

# wasm-pack, built from crates.io (the npm `wasm-pack` package downloads a binary), and
# wasm-bindgen-cli at exactly the version in wasm/Cargo.lock (otherwise wasm-pack
# silently tries to download it and then cargo-installs it into its own cache). No
# --locked for wasm-bindgen-cli: its lockfile pins a webpki-roots the registry lacks.
# One target directory for both: serde, clap, anyhow, … compile once.
bindgen_version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' wasm/Cargo.lock)
need_pack=0 need_bindgen=0
[ "$(wasm-pack --version 2>/dev/null || true)" = "wasm-pack $WASM_PACK_VERSION" ] || need_pack=1
[ "$(wasm-bindgen --version 2>/dev/null || true)" = "wasm-bindgen $bindgen_version" ] || need_bindgen=1
#
# Both are built without optimisation (opt-level 0, no debug info, no LTO): they only
# orchestrate cargo and rewrite one ~1 MB module, so an optimised build buys nothing we
# wait for (wasm-bindgen takes 1.0 s instead of 0.3 s on our module, same bytes out), and
# it costs far less: on this 2-core machine the two unoptimised builds took 125 + 139
# CPU-s (about 2.2 min of wall time when idle), where the release builds took 3m25s +
# 4m19s of wall time on both cores (issue 16 item 6).
if [ $need_pack = 1 ] || [ $need_bindgen = 1 ]; then
  (
    export CARGO_TARGET_DIR="$logs/cargo-target" CARGO_PROFILE_RELEASE_OPT_LEVEL=0 \
      CARGO_PROFILE_RELEASE_DEBUG=false CARGO_PROFILE_RELEASE_LTO=false \
      CARGO_PROFILE_RELEASE_CODEGEN_UNITS=256 CARGO_PROFILE_RELEASE_INCREMENTAL=false
    [ $need_pack = 0 ] || timed "cargo install wasm-pack $WASM_PACK_VERSION" cargo install wasm-pack --version "$WASM_PACK_VERSION" --locked
    [ $need_bindgen = 0 ] || timed "cargo install wasm-bindgen-cli $bindgen_version" cargo install wasm-bindgen-cli --version "$bindgen_version"
  )
fi

# Wait for the background steps; a failure shows its log.
status=0
for entry in ${background[@]+"${background[@]}"}; do
  name=${entry%:*} pid=${entry##*:}
  if wait "$pid"; then
    log "$name: $(cat "$logs/$name.seconds") s"
  else
    echo "bootstrap: $name failed:" >&2
    tail -30 "$logs/$name.log" >&2
    status=1
  fi
done
[ $status = 0 ] || exit 1
log "toolchain ready ($((SECONDS - started)) s)"
