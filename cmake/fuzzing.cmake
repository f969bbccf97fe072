# SELFSCHED_FUZZ: build the fuzz targets of tests/fuzz/ as libFuzzer
# fuzzers (make fuzz, its own build directory). Every target is compiled
# with coverage for the fuzzer and with ASan + UBSan, so that a memory error
# or undefined behaviour found by an input stops the run with that input.
option(SELFSCHED_FUZZ "Build the libFuzzer fuzzers of tests/fuzz (clang only)" OFF)
if(NOT SELFSCHED_FUZZ)
  return()
endif()
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "SELFSCHED_FUZZ needs clang (libFuzzer)")
endif()
if(SELFSCHED_SANITIZE)
  message(FATAL_ERROR "SELFSCHED_FUZZ brings its own sanitizers; leave SELFSCHED_SANITIZE empty")
endif()
add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
  -fsanitize-ignorelist=${PROJECT_SOURCE_DIR}/tools/sanitizers/ubsan.ignorelist -fno-omit-frame-pointer)
add_link_options(-fsanitize=address,undefined)
message(STATUS "selfsched: fuzzers (libFuzzer, ASan, UBSan)")
