#!/bin/sh
# Usage: scripts/ensure-postgres.sh
# Installs Debian's postgresql package with apt-get when no PostgreSQL
# server binaries are found where the tests look for them
# (internal/pgtest): /usr/lib/postgresql/VERSION/bin/initdb and postgres.
# Debian keeps them off PATH, so scripts/ensure-deb.sh, which checks a
# command on PATH, cannot tell. The package also starts a cluster of its
# own; the tests do not use it, they run theirs in a temporary directory.
set -eu
found() {
  for d in /usr/lib/postgresql/*/bin; do
    if [ -x "$d/initdb" ] && [ -x "$d/postgres" ]; then return 0; fi
  done
  return 1
}
if found; then exit 0; fi
echo "loupe: no PostgreSQL server in /usr/lib/postgresql/*/bin; installing Debian's postgresql" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "loupe: run as root or install postgresql yourself (apt-get install postgresql)" >&2; exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends postgresql
found
