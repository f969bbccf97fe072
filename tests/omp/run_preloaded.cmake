# run_preloaded(OUT ERR [VAR=value ...] command args...): runs the command
# with LD_PRELOAD=${LIB} and the variables given; a non-zero exit fails the
# test with both outputs. Included by the preload tests of this folder.
#
# In a sanitizer build (SELFSCHED_SANITIZE) the sanitizer's runtime comes
# first: a program that is not instrumented (a shell) would otherwise bind
# malloc and the other intercepted functions to libc's before the runtime,
# which libselfsched needs, is even loaded.
function(run_preloaded out_var err_var)
  set(preload ${LIB})
  if(DEFINED ENV{SANITIZER_RUNTIME})
    set(preload $ENV{SANITIZER_RUNTIME}:${LIB})
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -E env LD_PRELOAD=${preload} ${ARGN}
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${ARGN}: exit ${rc}\n${out}\n${err}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
  set(${err_var} "${err}" PARENT_SCOPE)
endfunction()
