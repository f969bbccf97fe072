# A region that prints and then cannot be shared: the first run stops with
# one message naming it, and auto's cache keeps it replicated, so the next
# run gives one process's output.
#
#   cmake -DMPIRUN=... -DCACHE=file -P remembered_region.cmake -- PROGRAM ARGS...
include(${CMAKE_CURRENT_LIST_DIR}/../command_after_dashes.cmake)
command_after_dashes(command)
file(REMOVE "${CACHE}")
set(run ${CMAKE_COMMAND} -E env OMP_NUM_THREADS=1 SELFSCHED_AUTO_CACHE=${CACHE} ${MPIRUN} --cluster -np 2 ${command})
execute_process(COMMAND ${run} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(rc EQUAL 0 OR NOT err MATCHES "cannot be shared .*wrote output before .*auto's cache keeps it replicated")
  message(FATAL_ERROR "first run: expected the job stopped with one message, got exit ${rc}:\n${out}\n${err}")
endif()
string(REGEX MATCHALL "selfsched-mpirun --cluster:" said "${err}")
list(LENGTH said times)
if(NOT times EQUAL 1)
  message(FATAL_ERROR "first run: expected one message, got ${times}:\n${err}")
endif()
execute_process(COMMAND ${run} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT out MATCHES "^started\nconflict_after_output [0-9]+\nconflict_after_output: ok\n$")
  message(FATAL_ERROR "second run: expected one process's output, got exit ${rc}:\n${out}\n${err}")
endif()
