# flashsched: `make demo` and `make test` do all set-up on a machine with Python 3.11 and Rust.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.flashsched-installed
SOURCES := $(shell find crates python/flashsched -name '*.rs' -o -name '*.toml' -o -name '*.py' -o -name '*.pyi' 2>/dev/null) Cargo.toml pyproject.toml

# `make install NATIVE=1` (and `make bench NATIVE=1`, ...): compile for this machine's CPU
# (`-C target-cpu=native`). Same results, about 4% faster on the reference benchmark
# (docs/performance.md); the build then runs only on CPUs with this one's instruction set, so
# leave it off for a virtual environment that workers on other machines share.
NATIVE ?= 0
ifneq ($(filter-out 0 1,$(NATIVE)),)
$(error NATIVE must be 0 or 1, not '$(NATIVE)')
endif
ifeq ($(NATIVE),1)
override RUSTFLAGS := $(strip $(RUSTFLAGS) -C target-cpu=native)
export RUSTFLAGS
endif
# The compiler flags of the installed build: a change of flags rebuilds it.
FLAGS_FILE := $(VENV)/.build-flags

.PHONY: demo test test-rust test-python install bench docs clean FORCE

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet "maturin>=1.5,<2"

$(FLAGS_FILE): $(BIN)/python FORCE
	@echo '$(RUSTFLAGS)' | cmp -s - $@ || echo '$(RUSTFLAGS)' > $@

# Build the native module in release mode and install the package with its test extras.
$(STAMP): $(BIN)/python $(FLAGS_FILE) $(SOURCES)
	VIRTUAL_ENV=$(abspath $(VENV)) $(BIN)/maturin develop --release --extras test --quiet
	touch $(STAMP)

install: $(STAMP)

demo: install
	$(BIN)/flashsched demo

test: install test-rust test-python

test-rust:
	cargo test -p flashsched --quiet

test-python: install
	$(BIN)/python -m pytest -q

# The reference benchmark (docs/performance.md).
bench:
	cargo bench -p flashsched --bench bench8x8

# Regenerate the generated docs (a test fails when they are stale).
docs: install
	$(BIN)/python -m flashsched.gendocs

clean:
	rm -rf $(VENV) target demo-results
