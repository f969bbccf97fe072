# The two commands of the README: `make demo` and `make test`. Each installs
# what is missing (as root), configures with CMake + Ninja and clang-19,
# builds, then runs.
BUILD ?= build
BUILD_TYPE ?= RelWithDebInfo
CMAKE_FLAGS ?=
JOBS ?= $(shell nproc)

CTEST_ARGS ?=

.PHONY: all deps configure build test sim-smpi sanitize sanitize-address sanitize-thread sanitize-ci sanitize-quick fuzz demo matrix bench bench-omp bench-startup bench-cluster bench-gomp bench-tasks libomp-release libomp-patched peer-tests peer-tests-cluster stress-cluster-layout install clean

all: build

deps:
	@tools/install-deps.sh

$(BUILD)/build.ninja: | deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
	  -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 $(CMAKE_FLAGS)

configure: $(BUILD)/build.ninja

build: deps configure
	cmake --build $(BUILD) -j $(JOBS)

# auto's cache stays out of the user's home: every test starts afresh. The
# patched libomp (patches/) is built for the `patched` tests when its source
# can be fetched (they say "skipped" otherwise); sanitizer builds have no
# such tests.
test: build
	@if cmake --build $(BUILD) --target help | grep -q '^libomp_patched:'; then 	  cmake --build $(BUILD) --target libomp_patched; fi
	SELFSCHED_AUTO_CACHE=off ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) $(CTEST_ARGS)

# The suite under clang's sanitizers (cmake/sanitizers.cmake), each in its own
# build directory; `ctest` alone in either runs under the same options and
# suppressions (tools/sanitizers/), set for every test by CMake.
# - sanitize-address: ASan+UBSan (LeakSanitizer included) over every test,
#   MPI included: 555 tests (`ctest -N` in build-asan), all passing, in
#   19.7 min of tests on this 2-CPU VM at a load of 1-3, after its build
#   (about 25 min from nothing; 68 min of tests at a load of 15 or more).
# - sanitize-thread: TSan with Archer over the tests that run OpenMP threads
#   (omp.*, examples.*, hetero.*), but these four, which cannot run under it:
#   libomp's own doacross loops (Archer does not model ordered depend: a plain
#   OpenMP doacross loop without selfsched reports a race); omp.tool_chain
#   (it names its own tool in OMP_TOOL_LIBRARIES, so Archer is not loaded);
#   omp.loop_forms.hard_pause (a hard pause ends every OMPT tool for good,
#   Archer with them: TSan then sees none of libomp's forks and joins, and
#   reports a region's reads of its root thread's variables); omp.lifecycle
#   (it starts OpenMP threads in a child forked from a threaded process, which
#   TSan refuses: "starting new threads after multi-threaded fork").
sanitize: sanitize-address sanitize-thread

sanitize-address:
	$(MAKE) test BUILD=build-asan CMAKE_FLAGS='$(CMAKE_FLAGS) -DSELFSCHED_SANITIZE="address;undefined" -DSELFSCHED_BUILD_BENCHMARKS=OFF'

# ($$$$: a dollar after this make and the one `test` runs in expand it.)
TSAN_EXCLUDED = doacross[._]libomp|^omp\.tool_chain$$$$|^omp\.loop_forms\.hard_pause$$$$|^omp\.lifecycle$$$$
sanitize-thread:
	$(MAKE) test BUILD=build-tsan CMAKE_FLAGS='$(CMAKE_FLAGS) -DSELFSCHED_SANITIZE=thread -DSELFSCHED_BUILD_BENCHMARKS=OFF' \
	  CTEST_ARGS='-R "^(omp|examples|hetero)\." -E "$(TSAN_EXCLUDED)" $(CTEST_ARGS)'

