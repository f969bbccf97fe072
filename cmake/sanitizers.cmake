# SELFSCHED_SANITIZE: build the library, tools, examples and tests with
# clang's sanitizers and run the suite under them (`make sanitize`).
#
#   -DSELFSCHED_SANITIZE="address;undefined"   ASan + UBSan (+ LeakSanitizer)
#   -DSELFSCHED_SANITIZE=thread                TSan, OpenMP through Archer
#
# Everything about the sanitizers is here: flags, runtime options,
# suppressions (tools/sanitizers/), and the environment the tests run in.
set(SELFSCHED_SANITIZE "" CACHE STRING "Sanitizers for every target: \"address;undefined\" or \"thread\" (empty: none)")

# selfsched_sanitize_mpi_tests([TEST...]): for tests that run Open MPI ranks
# (the given ones, else every test of the calling directory: tests/mpi/).
# Open MPI leaks at exit, from its libraries and from components it has
# already unloaded, all built without frame pointers: only the slow unwinder
# sees past their frames to a library lsan.supp can name. It doubles the
# time of the thread tests, so only MPI tests get it.
# Why an MPI test takes 15-50 s here under ASan (2-9 s in a plain build):
# no wait of ours. LeakSanitizer's check at exit sorts each rank's ~3,350
# Open MPI allocations against lsan.supp: 3,200 opens and 12,000 reads
# (of /proc/self/maps, by the kernel's profile) and ~225 llvm-symbolizer
# queries per rank, against 440 and 320 without the check (`perf trace -s`
# on mpi_task_pool --strategy central, one rank). On 2 cores at a load
# average of 8-12 that check took 4.7-8.4 s of a 2-rank run whose result
# came at 3.3-5.1 s (0.8 s without it); the rest is the load.
function(selfsched_sanitize_mpi_tests)
  if("address" IN_LIST SELFSCHED_SANITIZE)
    set(tests ${ARGN})
    if(NOT tests)
      get_property(tests DIRECTORY PROPERTY TESTS)
    endif()
    set_property(TEST ${tests} APPEND PROPERTY ENVIRONMENT_MODIFICATION "ASAN_OPTIONS=string_append::fast_unwind_on_malloc=0")
  endif()
endfunction()

# selfsched_sanitize_timeouts(): every test of the calling directory gets
# SELFSCHED_SANITIZE_TIMEOUT_FACTOR times its TIMEOUT (deferred to the
# directory's end, so that it sees every test). The timeouts are set for plain
# builds and catch hangs: under ASan (the MPI tests with the slow unwinder
# besides) a run takes two to five times as long, and mpi.coverage.master
# (25 s of CPU) or install.find_package_and_pkg_config then ran past them on a
# busy 2-core machine while passing. What each test checks is unchanged.
set(SELFSCHED_SANITIZE_TIMEOUT_FACTOR 3 CACHE STRING "Factor on every test's TIMEOUT in a sanitizer build")
function(selfsched_sanitize_timeouts)
  if(NOT SELFSCHED_SANITIZE)
    return()
  endif()
  get_property(tests DIRECTORY PROPERTY TESTS)
  foreach(test IN LISTS tests)
    get_test_property(${test} TIMEOUT timeout)
    if(timeout)
      math(EXPR timeout "${timeout} * ${SELFSCHED_SANITIZE_TIMEOUT_FACTOR}")
      set_tests_properties(${test} PROPERTIES TIMEOUT ${timeout})
    endif()
  endforeach()
endfunction()

if(NOT SELFSCHED_SANITIZE)
  return()
endif()

foreach(sanitizer IN LISTS SELFSCHED_SANITIZE)
  if(NOT sanitizer MATCHES "^(address|undefined|thread)$")
    message(FATAL_ERROR "SELFSCHED_SANITIZE='${SELFSCHED_SANITIZE}': '${sanitizer}' is not one of address, undefined, thread")
  endif()
endforeach()
if("thread" IN_LIST SELFSCHED_SANITIZE AND "address" IN_LIST SELFSCHED_SANITIZE)
  message(FATAL_ERROR "SELFSCHED_SANITIZE: thread and address cannot share a build")
endif()
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "SELFSCHED_SANITIZE needs clang (the shared sanitizer runtimes, Archer)")
endif()

# The runtime every instrumented binary shares (ASan's includes UBSan's).
if("address" IN_LIST SELFSCHED_SANITIZE)
  set(runtime_name libclang_rt.asan-x86_64.so)
elseif("thread" IN_LIST SELFSCHED_SANITIZE)
  set(runtime_name libclang_rt.tsan-x86_64.so)
else()
  set(runtime_name libclang_rt.ubsan_standalone-x86_64.so)
