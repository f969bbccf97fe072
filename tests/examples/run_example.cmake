# Runs one example program as a user would and checks what it reports.
#
#   cmake -DEXPECT_EXIT=0 -DEXPECT_LINE=regex [-DEXPECT_STDERR=text] [-DEXPECT_PNG=file]
#         [-DSLOWER_THREAD=1 -DSLOWER_AT_LEAST=2 -DSLOWER_AT_MOST=3.5] -P run_example.cmake -- PROGRAM ARGS...
#
# EXPECT_LINE: a regex the result line (stdout) must match, e.g. "ok=1".
# EXPECT_STDERR: text stderr must contain. EXPECT_PNG: a file that must be a PNG.
# SLOWER_THREAD / SLOWER_AT_LEAST / SLOWER_AT_MOST: that thread's busy time
# must be at least (at most) that many times thread 0's, factors with at most
# one decimal (checks SELFSCHED_EXAMPLE_SLOWDOWN end to end;
# a ratio inside one run, never an absolute time).
# The environment (OMP_NUM_THREADS, OMP_SCHEDULE, ...) comes from the test.
include(${CMAKE_CURRENT_LIST_DIR}/../command_after_dashes.cmake)
command_after_dashes(command)
if(NOT DEFINED EXPECT_EXIT)
  set(EXPECT_EXIT 0)
endif()

execute_process(COMMAND ${command} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc
                OUTPUT_STRIP_TRAILING_WHITESPACE)
set(what "${command}\n  exit ${rc}\n  stdout: ${out}\n  stderr: ${err}")
message(STATUS "${out}")

if(NOT rc STREQUAL EXPECT_EXIT)
  message(FATAL_ERROR "expected exit ${EXPECT_EXIT}: ${what}")
endif()
if(DEFINED EXPECT_LINE AND NOT out MATCHES "${EXPECT_LINE}")
  message(FATAL_ERROR "stdout does not match '${EXPECT_LINE}': ${what}")
endif()
if(DEFINED EXPECT_STDERR)
  string(FIND "${err}" "${EXPECT_STDERR}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "stderr lacks '${EXPECT_STDERR}': ${what}")
  endif()
endif()
if(DEFINED EXPECT_PNG)
  file(READ "${EXPECT_PNG}" signature LIMIT 8 HEX)
  if(NOT signature STREQUAL "89504e470d0a1a0a")
    message(FATAL_ERROR "${EXPECT_PNG} is not a PNG (starts with ${signature}): ${what}")
  endif()
endif()
if(DEFINED SLOWER_THREAD)
  # busy_s=0.001234,0.004321,...: fixed 6 decimals, so without the dot these are
  # microseconds (math(EXPR) reads leading zeros as decimal).
  if(NOT out MATCHES "busy_s=([0-9.,]+)")
    message(FATAL_ERROR "no busy_s field: ${what}")
  endif()
  string(REPLACE "." "" busy "${CMAKE_MATCH_1}")
  string(REPLACE "," ";" busy "${busy}")
  list(GET busy 0 base)
  list(GET busy ${SLOWER_THREAD} slow)
  # Factors in tenths (1.5 -> 15), as math(EXPR) knows integers only.
  math(EXPR slow_tenths "${slow} * 10")
  foreach(side LEAST MOST)
    set(factor "${SLOWER_AT_${side}}")
    if(factor STREQUAL "")
      continue()
    endif()
    if(NOT factor MATCHES "^([0-9]+)(\\.([0-9]))?$")
      message(FATAL_ERROR "SLOWER_AT_${side} '${factor}' is not a factor with at most one decimal")
    endif()
    if(CMAKE_MATCH_3 STREQUAL "")
      set(CMAKE_MATCH_3 0)
    endif()
    math(EXPR limit "${base} * ${CMAKE_MATCH_1}${CMAKE_MATCH_3}")
    if(side MATCHES "LEAST" AND slow_tenths LESS limit)
      message(FATAL_ERROR "thread ${SLOWER_THREAD} is not ${factor} times as busy as thread 0: ${what}")
    elseif(side MATCHES "MOST" AND slow_tenths GREATER limit)
      message(FATAL_ERROR "thread ${SLOWER_THREAD} is more than ${factor} times as busy as thread 0: ${what}")
    endif()
  endforeach()
endif()
