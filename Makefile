# loupe: the two commands of the README are `make demo` and `make test`.
GO ?= go
export PATH := $(PATH):/usr/local/go/bin

.PHONY: demo test build go chromium corpus bench clean

## demo: install Chromium if missing, build, and drive a local page end to end
demo: go chromium build
	$(GO) run ./cmd/demo -loupe bin/loupe

## test: install Chromium (and gcc, npm) if missing, the corpus, then vet and run every test (race detector on), then each fuzz target for a few seconds
test: go chromium corpus
	@scripts/ensure-deb.sh gcc gcc libc6-dev
	$(GO) vet ./...
	$(GO) test -race -count=1 -timeout 20m ./...
	GO=$(GO) scripts/fuzz.sh

build: go
	$(GO) build -o bin/loupe ./cmd/loupe

## go: fail clearly when the Go found cannot build loupe (go.mod's go line)
go:
	@GO=$(GO) scripts/check-go.sh

chromium:
	@scripts/ensure-chromium.sh

## corpus: the real-app corpus of e2e/realapps (widget libraries at the versions its lock pins)
corpus:
	@scripts/ensure-deb.sh npm nodejs npm
	cd e2e/realapps && npm ci --no-audit --no-fund

## bench: Go benchmarks on this machine (see BENCHMARKS.md for the peer bench)
bench: go chromium
	$(GO) test -run '^$$' -bench Large -benchtime 10x ./internal/engine/capture/
	$(GO) test -run '^$$' -bench . -benchtime 7x ./e2e/

clean:
	rm -rf bin
