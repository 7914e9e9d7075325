#!/bin/sh
# Usage: scripts/corpus.sh
# Installs the real-app corpus (the widget libraries e2e/realapps/package-lock.json
# pins) into loupe's cache, outside the tree, once per lock:
#   ${XDG_CACHE_HOME:-$HOME/.cache}/loupe/corpus/KEY/node_modules
# KEY is the first 16 hex digits of the SHA-256 of package.json followed by
# package-lock.json (internal/testenv computes the same). A clean clone then
# finds the corpus already there, as it finds Go's module cache; a changed
# lock installs anew. npm ci runs in a temporary directory renamed into
# place when complete, so an interrupted install leaves nothing half-done.
set -eu
cd "$(dirname "$0")/../e2e/realapps"
if [ -z "${XDG_CACHE_HOME:-}" ] && [ -z "${HOME:-}" ]; then
  # No cache directory to keep it in: into the tree, where the tests
  # look first (and .gitignore keeps it out of commits).
  exec npm ci --no-audit --no-fund --prefer-offline
fi
key=$(cat package.json package-lock.json | sha256sum | cut -c1-16)
base=${XDG_CACHE_HOME:-$HOME/.cache}/loupe/corpus
dir=$base/$key
if [ -f "$dir/node_modules/.package-lock.json" ]; then exit 0; fi
mkdir -p "$base"
tmp=$(mktemp -d "$base/.install-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cp package.json package-lock.json "$tmp/"
(cd "$tmp" && npm ci --no-audit --no-fund --prefer-offline)
# Another make may have installed it meanwhile: theirs stands.
mv -T "$tmp" "$dir" 2>/dev/null || true
test -f "$dir/node_modules/.package-lock.json"
echo "loupe: the real-app corpus is in $dir"
