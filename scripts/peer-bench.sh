#!/bin/sh
# Runs the shared peer bench (../shared/bench) with loupe beside its peers,
# on a copy (the shared folder is read-only). Usage:
#
#   scripts/peer-bench.sh [bench.mjs options…]
#   scripts/peer-bench.sh --servers loupe,playwright-mcp --fixtures large,frames --passes 3
#
# Results: $BENCH_DIR/out/report.md and out/latest.json (or merged.json).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
src=${SHARED_BENCH:-$here/../shared/bench}
BENCH_DIR=${BENCH_DIR:-/tmp/loupe-bench}
[ -d "$src" ] || { echo "no peer bench at $src (set SHARED_BENCH)" >&2; exit 1; }
"$here/scripts/ensure-chromium.sh"
(cd "$here" && go build -o bin/loupe ./cmd/loupe)
if [ ! -d "$BENCH_DIR/node_modules" ]; then
  rm -rf "$BENCH_DIR"
  cp -r "$src" "$BENCH_DIR"
  (cd "$BENCH_DIR" && npm run setup)
fi
cd "$BENCH_DIR"
if [ $# -eq 0 ]; then set -- --servers loupe,playwright-mcp --passes 3; fi
LOUPE_CMD="$here/bin/loupe" exec node bench.mjs "$@"
