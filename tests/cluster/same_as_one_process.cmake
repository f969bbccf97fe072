# Runs a program as one process and under selfsched-mpirun --cluster, and
# checks that both exit 0 with the same standard output (and the same output
# file, when the program writes one), and what cluster mode said on stderr.
#
#   cmake -DMPIRUN=... -DLIB=libselfsched.so -DRANKS=n -DTHREADS=t [-DOUTPUT_FILE=path]
#         [-DEXPECT_STDERR=regex | -DQUIET=1] -P same_as_one_process.cmake -- PROGRAM ARGS...
#
# The one process runs ranks x threads threads with libselfsched preloaded
# and every dynamic loop its own, under auto (libomp 19's nonmonotonic
# dynamic loops get lastprivate wrong under load: the reference must be
# right). The argument
# @OUT@ is replaced by OUTPUT_FILE with a suffix per run.
# EXPECT_STDERR: a regex cluster mode's stderr must match (a conflict's one
# message). QUIET: cluster mode must say nothing.
set(command)
set(after_dashes FALSE)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE 1 ${last})
  if(after_dashes)
    list(APPEND command "${CMAKE_ARGV${i}}")
  elseif("${CMAKE_ARGV${i}}" STREQUAL "--")
    set(after_dashes TRUE)
  endif()
endforeach()

math(EXPR all_threads "${RANKS} * ${THREADS}")
string(REPLACE "@OUT@" "${OUTPUT_FILE}.one" one_command "${command}")
string(REPLACE "@OUT@" "${OUTPUT_FILE}.cluster" cluster_command "${command}")
if(DEFINED OUTPUT_FILE)
  file(REMOVE "${OUTPUT_FILE}.one" "${OUTPUT_FILE}.cluster")
endif()

execute_process(COMMAND ${CMAKE_COMMAND} -E env OMP_NUM_THREADS=${all_threads} LD_PRELOAD=${LIB}
                  OMP_SCHEDULE=auto SELFSCHED_OVERRIDE=dynamic,guided ${one_command}
                OUTPUT_VARIABLE one_out ERROR_VARIABLE one_err RESULT_VARIABLE one_rc)
if(NOT one_rc EQUAL 0)
  message(FATAL_ERROR "one process failed (exit ${one_rc}): ${one_command}\n${one_out}\n${one_err}")
endif()

execute_process(COMMAND ${CMAKE_COMMAND} -E env OMP_NUM_THREADS=${THREADS}
                  ${MPIRUN} --cluster -np ${RANKS} ${cluster_command}
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
set(what "${MPIRUN} --cluster -np ${RANKS} ${cluster_command} (OMP_NUM_THREADS=${THREADS})\n  exit ${rc}\n  stdout:\n${out}\n  stderr:\n${err}")
message(STATUS "${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cluster mode failed: ${what}")
endif()
if(NOT out STREQUAL one_out)
  message(FATAL_ERROR "cluster mode's output differs from one process's:\n${one_out}\n---\n${what}")
endif()
if(DEFINED OUTPUT_FILE)
  file(READ "${OUTPUT_FILE}.one" one_file)
  file(READ "${OUTPUT_FILE}.cluster" cluster_file)
  if(NOT one_file STREQUAL cluster_file)
    message(FATAL_ERROR "the output file differs from one process's: ${what}")
  endif()
endif()
if(DEFINED EXPECT_STDERR AND NOT err MATCHES "${EXPECT_STDERR}")
  message(FATAL_ERROR "stderr does not match '${EXPECT_STDERR}': ${what}")
endif()
if(QUIET AND err MATCHES "selfsched-mpirun --cluster:|selfsched:")
  message(FATAL_ERROR "cluster mode said something: ${what}")
endif()
