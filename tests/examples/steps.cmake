# --steps N runs the loop N times in one process: each step must run every
# iteration exactly once (ok=1) and leave the result of a single step (the
# same checksum), under the schedule given in the environment.
#
#   cmake -DLIB=libselfsched.so (or empty: libomp alone) -P steps.cmake -- PROGRAM ARGS...
include(${CMAKE_CURRENT_LIST_DIR}/../command_after_dashes.cmake)
command_after_dashes(command)
set(preload)
if(LIB)
  set(preload LD_PRELOAD=${LIB})
endif()

foreach(steps 1 3)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env ${preload} ${command} --steps ${steps}
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "ok=1$")
    message(FATAL_ERROR "--steps ${steps}: exit ${rc}\n${out}\n${err}")
  endif()
  string(REGEX MATCH "checksum=[^ ]+" sum_${steps} "${out}")
endforeach()
if(NOT out MATCHES " time_steps=3 step_s=[0-9.]+,[0-9.]+,[0-9.]+ ")
  message(FATAL_ERROR "--steps 3: expected time_steps=3 and three step times: ${out}")
endif()
if(NOT sum_1 STREQUAL sum_3)
  message(FATAL_ERROR "--steps 3 left another result than one step: ${sum_1} vs ${sum_3}")
endif()