# CI's ASan+UBSan pass (.ci/run): sanitize-address over every test but the
# MPI tests labelled `repeat` (tests/mpi/CMakeLists.txt says, for each, which
# kept test runs its code) and mpi.nodes.* (the MPI programs again across
# network-namespace "nodes"). The examples, hetero, sim and every transport,
# pool strategy, region check, the C API and the straggler cases are in it:
# 441 tests, 11.4 min of tests on this 2-CPU VM at a load of 1-3 (23 min at
# a load average of 22 falling to 4), after the ASan build (25 min from
# nothing at a load average of 7-17).
sanitize-ci:
	$(MAKE) sanitize-address CTEST_ARGS='-E "^mpi\.nodes\." -LE "^repeat" $(CTEST_ARGS)'

# A short pass for a developer: the core, tool and OpenMP tests under ASan+UBSan.
sanitize-quick:
	$(MAKE) sanitize-address CTEST_ARGS='-E "^(examples|hetero|matrix|install|mpi)\." $(CTEST_ARGS)'

# The parsers of outside input under libFuzzer (tests/fuzz/), FUZZ_SECONDS
# each (about a minute in all), in their own instrumented build directory.
FUZZ_SECONDS ?= 12
fuzz: deps
	$(MAKE) configure BUILD=build-fuzz CMAKE_FLAGS='$(CMAKE_FLAGS) -DSELFSCHED_FUZZ=ON -DSELFSCHED_BUILD_BENCHMARKS=OFF'
	cmake --build build-fuzz -j $(JOBS) --target fuzzers
	tests/fuzz/run.sh build-fuzz $(FUZZ_SECONDS)

# Builds only what the demo runs: a first build takes minutes less than `make build`.
demo: deps configure
	cmake --build $(BUILD) -j $(JOBS) --target selfsched_omp selfsched-chunks selfsched-report mandelbrot
	tools/demo.sh $(BUILD)

# The application matrix (docs/results/matrix.md): --quick in a minute, --full in about 20.
matrix: build
	python3 benchmarks/matrix/matrix.py --full --build $(BUILD)

# The real MPI bridge under SimGrid's SMPI beside selfsched-sim's models
# (docs/simulation.md): master, rma and hier at SMPI_WORKERS computing ranks
# (64 by default, seconds; 512 and more take far longer: see the docs);
# SMPI_ARGS adds or overrides run.py's options.
SMPI_WORKERS ?= 64
SMPI_ARGS ?=
sim-smpi: build
	python3 sim/smpi/run.py --build $(BUILD) --transport master,rma,hier --workers $(SMPI_WORKERS) --masters 4 --n 20000 $(SMPI_ARGS)

bench: build
	$(BUILD)/bin/bench_core --benchmark_counters_tabular=true

# Per-chunk cost of the libomp binding (docs/results/overhead.md); a few minutes.
bench-omp: build
	benchmarks/omp/run_bench_omp.sh $(BUILD)

# What loading libselfsched costs a short program, alone and preloaded, paired
# runs and callgrind counts (docs/results/overhead.md); about a minute.
# STARTUP_BASELINE=<another build>/lib/libselfsched.so: measured beside, in the same rounds.
STARTUP_ROUNDS ?= 40
STARTUP_BASELINE ?=
bench-startup: deps configure
	cmake --build $(BUILD) -j $(JOBS) --target selfsched_omp startup_loop startup_empty_library
	python3 benchmarks/startup/bench_startup.py --build $(BUILD) --rounds $(STARTUP_ROUNDS) \
	  $(if $(STARTUP_BASELINE),--baseline $(STARTUP_BASELINE))

# What a task costs in a task pool, beside OpenMP's own tasks (docs/tasks.md).
bench-tasks: build
	$(BUILD)/bin/bench_task_pool --benchmark_counters_tabular=true

# Cluster mode: what a rank pays per page it writes (docs/results/cluster.md).
bench-cluster: build
	$(BUILD)/bin/bench_cluster_merge --benchmark_counters_tabular=true

