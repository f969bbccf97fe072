# The peer-suite runners (tests/peer/llvm_openmp.py, libgomp.py) refuse bad
# input with exit 2 and one message naming the value and the choices (their
# runs need LLVM's and GCC's test sources, which make test does not fetch).
#   cmake -DPYTHON=python3 -DPEER=tests/peer -DLIB=libselfsched.so -DWORK=dir -P peer_cli.cmake
function(expect_refused script expected)
  execute_process(COMMAND "${PYTHON}" "${PEER}/${script}" --lib "${LIB}" --work "${WORK}" ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 2)
    message(FATAL_ERROR "${script} ${ARGN}: exit ${rc}, expected 2\n${out}${err}")
  endif()
  string(FIND "${err}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${script} ${ARGN}: the message does not say '${expected}':\n${err}")
  endif()
endfunction()

# A stand-in source tree with one suite of each, enough for the checks.
file(MAKE_DIRECTORY "${WORK}/openmp/runtime/test/worksharing" "${WORK}/testsuite/libgomp.c")
file(WRITE "${WORK}/openmp/runtime/test/lit.cfg" "")

expect_refused(llvm_openmp.py "no LLVM's openmp/runtime/test" --source "${WORK}/nothing")
expect_refused(llvm_openmp.py "no suite 'parallell'" --source "${WORK}/openmp" --suites parallell)
expect_refused(llvm_openmp.py "valid: worksharing" --source "${WORK}/openmp" --suites parallell)
expect_refused(libgomp.py "no libgomp testsuite" --testsuite "${WORK}/nothing")
expect_refused(libgomp.py "unknown suite 'libgomp.f'; valid: libgomp.c," --testsuite "${WORK}/testsuite"
               --suites libgomp.f)
expect_refused(libgomp.py "no Fortran compiler 'no-such-fortran' on PATH; valid: gfortran, flang-new-19"
               --testsuite "${WORK}/testsuite" --fortran no-such-fortran)
