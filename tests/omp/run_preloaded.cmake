# run_preloaded(OUT ERR [VAR=value ...] command args...): runs the command
# with LD_PRELOAD=${LIB} and the variables given; a non-zero exit fails the
# test with both outputs. Included by the preload tests of this folder.
function(run_preloaded out_var err_var)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env LD_PRELOAD=${LIB} ${ARGN}
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${ARGN}: exit ${rc}\n${out}\n${err}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
  set(${err_var} "${err}" PARENT_SCOPE)
endfunction()
