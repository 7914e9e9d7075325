#!/bin/sh
# Makes sure a Chromium is installed: LOUPE_CHROMIUM, a browser on PATH, or
# Debian's chromium package, installed with apt-get when none is found.
set -eu
if [ -n "${LOUPE_CHROMIUM:-}" ] && [ -x "$LOUPE_CHROMIUM" ]; then exit 0; fi
for b in chromium chromium-browser google-chrome google-chrome-stable; do
  if command -v "$b" >/dev/null 2>&1; then exit 0; fi
done
exec "$(dirname "$0")/ensure-deb.sh" chromium chromium
