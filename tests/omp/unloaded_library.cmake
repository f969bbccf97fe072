# A preloaded libselfsched in a program that opens and closes a library of
# OpenMP loops (dlopen, dlclose): every iteration runs once, and at exit the
# profile still names the loop, though its module is gone.
#
#   cmake -DLIB=libselfsched.so -DPROGRAM=omp_unloading_program
#         -DLIBRARY=libomp_loop_library.so -DWORK=dir -P unloaded_library.cmake
include(${CMAKE_CURRENT_LIST_DIR}/run_preloaded.cmake)

foreach(technique fss af auto)
  set(profile ${WORK}/unloaded_library_${technique}.json)
  file(REMOVE ${profile})
  run_preloaded(out err OMP_NUM_THREADS=2 OMP_SCHEDULE=${technique} SELFSCHED_AUTO_CACHE=off
                SELFSCHED_PROFILE=${profile} ${PROGRAM} ${LIBRARY})
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
endforeach()
