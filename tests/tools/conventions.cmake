# Every tool follows the conventions of the command line: --help on stdout
# with status 0, --version, a bad option on stderr with status 2 (mpirun's
# own for selfsched-mpirun, which passes it on), and
# selfsched-run takes the program without "--" as env, nice and taskset do.
#
#   cmake -DBIN=dir -DPROGRAM=omp_plain_program -DVERSION=x.y.z -P conventions.cmake
foreach(tool selfsched-run selfsched-mpirun selfsched-chunks selfsched-report selfsched-calibrate selfsched-sim selfsched-cluster-agent)
  if(NOT EXISTS ${BIN}/${tool})
    continue()  # selfsched-mpirun without MPI, selfsched-sim without SimGrid
  endif()
  execute_process(COMMAND ${BIN}/${tool} --help OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "^usage: ${tool} " OR NOT err STREQUAL "")
    message(FATAL_ERROR "${tool} --help: expected the usage on stdout and status 0, got ${rc}:\n${out}\n${err}")
  endif()
  execute_process(COMMAND ${BIN}/${tool} --version OUTPUT_VARIABLE out RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR NOT out STREQUAL "${tool} ${VERSION}\n")
    message(FATAL_ERROR "${tool} --version: expected '${tool} ${VERSION}', got ${rc}: ${out}")
  endif()
  # selfsched-mpirun hands options it does not know to mpirun, which refuses them.
  set(status 2)
  if(tool STREQUAL "selfsched-mpirun")
    set(status 1)
  endif()
  execute_process(COMMAND ${BIN}/${tool} --bogus-option OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL status OR NOT err MATCHES "--bogus-option" OR NOT out STREQUAL "")
    message(FATAL_ERROR "${tool} --bogus-option: expected a message on stderr and status 2, got ${rc}:\n${out}\n${err}")
  endif()
endforeach()

foreach(separator "" "--")
  execute_process(COMMAND ${BIN}/selfsched-run --schedule fss ${separator} ${PROGRAM} 2000
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "wrong=0")
    message(FATAL_ERROR "selfsched-run --schedule fss ${separator} PROGRAM: exit ${rc}\n${out}\n${err}")
  endif()
endforeach()

# A bad technique name stops the launchers before the program runs: named,
# with the valid ones, status 2; a modifier and blanks are no bad name.
foreach(option selfsched-run:--schedule selfsched-mpirun:--schedule selfsched-mpirun:--rank-schedule)
  string(REPLACE ":" ";" option "${option}")
  list(GET option 0 tool)
  list(GET option 1 name)
  if(NOT EXISTS ${BIN}/${tool})
    continue()
  endif()
  execute_process(COMMAND ${BIN}/${tool} ${name} fsss ${PROGRAM} 2000
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 2 OR NOT out STREQUAL "" OR NOT err MATCHES "${name} 'fsss': unknown technique 'fsss'; valid: ")
    message(FATAL_ERROR "${tool} ${name} fsss: expected status 2 and the valid names, got ${rc}:\n${out}\n${err}")
  endif()
endforeach()
if(EXISTS ${BIN}/selfsched-mpirun)  # our name for the threads in SELFSCHED_SCHEDULE, as selfsched-run does
  execute_process(COMMAND ${BIN}/selfsched-mpirun --dry-run --schedule " AF" -np 2 ${PROGRAM}
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "-x SELFSCHED_SCHEDULE" OR out MATCHES "-x OMP_SCHEDULE")
    message(FATAL_ERROR "selfsched-mpirun --dry-run --schedule ' AF': ${rc}\n${out}\n${err}")
  endif()
endif()
execute_process(COMMAND ${BIN}/selfsched-run --schedule "NONMONOTONIC: W-GSS , 4" ${PROGRAM} 2000
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT out MATCHES "wrong=0")
  message(FATAL_ERROR "selfsched-run --schedule 'NONMONOTONIC: W-GSS , 4': exit ${rc}\n${out}\n${err}")
endif()

# --forwarded: the loops left to the runtime in the profile too.
set(forwarded ${WORK}/conventions_forwarded.json)
file(REMOVE ${forwarded})
execute_process(COMMAND ${BIN}/selfsched-run --schedule dynamic,4 --profile ${forwarded} --forwarded ${PROGRAM} 2000
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT EXISTS ${forwarded})
  message(FATAL_ERROR "selfsched-run --forwarded: exit ${rc}\n${out}\n${err}")
endif()
file(READ ${forwarded} profile)
if(NOT profile MATCHES "\"technique\": \"libomp dynamic,4\"")
  message(FATAL_ERROR "selfsched-run --forwarded: no loop left to libomp in the profile:\n${profile}")
endif()