# The same per-chunk instruction counts under libgomp (GCC programs).
bench-gomp: build
	benchmarks/omp/callgrind_gomp.sh $(BUILD)

# libomp 19 built Release from the distribution's source (root, once).
libomp-release:
	benchmarks/omp/build_release_libomp.sh $(BUILD)

# libomp with patches/ applied (registered loop schedules), from the same
# source package; also built by `make build` when the source can be fetched.
libomp-patched:
	tools/build-libomp-patched.sh $(BUILD)

# Other projects' tests against the stock runtimes, without and with
# libselfsched preloaded (tests/peer/): LLVM's OpenMP runtime tests (lit)
# built by clang and by gcc, and GCC's libgomp testsuite (C, C++, Fortran).
# Fetches the sources once, as root; 45-60 minutes.
PEER_TECHNIQUES ?= fss,auto
peer-tests: build
	python3 tests/peer/llvm_openmp.py --source "$$(tools/fetch-llvm-source.sh $(BUILD))" \
	  --lib $(BUILD)/lib/libselfsched.so --work $(BUILD)/peer-tests --compiler clang --techniques $(PEER_TECHNIQUES)
	python3 tests/peer/llvm_openmp.py --source "$$(tools/fetch-llvm-source.sh $(BUILD))" \
	  --lib $(BUILD)/lib/libselfsched.so --work $(BUILD)/peer-tests --compiler gcc --techniques $(PEER_TECHNIQUES)
	python3 tests/peer/libgomp.py --testsuite "$$(tools/fetch-gcc-testsuite.sh $(BUILD))" \
	  --lib $(BUILD)/lib/libselfsched.so --work $(BUILD)/peer-tests/libgomp --techniques $(PEER_TECHNIQUES)
	python3 tests/peer/libgomp.py --testsuite "$$(tools/fetch-gcc-testsuite.sh $(BUILD))" --suites libgomp.fortran \
	  --fortran flang-new-19 --lib $(BUILD)/lib/libselfsched.so --work $(BUILD)/peer-tests/flang --techniques $(PEER_TECHNIQUES)

# The same suites' loop and reduction tests in cluster mode (docs/cluster.md):
# each test program under selfsched-mpirun --cluster -np PEER_RANKS,
# PEER_THREADS threads a rank (1 by default), against one process of
# PEER_RANKS x PEER_THREADS threads: LLVM's
# worksharing and reduction tests, then GCC's libgomp loop tests built by
# clang on libomp (docs/results/cluster.md). Both run even when the first
# fails. Fetches the sources once, as root; then 3 minutes here (5 at PEER_THREADS=2).
PEER_RANKS ?= 2
PEER_THREADS ?= 1
# Cluster mode's layout check under load: a program whose first OpenMP calls
# come before its first region, many runs with busy loops beside it
# (tests/cluster/layout_stress.sh; LAYOUT_ROUNDS x 4 runs).
LAYOUT_ROUNDS ?= 10
stress-cluster-layout: build
	tests/cluster/layout_stress.sh $(BUILD)/bin/selfsched-mpirun $(LAYOUT_ROUNDS) $(BUILD)/bin/cluster_serial_arena side_by_side

peer-tests-cluster: build
	status=0; \
	python3 tests/peer/llvm_openmp.py --source "$$(tools/fetch-llvm-source.sh $(BUILD))" \
	  --lib $(BUILD)/lib/libselfsched.so --work $(BUILD)/peer-tests --compiler clang --cluster $(PEER_RANKS) --cluster-threads $(PEER_THREADS) -j1 || status=1; \
	python3 tests/peer/libgomp.py --testsuite "$$(tools/fetch-gcc-testsuite.sh $(BUILD))" \
	  --lib $(BUILD)/lib/libselfsched.so --work $(BUILD)/peer-tests/libgomp-cluster --cluster $(PEER_RANKS) --cluster-threads $(PEER_THREADS) -j1 || status=1; \
	exit $$status

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD)
