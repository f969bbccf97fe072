# On the patched libomp, with libselfsched preloaded into a program that
# knows nothing of it: OMP_SCHEDULE names a selfsched technique (with a chunk
# and a modifier, and a mechanism's text) that libomp itself accepts, shows
# in OMP_DISPLAY_ENV, reports through omp_get_schedule and runs through
# the registered hooks; SELFSCHED_HOOKS=off interposes as on a stock libomp.
#
#   cmake -DLIB=patched/lib -DPROGRAM=omp_plain_program -DSELFSCHED=libselfsched.so -P registered.cmake
if(NOT EXISTS "${LIB}/libomp.so.5")
  message("skipped: no patched libomp in ${LIB} (tools/build-libomp-patched.sh says why)")
  return()
endif()

function(run_case schedule hooks)  # ARGN: more of the environment
  execute_process(COMMAND ${CMAKE_COMMAND} -E env ${ARGN} LD_LIBRARY_PATH=${LIB} LD_PRELOAD=${SELFSCHED}
                    OMP_SCHEDULE=${schedule} OMP_DISPLAY_ENV=true OMP_NUM_THREADS=2 SELFSCHED_VERBOSE=1
                    SELFSCHED_HOOKS=${hooks} SELFSCHED_SCHEDULE= ${PROGRAM} 20000
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  set(what "OMP_SCHEDULE=${schedule} SELFSCHED_HOOKS=${hooks}\n  exit ${rc}\n  stdout: ${out}\n  stderr: ${err}")
  if(NOT rc EQUAL 0 OR NOT out MATCHES "sum_ok=1 wrong=0")
    message(FATAL_ERROR "the program failed: ${what}")
  endif()
  # The technique as written, without its chunk, is what served the loop.
  string(REGEX MATCH "^(nonmonotonic:)?([^,]*)" technique "${schedule}")
  set(technique "${CMAKE_MATCH_2}")
  if(NOT err MATCHES "served by ${technique}")
    message(FATAL_ERROR "no loop served by ${technique}: ${what}")
  endif()
  if(err MATCHES "Warning|Relink")
    message(FATAL_ERROR "libomp or the loader warned: ${what}")
  endif()
  if(hooks STREQUAL "auto")
    if(NOT err MATCHES "libomp takes registered loop schedules")
      message(FATAL_ERROR "the hooks were not used: ${what}")
    endif()
    if(NOT err MATCHES "OMP_SCHEDULE='${schedule}'")
      message(FATAL_ERROR "OMP_DISPLAY_ENV does not show OMP_SCHEDULE='${schedule}': ${what}")
    endif()
    # libomp's own kind for a registered schedule (>= 256), and the chunk.
    if(NOT out MATCHES "omp_get_schedule=(2[5-9][0-9]|[3-9][0-9][0-9]),([0-9]+)")
      message(FATAL_ERROR "omp_get_schedule does not report a registered schedule: ${what}")
    endif()
  else()
    if(NOT err MATCHES "interposed entry points \\(SELFSCHED_HOOKS=off\\)")
      message(FATAL_ERROR "SELFSCHED_HOOKS=off did not interpose: ${what}")
    endif()
    if(NOT err MATCHES "OMP_SCHEDULE='dynamic'")
      message(FATAL_ERROR "interposed, OMP_SCHEDULE should reach libomp as dynamic: ${what}")
    endif()
  endif()
  message(STATUS "ok: OMP_SCHEDULE=${schedule} SELFSCHED_HOOKS=${hooks}")
endfunction()

run_case("fss,3" auto)
run_case("gss,2" auto LD_BIND_NOW=1)
run_case("nonmonotonic:af" auto)
run_case("w-fss-80,4" auto)
run_case("fss,3" off)
