# Runs a threads example serially and its MPI version, and checks that the
# MPI run reports ok=1 and the serial run's checksum: the shared loop computed
# the same result as one thread alone.
#
#   cmake -P same_checksum.cmake -- SERIAL_PROGRAM ARGS... -- MPIRUN ARGS...
# The serial run gets OMP_NUM_THREADS=1 OMP_SCHEDULE=static.
set(serial)
set(parallel)
set(part 0)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE 1 ${last})
  set(arg "${CMAKE_ARGV${i}}")
  if(arg STREQUAL "--")
    math(EXPR part "${part} + 1")
  elseif(part EQUAL 1)
    list(APPEND serial "${arg}")
  elseif(part EQUAL 2)
    list(APPEND parallel "${arg}")
  endif()
endforeach()

execute_process(COMMAND ${CMAKE_COMMAND} -E env OMP_NUM_THREADS=1 OMP_SCHEDULE=static ${serial}
                OUTPUT_VARIABLE serial_out ERROR_VARIABLE serial_err RESULT_VARIABLE serial_rc)
if(NOT serial_rc EQUAL 0 OR NOT serial_out MATCHES "checksum=(0x[0-9a-f]+)")
  message(FATAL_ERROR "serial run failed (exit ${serial_rc}): ${serial}\n${serial_out}\n${serial_err}")
endif()
set(expected ${CMAKE_MATCH_1})

execute_process(COMMAND ${parallel} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc
                OUTPUT_STRIP_TRAILING_WHITESPACE)
message(STATUS "serial checksum ${expected}\n${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "MPI run failed (exit ${rc}): ${parallel}\n${out}\n${err}")
endif()
if(NOT out MATCHES "checksum=${expected} ok=1")
  message(FATAL_ERROR "MPI run does not report checksum=${expected} ok=1: ${parallel}\n${out}\n${err}")
endif()
