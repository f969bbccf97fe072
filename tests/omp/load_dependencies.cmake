# What loading libselfsched brings into a process (make bench-startup times
# it): the loader maps no libstdc++, libgcc_s, libm, hwloc or libudev for
# it (libstdc++ and libgcc are linked in unless OWN_LIBSTDCXX is off, as in
# sanitizer builds, whose shared libstdc++ needs libm itself; libm is
# opened by the library when it first computes), and hwloc is opened only
# by a process that needs the topology: none for a fixed technique, one
# for af, which reads the threads' powers. Run with -DLIB -DOBJDUMP -DOWN_LIBSTDCXX -DPROGRAM.
include(${CMAKE_CURRENT_LIST_DIR}/run_preloaded.cmake)

execute_process(COMMAND ${OBJDUMP} -p ${LIB} OUTPUT_VARIABLE dynamic RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT dynamic MATCHES "NEEDED")
  message(FATAL_ERROR "${OBJDUMP} -p ${LIB} failed (${rc}):\n${dynamic}")
endif()
set(not_at_load "libhwloc|libudev")
if(OWN_LIBSTDCXX)
  string(APPEND not_at_load "|libstdc\\+\\+|libgcc_s|libm\\.")
endif()
string(REGEX MATCHALL "NEEDED +[^\n]+" needed "${dynamic}")
foreach(entry IN LISTS needed)
  if(entry MATCHES "${not_at_load}")
    message(FATAL_ERROR "${LIB}: '${entry}': the loader would map it into every process that preloads libselfsched")
  endif()
endforeach()

# LD_DEBUG=files: the loader names every object it maps, also by dlopen.
run_preloaded(out err LD_DEBUG=files OMP_NUM_THREADS=2 OMP_SCHEDULE=fss ${PROGRAM} 1000)
if(err MATCHES "file=libhwloc")
  message(FATAL_ERROR "OMP_SCHEDULE=fss: hwloc was loaded, though nothing needed the topology:\n${err}")
endif()
if(NOT err MATCHES "file=libomp")
  message(FATAL_ERROR "LD_DEBUG=files named no libomp: the check above proves nothing:\n${err}")
endif()
run_preloaded(out err LD_DEBUG=files OMP_NUM_THREADS=2 OMP_SCHEDULE=af ${PROGRAM} 1000)
if(NOT err MATCHES "file=libhwloc[^\n]*dynamically loaded")
  message(FATAL_ERROR "OMP_SCHEDULE=af reads the powers, but hwloc was not opened:\n${err}")
endif()
