# schedule_calls.f90 (built by gfortran or flang) with libselfsched preloaded
# and SELFSCHED_SCHEDULE=fss,3: the technique is reported as selfsched's
# first kind (0x5e1f0000) with its chunk, static is the runtime's, and the
# restored kind serves the next runtime loop by fss,3.
include(${CMAKE_CURRENT_LIST_DIR}/../omp/run_preloaded.cmake)
run_preloaded(out err SELFSCHED_SCHEDULE=fss,3 SELFSCHED_VERBOSE=1 OMP_NUM_THREADS=2 ${PROGRAM})
if(NOT out MATCHES "saved=5E1F0000,3 static=1 restored=5E1F0000,3 sum=500500"
   OR NOT err MATCHES "\\(n=1000, 2 threads\\) served by fss,3")
  message(FATAL_ERROR "${PROGRAM}:\n${out}\n${err}")
endif()
