#!/bin/sh
# Checks that the Go on PATH ($GO, default go) can build loupe. go.mod's
# `go` line names the oldest Go that can; a Go of 1.21 or later fetches that
# one by itself unless GOTOOLCHAIN forbids it, while an older one (Debian
# 12's golang-go is 1.19) fails with a puzzling message about go.mod.
set -eu
GO=${GO:-go}
root=$(cd "$(dirname "$0")/.." && pwd)
want=$(sed -n 's/^go \([0-9][0-9.]*\)$/\1/p' "$root/go.mod")
fix="install Go $want or later (the Go project's release) and put it first on PATH, or run make GO=/path/to/go"
if ! command -v "$GO" >/dev/null 2>&1; then
  echo "loupe: no $GO on PATH; $fix" >&2
  exit 1
fi
# Outside the module, go reports its own version, not the one it would fetch.
have=$(cd / && "$GO" env GOVERSION)
have=${have#go}
case $have in devel*) exit 0 ;; esac
older() { [ "$1" != "$2" ] && [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -n1)" = "$1" ]; }
if ! older "$have" "$want"; then exit 0; fi
toolchain=$(cd / && "$GO" env GOTOOLCHAIN)
if ! older "$have" 1.21 && { [ "$toolchain" = auto ] || [ "${toolchain%+auto}" != "$toolchain" ]; }; then
  exit 0 # this go fetches go$want on first use
fi
echo "loupe: go.mod needs Go $want or later; $GO is $have${toolchain:+ (GOTOOLCHAIN=$toolchain)}; $fix" >&2
exit 1
