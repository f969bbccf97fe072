# The peer-suite runners (tests/peer/llvm_openmp.py, libgomp.py) refuse bad
# input with exit 2 and one message naming the value and the choices (their
# runs need LLVM's and GCC's test sources, which make test does not fetch).
#   cmake -DPYTHON=python3 -DPEER=tests/peer -DLIB=libselfsched.so -DWORK=dir -P peer_cli.cmake
include(${CMAKE_CURRENT_LIST_DIR}/expect_refused.cmake)
set(llvm "${PYTHON}" "${PEER}/llvm_openmp.py" --lib "${LIB}" --work "${WORK}")
set(gcc "${PYTHON}" "${PEER}/libgomp.py" --lib "${LIB}" --work "${WORK}")

# A stand-in source tree with one suite of each, enough for the checks.
file(MAKE_DIRECTORY "${WORK}/openmp/runtime/test/worksharing" "${WORK}/testsuite/libgomp.c")
file(WRITE "${WORK}/openmp/runtime/test/lit.cfg" "")

expect_refused("no LLVM's openmp/runtime/test" ${llvm} --source "${WORK}/nothing")
expect_refused("no suite 'parallell'" ${llvm} --source "${WORK}/openmp" --suites parallell)
expect_refused("valid: worksharing" ${llvm} --source "${WORK}/openmp" --suites parallell)
expect_refused("no libgomp testsuite" ${gcc} --testsuite "${WORK}/nothing")
expect_refused("unknown suite 'libgomp.f'; valid: libgomp.c," ${gcc} --testsuite "${WORK}/testsuite" --suites libgomp.f)
expect_refused("no Fortran compiler 'no-such-fortran' on PATH; valid: gfortran, flang-new-19"
               ${gcc} --testsuite "${WORK}/testsuite" --fortran no-such-fortran)
