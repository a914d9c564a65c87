# flashsched: `make demo` and `make test` do all set-up on a machine with Python 3.11 and Rust.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.flashsched-installed
SOURCES := $(shell find crates python/flashsched -name '*.rs' -o -name '*.toml' -o -name '*.py' -o -name '*.pyi' 2>/dev/null) Cargo.toml pyproject.toml tools/pgo.py tools/install.py benches/configs.py

# `make install NATIVE=1` (and `make bench NATIVE=1`, ...): compile for this machine's CPU
# (`-C target-cpu=native`). Same results; 4% faster on the reference benchmark before the
# install was profile-guided, no faster with it when last measured (docs/performance.md, "Reference
# numbers"); the build then runs only on CPUs with this one's instruction set, so
# leave it off for a virtual environment that workers on other machines share.
NATIVE ?= 0
ifneq ($(filter-out 0 1,$(NATIVE)),)
$(error NATIVE must be 0 or 1, not '$(NATIVE)')
endif
ifeq ($(NATIVE),1)
override RUSTFLAGS := $(strip $(RUSTFLAGS) -C target-cpu=native)
export RUSTFLAGS
endif
# Profile-guided optimisation (tools/pgo.py): the module is built instrumented, trained on
# workloads this project generates under every family of policies, and built again with the
# counts. Same results, about 15% faster (docs/performance.md); the install takes two builds.
# `auto` (default): used when the toolchain has (or rustup can add) llvm-profdata, otherwise a
# plain release build, with a note saying so; `1`: required (an error without it); `0`: off.
PGO ?= auto
ifneq ($(filter-out auto 0 1,$(PGO)),)
$(error PGO must be auto, 0 or 1, not '$(PGO)')
endif
# Written by tools/pgo.py: the path of the installed module's profile (named by its digest).
PROFILE_PATH := target/pgo/profile-path
# The compiler and its flags for the installed build: a change of either rebuilds it (and a new
# compiler retrains the profile, whose format follows its LLVM).
FLAGS_FILE := $(VENV)/.build-flags
RUSTC_VERSION := $(shell rustc -V 2>/dev/null)

.PHONY: demo test test-rust test-python install bench docs clean FORCE

$(BIN)/python:
	@echo 'make: creating $(VENV) (a Python virtual environment) with maturin, the build tool; the first install then takes 2-7 minutes'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet "maturin>=1.5,<2"

$(FLAGS_FILE): $(BIN)/python FORCE
	@echo '$(RUSTC_VERSION) $(RUSTFLAGS) PGO=$(PGO)' | cmp -s - $@ || echo '$(RUSTC_VERSION) $(RUSTFLAGS) PGO=$(PGO)' > $@

# Build the native module in release mode as a wheel and install it with pip, with the test
# extras (tools/install.py; profile-guided unless PGO=0; tools/pgo.py exits with 3 when it cannot,
# and `auto` then falls back to the plain build, which also replaces an instrumented module a
# failure left installed). Standard input is /dev/null: no step reads it, and a terminal there
# is one thing less for the build tools to share.
$(STAMP): $(BIN)/python $(FLAGS_FILE) $(SOURCES)
	@rm -f $(PROFILE_PATH)
	@if [ '$(PGO)' = 0 ]; then \
	  $(BIN)/python tools/install.py --venv $(VENV) < /dev/null; \
	else \
	  rc=0; $(BIN)/python tools/pgo.py --venv $(VENV) $(if $(filter 1,$(PGO)),--require) < /dev/null || rc=$$?; \
	  if [ $$rc = 3 ]; then \
	    echo 'note: building without profile-guided optimisation (about 15% slower, same results)'; \
	    $(BIN)/python tools/install.py --venv $(VENV) < /dev/null; \
	  elif [ $$rc != 0 ]; then exit $$rc; fi; \
	fi
	touch $(STAMP)

install: $(STAMP)

demo: install
	$(BIN)/flashsched demo

test: install test-rust test-python

test-rust:
	cargo test -p flashsched --quiet

test-python: install
	$(BIN)/python -m pytest -q

# The reference benchmark (docs/performance.md), built with the installed module's profile when
# there is one (tools/pgo.py --bench: in the module's target directory, target/pgo-use, so that
# other flags do not rebuild `cargo test`'s or a plain `cargo bench`'s).
bench: install
	$(BIN)/python tools/pgo.py --bench

# Regenerate the generated docs (a test fails when they are stale).
docs: install
	$(BIN)/python -m flashsched.gendocs

clean:
	rm -rf $(VENV) target demo-results
