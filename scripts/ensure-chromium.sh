#!/bin/sh
# Makes sure a Chromium is installed: LOUPE_CHROMIUM, a browser on PATH, or
# Debian's chromium package, installed with apt-get when none is found.
set -eu
if [ -n "${LOUPE_CHROMIUM:-}" ] && [ -x "$LOUPE_CHROMIUM" ]; then exit 0; fi
for b in chromium chromium-browser google-chrome google-chrome-stable; do
  if command -v "$b" >/dev/null 2>&1; then exit 0; fi
done
echo "loupe: no Chromium found; installing Debian's chromium package" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "loupe: run as root or install chromium yourself (apt-get install chromium)" >&2; exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends chromium
command -v chromium >/dev/null
