# expect_refused(EXPECTED COMMAND...): the command must exit 2 and say
# EXPECTED on stderr (one message naming the bad value and the choices).
# Included by the command-line tests of the Python tools.
function(expect_refused expected)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(JOIN " " command ${ARGN})
  if(NOT rc EQUAL 2)
    message(FATAL_ERROR "${command}: exit ${rc}, expected 2\n${out}${err}")
  endif()
  string(FIND "${err}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${command}: the message does not say '${expected}':\n${err}")
  endif()
endfunction()