endif()
# compiler_file(VAR name): the file clang links for that name, or a fatal error.
function(compiler_file var name package)
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=${name} OUTPUT_VARIABLE path OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT IS_ABSOLUTE "${path}" OR NOT EXISTS "${path}")
    message(FATAL_ERROR "SELFSCHED_SANITIZE: ${CMAKE_CXX_COMPILER} has no ${name} (Debian: ${package})")
  endif()
  get_filename_component(path ${path} REALPATH)
  set(${var} ${path} PARENT_SCOPE)
endfunction()
compiler_file(SELFSCHED_SANITIZER_RUNTIME ${runtime_name} libclang-rt-19-dev)
get_filename_component(runtime_dir ${SELFSCHED_SANITIZER_RUNTIME} DIRECTORY)

list(JOIN SELFSCHED_SANITIZE "," sanitizers)
set(SELFSCHED_SANITIZER_FLAGS -fsanitize=${sanitizers} -fno-omit-frame-pointer)
if("undefined" IN_LIST SELFSCHED_SANITIZE)
  # A UBSan finding stops the program, so the test that made it fails.
  list(APPEND SELFSCHED_SANITIZER_FLAGS -fno-sanitize-recover=undefined
    -fsanitize-ignorelist=${PROJECT_SOURCE_DIR}/tools/sanitizers/ubsan.ignorelist)
endif()
# The shared runtime, not clang's default static one: libselfsched is also
# preloaded into programs that are not instrumented (a shell in
# tests/omp/schedule_handoff.cmake) and those start instrumented ones; only
# one runtime copy per process works, so every binary uses the same .so,
# found through the runpath.
list(APPEND SELFSCHED_SANITIZER_FLAGS -shared-libsan)
set(SELFSCHED_SANITIZER_LINK_FLAGS -Wl,-rpath,${runtime_dir})
add_compile_options(${SELFSCHED_SANITIZER_FLAGS})
add_link_options(${SELFSCHED_SANITIZER_FLAGS} ${SELFSCHED_SANITIZER_LINK_FLAGS})
message(STATUS "selfsched: sanitizers ${sanitizers} (runtime ${SELFSCHED_SANITIZER_RUNTIME})")

# The environment of every test: ctest reads this file (TEST_INCLUDE_FILES)
# before it starts any test, and each test and each process it starts
# inherits ctest's environment.
set(suppressions ${PROJECT_SOURCE_DIR}/tools/sanitizers)
# Reports name functions and lines: Debian's clang-19 comes without an
# llvm-symbolizer of its own, any version reads its DWARF.
find_program(SELFSCHED_SYMBOLIZER NAMES llvm-symbolizer-19 llvm-symbolizer)
set(common "")
if(SELFSCHED_SYMBOLIZER)
  set(common ":external_symbolizer_path=${SELFSCHED_SYMBOLIZER}")
endif()
set(environment "")
if("address" IN_LIST SELFSCHED_SANITIZE)
  # verify_asan_link_order=0: a test that preloads libselfsched into an
  # instrumented program puts it ahead of the runtime, which the program
  # itself loads before libc (its first DT_NEEDED); that order is correct, the
  # check only wants the runtime first of all. Uninstrumented hosts get the
  # runtime preloaded first (tests/omp/run_preloaded.cmake).
  string(APPEND environment "set(ENV{ASAN_OPTIONS} \"verify_asan_link_order=0:check_initialization_order=1:detect_leaks=1${common}\")\n")
  string(APPEND environment "set(ENV{LSAN_OPTIONS} \"suppressions=${suppressions}/lsan.supp:print_suppressions=0\")\n")
endif()
if("undefined" IN_LIST SELFSCHED_SANITIZE)
  string(APPEND environment "set(ENV{UBSAN_OPTIONS} \"print_stacktrace=1:halt_on_error=1${common}\")\n")
endif()
if("thread" IN_LIST SELFSCHED_SANITIZE)
  # libomp is not instrumented: Archer (an OMPT tool, started by selfsched's
  # tool through ompt-multiplex.h) tells TSan about its synchronization.
  compiler_file(archer libarcher.so libomp-19-dev)
  string(APPEND environment "set(ENV{TSAN_OPTIONS} \"ignore_noninstrumented_modules=1:halt_on_error=1:suppressions=${suppressions}/tsan.supp${common}\")\n")
  string(APPEND environment "set(ENV{OMP_TOOL_LIBRARIES} \"${archer}\")\n")
endif()
# For the tests that preload libselfsched (tests/omp/run_preloaded.cmake).
string(APPEND environment "set(ENV{SANITIZER_RUNTIME} \"${SELFSCHED_SANITIZER_RUNTIME}\")\n")
file(WRITE ${PROJECT_BINARY_DIR}/sanitizer_environment.cmake "${environment}")
set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY TEST_INCLUDE_FILES ${PROJECT_BINARY_DIR}/sanitizer_environment.cmake)
