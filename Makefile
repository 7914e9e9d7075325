# loupe: the two commands of the README are `make demo` and `make test`.
GO ?= go
export PATH := $(PATH):/usr/local/go/bin

.PHONY: demo test gotest load-small test-long fuzz lint vet staticcheck build go chromium corpus npm-corpus bench clean

## demo: install Chromium if missing, build, and drive a local page end to end
demo: go chromium build
	$(GO) run ./cmd/demo -loupe bin/loupe

# LOUPE_TEST_REQUIRE=1: a test that lacks an optional part (the corpus,
# Node.js) fails rather than skips — make test has installed them all.
# GORACE=atexit_sleep_ms=0: a race-built test binary otherwise sleeps a
# second after its last test, for reports of goroutines still running;
# go test runs two binaries at a time here, so ~40 packages spent ~20 s
# of make test asleep (a race found during a test fails it either way).
TESTENV := LOUPE_TEST_REQUIRE=1 GORACE=atexit_sleep_ms=0

# -trimpath: compiled packages, vet and staticcheck results are cached by
# content, not by the checkout's path, so a second clone or worktree of a
# commit reuses what the first built (without it, every clone recompiled
# and re-linted all of loupe: ~100 core-s of a clean clone's make test).
# It also keeps the builder's paths out of the binaries.
export GOFLAGS := $(strip -trimpath $(GOFLAGS))

# -vet=off: make test has just run go vet over every package, of which the
# vet go test runs by itself is a subset. -ldflags=-w: no DWARF tables in
# the test binaries, which only run once (a fifth to a third less linking;
# stack traces do not need them).
TESTFLAGS := -race -count=1 -vet=off -ldflags=-w -timeout 10m

## test: install Chromium (and gcc, npm, PostgreSQL) if missing, the corpus, then vet,
## staticcheck and every test with the race detector; fuzz targets run
## their committed seeds only (exploring is make fuzz); the exhaustive
## variants run only in make test-long (LOUPE_TEST_LONG=1). Writes nothing in the tree.
## The Debian packages come first, one apt-get at a time; then the corpus,
## vet and staticcheck run side by side (npm waits on disk, the linters on
## the CPU); the corpus is installed once per lock, outside the tree.
## Beside the Go tests, the load measurement at its small size prints
## its tables (scripts/load; docs/scaling.md has the full-size curves).
test: go chromium
	@scripts/ensure-deb.sh gcc gcc libc6-dev
	@scripts/ensure-deb.sh ffmpeg ffmpeg
	@scripts/ensure-deb.sh npm nodejs npm
	@scripts/ensure-postgres.sh
	@scripts/ensure-deb.sh java openjdk-17-jre-headless
	@scripts/ensure-deb.sh chromedriver chromium-driver
	@$(MAKE) --no-print-directory -j3 --output-sync=target npm-corpus vet staticcheck
	@$(MAKE) --no-print-directory -j2 --output-sync=target gotest load-small

# The Go tests, and beside them the load measurement at its small size
# (it mostly waits on the browser; its tables are printed, and it fails
# when an operation failed).
gotest:
	$(TESTENV) $(GO) test $(TESTFLAGS) ./...

load-small:
	@GO=$(GO) scripts/load -small -start-postgres

## test-long: every test at full length (the 60-step cache equivalence
## runs, the soak, a cache check after every real-app task) and the e2e
## package against a race-built loupe: what make test runs and more; CI
## does not need it
test-long: go chromium corpus
	@scripts/ensure-deb.sh gcc gcc libc6-dev
	@scripts/ensure-deb.sh ffmpeg ffmpeg
	@scripts/ensure-postgres.sh
	@scripts/ensure-deb.sh java openjdk-17-jre-headless
	@scripts/ensure-deb.sh chromedriver chromium-driver
	$(TESTENV) LOUPE_TEST_LONG=1 LOUPE_E2E_RACE=1 $(GO) test -race -count=1 -timeout 30m ./...

## fuzz: explore each fuzz target for FUZZTIME (4s) apiece; a failing input
## is written under its package's testdata/fuzz/ — fix it, then commit it
## as a seed
fuzz: go
	GO=$(GO) scripts/fuzz.sh

## lint: go vet and staticcheck alone
lint: go
	@$(MAKE) --no-print-directory -j2 --output-sync=target vet staticcheck

vet:
	$(GO) vet ./...

staticcheck:
	$(GO) tool staticcheck ./...

build: go
	$(GO) build -o bin/loupe ./cmd/loupe

## go: fail clearly when the Go found cannot build loupe (go.mod's go line)
go:
	@GO=$(GO) scripts/check-go.sh

chromium:
	@scripts/ensure-chromium.sh

## corpus: the real-app corpus of e2e/realapps (widget libraries at the
## versions its lock pins) and the Selenium Grid server of the Grid tests
## (internal/gridtest/selenium), installed once per lock in loupe's cache
## outside the tree (scripts/corpus.sh, scripts/selenium.sh)
corpus:
	@scripts/ensure-deb.sh npm nodejs npm
	@scripts/corpus.sh
	@scripts/selenium.sh

npm-corpus:
	@scripts/corpus.sh
	@scripts/selenium.sh

## bench: Go benchmarks on this machine (see BENCHMARKS.md for the peer bench)
bench: go chromium
	$(GO) test -run '^$$' -bench Large -benchtime 10x ./internal/engine/capture/
	$(GO) test -run '^$$' -bench . -benchtime 7x ./e2e/

clean:
	rm -rf bin
