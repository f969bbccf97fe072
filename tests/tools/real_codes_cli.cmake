# benchmarks/real_codes/gapbs.py refuses bad input with exit 2 and one
# message naming the value and the choices (its measurements need a GAPBS
# checkout, which the tests do not have).
#   cmake -DPYTHON=python3 -DSCRIPT=gapbs.py -DBUILD=build -DWORK=dir -P real_codes_cli.cmake
function(expect_refused expected)
  execute_process(COMMAND "${PYTHON}" "${SCRIPT}" --build "${BUILD}" --work "${WORK}" ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 2)
    message(FATAL_ERROR "gapbs.py ${ARGN}: exit ${rc}, expected 2\n${out}${err}")
  endif()
  string(FIND "${err}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "gapbs.py ${ARGN}: the message does not say '${expected}':\n${err}")
  endif()
endfunction()

expect_refused("no src/bfs.cc there" --gapbs "${WORK}/no-such-checkout")
expect_refused("unknown bfz; choose from bfs, pr, cc, bc, sssp, tc" --gapbs "${WORK}" --kernels bfz)
expect_refused("--pairs 0: at least 1" --gapbs "${WORK}" --pairs 0)
expect_refused("no such library" --gapbs "${WORK}" --lib "${WORK}/libnothing.so")
