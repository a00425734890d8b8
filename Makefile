# Ben10 — build, test, lint, fuzz, bench, demo.
GO        ?= go
BIN       ?= bin/ben10
# HOOKBIN: the hook shim, always next to BIN (it execs the ben10 beside it).
HOOKBIN   := $(dir $(BIN))ben10-hook$(suffix $(BIN))
FUZZTIME  ?= 10s
# FUZZMINIMIZE caps the minimisation of each new interesting input, so a
# run spends its time fuzzing (the default, 60s per input, can stall it).
FUZZMINIMIZE ?= 100x
FUZZRUN   ?= .
BENCHTIME ?= 1s
STATICCHECK_VERSION ?= v0.8.2
GOBIN_DIR := $(shell $(GO) env GOPATH)/bin
STATICCHECK := $(GOBIN_DIR)/staticcheck

.PHONY: all build install man test test-times test-long test-e2e bench fuzz lint demo clean

all: build

# build: a pure-Go (CGO_ENABLED=0), statically linked binary, whose
# archives do not depend on a C compiler being present; static because a
# dynamically linked binary pays loader time on every hook start.
# Beside it, ben10-hook: the small UserPromptSubmit front (cmd/ben10-hook,
# standard library only) that `ben10 hooks install` registers when it
# finds it next to ben10.
# VERSION is stamped into the binary (ben10 version, ben10 --version).
VERSION        ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
VERSION_LDFLAG := -X main.version=$(VERSION)
build:
	@mkdir -p $(dir $(BIN))
	CGO_ENABLED=0 $(GO) build -ldflags '-s -w $(VERSION_LDFLAG)' -o $(BIN) ./cmd/ben10
	CGO_ENABLED=0 $(GO) build -ldflags '-s -w' -o $(HOOKBIN) ./cmd/ben10-hook

## install: make build, then copy both binaries into $(go env GOPATH)/bin
## (or INSTALL_DIR), where `go install` would put them.
INSTALL_DIR ?= $(GOBIN_DIR)
install: build
	@mkdir -p $(INSTALL_DIR)
	install -m 0755 $(BIN) $(HOOKBIN) $(INSTALL_DIR)/
	@echo "installed $(INSTALL_DIR)/ben10 and $(INSTALL_DIR)/ben10-hook"

## man: man pages of every command, generated from the command tree,
## into MANDIR (default bin/man; `man -l bin/man/ben10.1`).
MANDIR ?= bin/man
# Built with -tags man: the man-page generator (cobra/doc) stays out of
# the ordinary binary, whose start-up every hook pays.
man:
	CGO_ENABLED=0 $(GO) run -tags man -ldflags '$(VERSION_LDFLAG)' ./cmd/ben10 internal man --dir $(MANDIR)

## test: every test in the module (unit, golden, property, end-to-end)
## in -short mode: the slow cases (every corpus file, the largest
## inputs, crash and concurrency loops, LevelMax, real Argon2 costs)
## run smaller or are left to test-long. About a minute on two cores.
test:
	$(GO) test -short -vet=off -count=1 ./...

## test-times: where make test spends its time, per package (wall and
## CPU) and per test (scripts/test-times.sh).
test-times:
	@GO=$(GO) bash scripts/test-times.sh

## test-long: every test at full size (no -short); CI runs it too.
test-long:
	$(GO) test -count=1 -timeout 30m ./...

## test-e2e: the end-to-end tests against real outside programs (tests
## named TestReal*, gated by internal/e2e; scripts/ci-deps.sh installs
## the programs).
test-e2e:
	BEN10_E2E=1 $(GO) test -count=1 -run '^TestReal' ./...

## bench: every benchmark; see docs/PERFORMANCE.md for the comparisons.
bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) ./...

## fuzz: every fuzz target of the module (./fuzz and those beside their
## code, found with go test -list) for FUZZTIME each (default 10s);
## FUZZRUN=regexp picks some (scripts/fuzz.sh).
fuzz:
	@GO=$(GO) FUZZTIME=$(FUZZTIME) FUZZMINIMIZE=$(FUZZMINIMIZE) FUZZRUN='$(FUZZRUN)' bash scripts/fuzz.sh

$(STATICCHECK):
	GOBIN=$(GOBIN_DIR) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

## lint: gofmt check, go vet, staticcheck.
lint: $(STATICCHECK)
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(STATICCHECK) ./...

## demo: the main job on the bundled sample (see scripts/demo.sh).
demo: build
	@BEN10=$(abspath $(BIN)) bash scripts/demo.sh

clean:
	rm -rf bin
