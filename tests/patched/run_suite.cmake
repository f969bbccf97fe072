# Runs part of this build's own test suite again, through ctest, with the
# patched libomp (tools/build-libomp-patched.sh) first on the library path:
# every program then runs on it, and libselfsched registers its techniques
# with it instead of interposing.
#
#   cmake -DCTEST=ctest -DBUILD=dir -DLIB=dir -DINCLUDE=regex [-DEXCLUDE=regex] -P run_suite.cmake
if(NOT EXISTS "${LIB}/libomp.so.5")
  message("skipped: no patched libomp in ${LIB}: the LLVM source package could not be fetched "
          "when this tree was built (tools/build-libomp-patched.sh says why)")
  return()
endif()
set(ENV{LD_LIBRARY_PATH} "${LIB}")
set(exclude)
if(DEFINED EXCLUDE)
  set(exclude -E "${EXCLUDE}")
endif()
execute_process(COMMAND "${CTEST}" --test-dir "${BUILD}" -R "${INCLUDE}" ${exclude} -j2 --output-on-failure
                        --timeout 600
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tests failed on the patched libomp (above)")
endif()
