# Thin wrapper around CMake: `make` builds, `make check` builds and runs every test,
# `make demo` runs the demo, `make install PREFIX=...` installs.
PREFIX ?= /usr/local
BUILD  ?= build
JOBS   ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all build deps check unit demo install clean fuzz

all: build

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_FLAGS)

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

deps:
	@bash scripts/deps

# Tests run tc and ip (iproute2 puts them in /usr/sbin), which an ordinary user's PATH
# on Debian lacks: without this, the tests that read or set a qdisc fail for such a user.
check unit: export PATH := $(PATH):/usr/sbin:/sbin

# The tests run in one shell so that the list of skipped tests and their reasons
# (scripts/skipped) ends the output whatever the outcome; the exit status stays the
# tests' own, and the network tests run only when the others passed.
check: deps
	cmake -S . -B $(BUILD) -DCMAKE_INSTALL_PREFIX=$(PREFIX) -DTAKT_WERROR=ON $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS)
	cd $(BUILD) || exit 1; rm -f Testing/junit-check.xml Testing/junit-check-net.xml; rc=0; \
	  ctest --output-on-failure -j $(JOBS) -LE net --output-junit Testing/junit-check.xml || rc=$$?; \
	  if [ $$rc -eq 0 ]; then ctest --output-on-failure -L net --output-junit Testing/junit-check-net.xml || rc=$$?; fi; \
	  python3 $(CURDIR)/scripts/skipped Testing/junit-check.xml Testing/junit-check-net.xml; \
	  exit $$rc

unit: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -L unit

# build only after deps (a prerequisite beside deps would build in parallel under make -j)
demo: deps
	$(MAKE) --no-print-directory build
	$(BUILD)/takt demo

# installs what is built in $(BUILD) under PREFIX, whatever prefix it was configured with
install: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) --target takt takt_static takt_shared takt_docs
	cmake --install $(BUILD) --prefix $(PREFIX)

fuzz:
	CC=clang cmake -S . -B build-fuzz -DTAKT_FUZZ=ON -DTAKT_TESTS=ON
	cmake --build build-fuzz -j $(JOBS)

clean:
	rm -rf $(BUILD) build-asan build-fuzz build-tsan
