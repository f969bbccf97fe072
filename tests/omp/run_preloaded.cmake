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
  # run_preloaded_directory, when the caller sets it: where the program runs
  # (not `cmake -E chdir` under the preload: a sanitizer's runtime preloaded
  # into cmake itself can hang it).
  set(where "")
  if(run_preloaded_directory)
    set(where WORKING_DIRECTORY ${run_preloaded_directory})
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -E env LD_PRELOAD=${preload} ${ARGN} ${where}
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${ARGN}: exit ${rc}\n${out}\n${err}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
  set(${err_var} "${err}" PARENT_SCOPE)
endfunction()

# expect_served(WHAT FILE TECHNIQUE): the profile FILE was written and its
# first loop was served by TECHNIQUE.
function(expect_served what file technique)
  if(NOT EXISTS ${file})
    message(FATAL_ERROR "${what}: no profile written (${file})")
  endif()
  file(READ ${file} json)
  string(JSON served ERROR_VARIABLE error GET "${json}" sites 0 loops 0 technique)
  if(error OR NOT served STREQUAL technique)
    message(FATAL_ERROR "${what}: the profile's first loop was served by '${served}', not ${technique}:\n${json}")
  endif()
endfunction()

# expect_forwarded_profile(WHAT FILE TECHNIQUE THREADS): the profile FILE,
# written with SELFSCHED_PROFILE_FORWARDED=1, has a loop left to the runtime
# under TECHNIQUE ("libomp dynamic,4"), with a makespan and a row for each
# of its THREADS threads, each thread's time in it no longer than the makespan.
function(expect_forwarded_profile what file technique threads)
  file(READ ${file} profile)
  string(JSON sites LENGTH "${profile}" sites)
  set(found FALSE)
  if(sites GREATER 0)
    math(EXPR last_site "${sites} - 1")
    foreach(s RANGE ${last_site})
      string(JSON loops LENGTH "${profile}" sites ${s} loops)
      math(EXPR last_loop "${loops} - 1")
      foreach(l RANGE ${last_loop})
        string(JSON name GET "${profile}" sites ${s} loops ${l} technique)
        if(NOT name STREQUAL technique)
          continue()
        endif()
        set(found TRUE)
        string(JSON makespan GET "${profile}" sites ${s} loops ${l} makespan_s)
        string(JSON rows LENGTH "${profile}" sites ${s} loops ${l} threads)
        if(NOT rows EQUAL threads OR NOT makespan GREATER 0)
          message(FATAL_ERROR "${what}: '${technique}' has ${rows} thread rows (expected ${threads}) and makespan ${makespan}")
        endif()
        math(EXPR last_row "${rows} - 1")
        foreach(t RANGE ${last_row})
          string(JSON busy GET "${profile}" sites ${s} loops ${l} threads ${t} busy_s)
          if(busy GREATER makespan OR NOT busy GREATER 0)
            message(FATAL_ERROR "${what}: thread row ${t} of '${technique}' spent ${busy} s in a loop of ${makespan} s")
          endif()
        endforeach()
      endforeach()
    endforeach()
  endif()
  if(NOT found)
    message(FATAL_ERROR "${what}: no loop '${technique}' in the profile:\n${profile}")
  endif()
endfunction()
