# OMP_SCHEDULE naming a selfsched technique, handed from a preloaded process
# to the programs it starts (a shell script run by selfsched-run, a driver):
# the technique must survive a SELFSCHED_SCHEDULE that is set but empty (it
# used to be lost: children ran libomp's dynamic,1 without a word), and when
# SELFSCHED_SCHEDULE wins over an OMP_SCHEDULE of ours, libomp must still not
# see (and warn about) our name.
# -DLIB=libselfsched.so -DPROGRAM=omp_plain_program -DWORK=dir
file(MAKE_DIRECTORY ${WORK})
find_program(SH sh REQUIRED)

include(${CMAKE_CURRENT_LIST_DIR}/run_preloaded.cmake)
function(run out_var err_var)
  run_preloaded(out err OMP_NUM_THREADS=2 ${ARGN})
  set(${out_var} "${out}" PARENT_SCOPE)
  set(${err_var} "${err}" PARENT_SCOPE)
endfunction()

# A preloaded shell starts the program; SELFSCHED_SCHEDULE is empty.
file(REMOVE ${WORK}/handoff.json)
run(out err OMP_SCHEDULE=tss SELFSCHED_SCHEDULE= SELFSCHED_VERBOSE=true SELFSCHED_PROFILE=${WORK}/handoff.json
    ${SH} -c "'${PROGRAM}' 3000")
if(NOT err MATCHES "served by tss" OR err MATCHES "OMP: Warning")
  message(FATAL_ERROR "the child of a preloaded shell must run tss, quietly:\n${out}\n${err}")
endif()
file(READ ${WORK}/handoff.json profile)
if(NOT profile MATCHES "\"technique\": \"tss\"")
  message(FATAL_ERROR "the child's profile must show tss: ${profile}")
endif()

# The same through two shells, SELFSCHED_SCHEDULE unset.
run(out err OMP_SCHEDULE=fac SELFSCHED_VERBOSE=true ${SH} -c "${SH} -c \"'${PROGRAM}' 3000\"")
if(NOT err MATCHES "served by fac" OR err MATCHES "OMP: Warning")
  message(FATAL_ERROR "a grandchild must run fac, quietly:\n${out}\n${err}")
endif()

# Both set, both ours: SELFSCHED_SCHEDULE serves, libomp says nothing.
run(out err SELFSCHED_SCHEDULE=gss OMP_SCHEDULE=ss SELFSCHED_VERBOSE=true ${PROGRAM} 3000)
if(NOT err MATCHES "served by gss" OR err MATCHES "OMP: Warning")
  message(FATAL_ERROR "SELFSCHED_SCHEDULE=gss over OMP_SCHEDULE=ss: gss, no libomp warning:\n${out}\n${err}")
endif()

# SELFSCHED_SCHEDULE a standard kind over OMP_SCHEDULE of ours: libomp's static, quietly.
run(out err SELFSCHED_SCHEDULE=static OMP_SCHEDULE=fss SELFSCHED_VERBOSE=true ${PROGRAM} 3000)
if(NOT out MATCHES "omp_get_schedule=1," OR err MATCHES "OMP: Warning" OR err MATCHES "served by")
  message(FATAL_ERROR "SELFSCHED_SCHEDULE=static over OMP_SCHEDULE=fss: libomp's static, no warning:\n${out}\n${err}")
endif()
