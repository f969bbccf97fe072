# The Fortran example (gfortran, libgomp) with libselfsched preloaded:
# served by SCHEDULE (SELFSCHED_VERBOSE says so) and equal to serial (ok=1).
include(${CMAKE_CURRENT_LIST_DIR}/../omp/run_preloaded.cmake)
run_preloaded(out err SELFSCHED_SCHEDULE=${SCHEDULE} SELFSCHED_VERBOSE=1 ${PROGRAM} 200 150 300)
if(NOT out MATCHES "app=mandelbrot-fortran .* ok=1" OR NOT err MATCHES "\\(n=150, 2 threads\\) served by ${SCHEDULE}")
  message(FATAL_ERROR "mandelbrot_fortran under ${SCHEDULE}:\n${out}\n${err}")
endif()
