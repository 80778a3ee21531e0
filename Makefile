# The two commands of the README. Both install missing Debian packages first
# (scripts/install-deps.sh), configure with the `release` CMake preset and build.
JOBS ?= $(shell nproc)

.PHONY: run test build deps configure clean

run: build
	./build/ftsim run configs/quickstart.json

test: build
	ctest --preset release -j $(JOBS)

build: configure
	cmake --build --preset release -j $(JOBS)

configure: deps
	@test -f build/build.ninja || cmake --preset release

deps:
	@./scripts/install-deps.sh

clean:
	rm -rf build build-debug
