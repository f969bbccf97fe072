# auto through the drop-in path: OMP_SCHEDULE=auto and schedule(auto) are
# selfsched's, the loops of one function built without -g are told apart,
# SELFSCHED_AUTO=libomp gives auto back to libomp, a bad value is named.
include(${CMAKE_CURRENT_LIST_DIR}/run_preloaded.cmake)
set(profile ${WORK}/auto_profile.json)

# The number of loop sites with technique `auto` in the profile.
function(auto_sites out_var)
  if(NOT EXISTS ${profile})
    set(${out_var} 0 PARENT_SCOPE)
    return()
  endif()
  file(READ ${profile} text)
  string(JSON count LENGTH "${text}" sites)
  set(found 0)
  if(count GREATER 0)
    math(EXPR last "${count} - 1")
    foreach(s RANGE ${last})
      string(JSON technique GET "${text}" sites ${s} loops 0 technique)
      string(JSON instances GET "${text}" sites ${s} instances)
      if(technique STREQUAL "auto" AND instances EQUAL 3)
        math(EXPR found "${found} + 1")
      endif()
    endforeach()
  endif()
  set(${out_var} ${found} PARENT_SCOPE)
endfunction()

# OMP_SCHEDULE=auto: all three loops, three sites, three instances each.
file(REMOVE ${profile})
run_preloaded(out err OMP_NUM_THREADS=2 OMP_SCHEDULE=auto SELFSCHED_VERBOSE=true SELFSCHED_PROFILE=${profile}
  ${PROGRAM} 30000 3)
auto_sites(sites)
string(REGEX MATCHALL "served by auto" served "${err}")
list(LENGTH served announced)
if(NOT sites EQUAL 3 OR NOT announced EQUAL 3 OR err MATCHES "OMP: Warning")
  message(FATAL_ERROR "OMP_SCHEDULE=auto: expected 3 auto sites of 3 instances and 3 announcements, "
    "got ${sites} and ${announced}\n${out}\n${err}")
endif()

# No OMP_SCHEDULE: only the loop written schedule(auto) is selfsched's.
file(REMOVE ${profile})
run_preloaded(out err OMP_NUM_THREADS=2 OMP_SCHEDULE= SELFSCHED_SCHEDULE= SELFSCHED_PROFILE=${profile} ${PROGRAM} 30000 3)
auto_sites(sites)
if(NOT sites EQUAL 1 OR NOT err STREQUAL "")
  message(FATAL_ERROR "schedule(auto) alone: expected 1 auto site, got ${sites}\n${out}\n${err}")
endif()

# SELFSCHED_AUTO=libomp: auto is libomp's again, OMP_SCHEDULE untouched (kind 4, omp_sched_auto).
file(REMOVE ${profile})
run_preloaded(out err OMP_NUM_THREADS=2 OMP_SCHEDULE=auto SELFSCHED_AUTO=libomp SELFSCHED_PROFILE=${profile}
  ${PROGRAM} 30000 3)
auto_sites(sites)
if(NOT sites EQUAL 0 OR NOT out MATCHES "omp_get_schedule=4" OR NOT err STREQUAL "")
  message(FATAL_ERROR "SELFSCHED_AUTO=libomp: expected libomp's auto everywhere, got ${sites} sites\n${out}\n${err}")
endif()

# A bad value: named, with the choices, and selfsched's auto stays.
run_preloaded(out err OMP_NUM_THREADS=2 OMP_SCHEDULE=auto SELFSCHED_AUTO=gnu ${PROGRAM} 3000 1)
if(NOT err MATCHES "SELFSCHED_AUTO='gnu' is invalid \\(valid: selfsched, libomp\\)")
  message(FATAL_ERROR "SELFSCHED_AUTO=gnu must be named with the choices: ${err}")
endif()
