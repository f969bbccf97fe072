# The two commands of the README: `make demo` and `make test`. Each installs
# what is missing (as root), configures with CMake + Ninja and clang-19,
# builds, then runs.
BUILD ?= build
BUILD_TYPE ?= RelWithDebInfo
CMAKE_FLAGS ?=
JOBS ?= $(shell nproc)

.PHONY: all deps configure build test demo bench install clean

all: build

deps:
	@tools/install-deps.sh

$(BUILD)/build.ninja: | deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
	  -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 $(CMAKE_FLAGS)

configure: $(BUILD)/build.ninja

build: deps configure
	cmake --build $(BUILD) -j $(JOBS)

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

demo: build
	tools/demo.sh $(BUILD)

bench: build
	$(BUILD)/bin/bench_core --benchmark_counters_tabular=true

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD)
