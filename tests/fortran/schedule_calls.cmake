# schedule_calls.f90 (built by gfortran or flang) with libselfsched preloaded
# and SELFSCHED_SCHEDULE=fss,3: the technique is reported as selfsched's
# first kind (0x5e1f0000) with its chunk, static is the runtime's, and the
# restored kind serves the next runtime loop by fss,3. On a libomp with
# registered schedules (patches/) the kind is libomp's for fss (256 + i).
include(${CMAKE_CURRENT_LIST_DIR}/../omp/run_preloaded.cmake)
run_preloaded(out err SELFSCHED_SCHEDULE=fss,3 SELFSCHED_VERBOSE=1 OMP_NUM_THREADS=2 ${PROGRAM})
set(kind "5E1F0000")
if(err MATCHES "libomp takes registered loop schedules")
  set(kind "1[0-9A-F][0-9A-F]")
endif()
if(NOT out MATCHES "saved=(${kind}),3 static=1 restored=(${kind}),3 sum=500500"
   OR NOT CMAKE_MATCH_1 STREQUAL CMAKE_MATCH_2
   OR NOT err MATCHES "\\(n=1000, 2 threads\\) served by fss,3")
  message(FATAL_ERROR "${PROGRAM}:\n${out}\n${err}")
endif()
