#!/usr/bin/env bash
# The Chromium the e2e tests launch (playwright.config.ts executablePath): Debian's
# /usr/bin/chromium-headless-shell (apt chromium-headless-shell: the same Chromium
# release as apt chromium, built as the headless shell that Playwright itself runs for
# headless tests), else /usr/bin/chromium, or $TCPSCOPE_CHROMIUM; with its repeated
# feature switches merged.
#
# The headless shell has no browser UI to start per window (issue 42 item 1: e2e/share.spec.ts,
# 51 tests, 89 → 75 CPU-s of its cgroup, everything Playwright started included).
#
# Chromium reads --disable-features and --enable-features once each, the last given
# (base::CommandLine keeps one value per switch), and Playwright passes lists of its own
# before the launch options' args: a list in playwright.config.ts would silently drop
# Playwright's (HttpsUpgrades, MediaRouter, …). Here every list given is joined into one
# switch, so both hold. exec keeps the pid and the pipes Playwright talks over.
set -euo pipefail
browser=${TCPSCOPE_CHROMIUM:-}
if [ -z "$browser" ]; then
  browser=/usr/bin/chromium
  [ ! -x /usr/bin/chromium-headless-shell ] || browser=/usr/bin/chromium-headless-shell
fi
args=() disable=() enable=()
for arg in "$@"; do
  case $arg in
    --disable-features=*) disable+=("${arg#*=}") ;;
    --enable-features=*) enable+=("${arg#*=}") ;;
    *) args+=("$arg") ;;
  esac
done
IFS=,
[ ${#disable[@]} = 0 ] || args+=("--disable-features=${disable[*]}")
[ ${#enable[@]} = 0 ] || args+=("--enable-features=${enable[*]}")
exec "$browser" "${args[@]}"
