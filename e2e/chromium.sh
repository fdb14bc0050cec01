#!/usr/bin/env bash
# The Chromium the e2e tests launch (playwright.config.ts executablePath): Debian's
# /usr/bin/chromium, or $TCPSCOPE_CHROMIUM, with its repeated feature switches merged.
#
# Chromium reads --disable-features and --enable-features once each, the last given
# (base::CommandLine keeps one value per switch), and Playwright passes lists of its own
# before the launch options' args: a list in playwright.config.ts would silently drop
# Playwright's (HttpsUpgrades, MediaRouter, …). Here every list given is joined into one
# switch, so both hold. exec keeps the pid and the pipes Playwright talks over.
set -euo pipefail
browser=${TCPSCOPE_CHROMIUM:-/usr/bin/chromium}
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
