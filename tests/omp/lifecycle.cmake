# A preloaded libselfsched at the edges of a program's life: every
# iteration runs once and the program ends as it would without it.
#
#   cmake -DLIB=libselfsched.so -DUNLOADING=omp_unloading_program
#         -DLIBRARY=libomp_loop_library.so -DLIFECYCLE=omp_lifecycle_program
#         -DWORK=dir -P lifecycle.cmake
include(${CMAKE_CURRENT_LIST_DIR}/run_preloaded.cmake)

foreach(technique fss af auto)
  set(common OMP_NUM_THREADS=2 OMP_SCHEDULE=${technique} SELFSCHED_AUTO_CACHE=off)

  # A library of loops opened and closed again (dlopen, dlclose): at exit
  # the profile still names the loop, though its module is gone.
  set(profile ${WORK}/unloaded_library_${technique}.json)
  file(REMOVE ${profile})
  run_preloaded(out err ${common} SELFSCHED_PROFILE=${profile} ${UNLOADING} ${LIBRARY})
  if(NOT out MATCHES "iterations not run exactly once: 0")
    message(FATAL_ERROR "${technique}: ${out}\n${err}")
  endif()
  if(NOT EXISTS ${profile})
    message(FATAL_ERROR "${technique}: no profile written at exit\n${err}")
  endif()
  file(READ ${profile} json)
  string(JSON sites LENGTH "${json}" sites)
  string(JSON site GET "${json}" sites 0 site)
  string(JSON instances GET "${json}" sites 0 instances)
  string(JSON served GET "${json}" sites 0 loops 0 technique)
  if(NOT sites EQUAL 1 OR NOT site MATCHES "loop_library" OR NOT instances EQUAL 6 OR NOT served STREQUAL technique)
    message(FATAL_ERROR "${technique}: expected one site in the loop library, 6 instances served by ${technique}; "
                        "got ${sites} site(s), '${site}', ${instances} instances, by '${served}':\n${json}")
  endif()

  # Loops in an atexit handler and a static destructor; in forked children;
  # exit() from inside a loop, with a profile to write at exit.
  run_preloaded(out err ${common} ${LIFECYCLE} exit-handlers)
  foreach(where "main" "atexit handler" "static destructor")
    if(NOT out MATCHES "${where}: 0 wrong")
      message(FATAL_ERROR "${technique}, exit handlers: no '${where}: 0 wrong' in:\n${out}\n${err}")
    endif()
  endforeach()
  # Each process's profile (%p) has its own loops: a child's 3, not the
  # parent's from before the fork; the parent's 4; the child that runs no
  # loop writes none (it would replace the parent's without %p).
  file(GLOB stale ${WORK}/fork_${technique}_*.json)
  if(stale)
    file(REMOVE ${stale})
  endif()
  run_preloaded(out err ${common} SELFSCHED_PROFILE=${WORK}/fork_${technique}_%p.json ${LIFECYCLE} fork)
  string(REGEX MATCHALL "\nchild: 0 wrong" children "${out}")  # not "parent after a child"
  list(LENGTH children child_loops)
  if(NOT child_loops EQUAL 9)
    message(FATAL_ERROR "${technique}, fork: expected 9 child loops with 0 wrong:\n${out}\n${err}")
  endif()
  file(GLOB profiles ${WORK}/fork_${technique}_*.json)
  set(instances_seen)
  foreach(p ${profiles})
    file(READ ${p} json)
    string(JSON sites LENGTH "${json}" sites)
    set(instances 0)
    if(sites GREATER 0)
      string(JSON instances GET "${json}" sites 0 instances)
    endif()
    list(APPEND instances_seen ${instances})
  endforeach()
  list(SORT instances_seen)
  if(NOT instances_seen STREQUAL "3;3;3;4")
    message(FATAL_ERROR "${technique}, fork: expected profiles of 3, 3, 3 (the children) and 4 (the parent) loop "
                        "instances, none of the child without loops; got '${instances_seen}'")
  endif()
  set(profile ${WORK}/exit_in_loop_${technique}.json)
  file(REMOVE ${profile})
  run_preloaded(out err ${common} SELFSCHED_PROFILE=${profile} ${LIFECYCLE} exit-in-loop)
  if(NOT out MATCHES "exit\\(\\) from inside the loop")
    message(FATAL_ERROR "${technique}, exit-in-loop: expected the exit:\n${out}\n${err}")
  endif()
  expect_served("${technique}, exit-in-loop" ${profile} ${technique})
endforeach()
