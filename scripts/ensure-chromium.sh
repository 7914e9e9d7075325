#!/bin/sh
# Makes sure a Chromium is installed: LOUPE_CHROMIUM, a browser on PATH, or
# Debian's chromium package, installed with apt-get when none is found.
# Headless sessions run Chromium's headless shell when it is there (see
# internal/chromium/find.go: the same engine at about half the CPU), so
# Debian's chromium-headless-shell is installed beside the browser; where
# apt-get cannot install it, loupe runs the full browser headless.
set -eu
if [ -n "${LOUPE_CHROMIUM:-}" ] && [ -x "$LOUPE_CHROMIUM" ]; then exit 0; fi
here=$(dirname "$0")
full=""
for b in chromium chromium-browser google-chrome google-chrome-stable; do
  if command -v "$b" >/dev/null 2>&1; then full=$b; break; fi
done
if [ -z "$full" ]; then
  "$here/ensure-deb.sh" chromium chromium chromium-headless-shell
fi
if [ -x /usr/lib/chromium/chromium-headless-shell ]; then exit 0; fi
for b in chrome-headless-shell headless_shell chromium-headless-shell; do
  if command -v "$b" >/dev/null 2>&1; then exit 0; fi
done
if command -v apt-get >/dev/null 2>&1; then
  "$here/ensure-deb.sh" chromium-headless-shell chromium-headless-shell ||
    echo "loupe: Debian's chromium-headless-shell did not install; headless sessions run $full" >&2
fi
