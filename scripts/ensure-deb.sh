#!/bin/sh
# Usage: scripts/ensure-deb.sh COMMAND PACKAGE...
# Installs Debian's PACKAGEs with apt-get when COMMAND is not on PATH (a
# fresh machine: gcc for the race detector, npm for the real-app corpus).
set -eu
cmd=$1; shift
if command -v "$cmd" >/dev/null 2>&1; then exit 0; fi
echo "loupe: no $cmd found; installing Debian's $*" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "loupe: run as root or install $* yourself (apt-get install $*)" >&2; exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "$@"
command -v "$cmd" >/dev/null
