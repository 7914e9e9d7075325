#!/bin/sh
# fuzz.sh: run every Go fuzz target (func FuzzX in a _test.go file) for a
# short, bounded time each, FUZZTIME (4s unless set), one after another:
# go test -fuzz takes one target per run. A failing input is written under
# its package's testdata/fuzz/ (commit it as a seed once fixed); any
# failure makes the script exit non-zero after every target has run.
set -eu
cd "$(dirname "$0")/.."
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-4s}

# file:FuzzName for every target; found by grep, so no package is built
# just to be listed.
targets=$(grep -r -o --include='*_test.go' --exclude-dir=.git --exclude-dir=node_modules \
  '^func Fuzz[A-Za-z0-9_]*(' . | sed 's/:func /:/; s/($//' | sort)
if [ -z "$targets" ]; then
  echo "fuzz.sh: no fuzz targets found" >&2
  exit 1
fi

failed=""
for t in $targets; do
  dir=$(dirname "${t%%:*}")
  name=${t##*:}
  echo "fuzz: $name ($dir, $FUZZTIME)"
  # Minimizing a new input would otherwise take up to a minute.
  if ! "$GO" test -run '^$' -fuzz "^$name\$" -fuzztime "$FUZZTIME" -fuzzminimizetime 10s "$dir"; then
    failed="$failed $name"
  fi
done
if [ -n "$failed" ]; then
  echo "fuzz.sh: failed:$failed" >&2
  exit 1
fi
