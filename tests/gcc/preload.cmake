# GCC programs (libgomp): served when libselfsched is preloaded or linked
# before libgomp; when it is linked after, selfsched says so and claims
# nothing (the technique is not in force, selfsched_set_schedule refuses).
include(${CMAKE_CURRENT_LIST_DIR}/../omp/run_preloaded.cmake)

# Preloaded, the technique in SELFSCHED_SCHEDULE: no message at all.
run_preloaded(out err OMP_NUM_THREADS=3 SELFSCHED_SCHEDULE=fss SELFSCHED_PROFILE=${WORK}/gcc_preload.json
              ${BIN}/plain_program_c 20000)
if(NOT out MATCHES "wrong=0 set_schedule=1" OR NOT err STREQUAL "")
  message(FATAL_ERROR "preloaded gcc program: ${out}\n${err}")
endif()
expect_served("preloaded gcc program" ${WORK}/gcc_preload.json fss)

# OMP_SCHEDULE also works (libgomp may already have warned that it does not
# know the name: it reads its environment before a preloaded library can).
run_preloaded(out err OMP_NUM_THREADS=2 OMP_SCHEDULE=awf-b SELFSCHED_VERBOSE=1 ${BIN}/plain_program_c 20000)
if(NOT out MATCHES "wrong=0" OR NOT err MATCHES "served by awf-b")
  message(FATAL_ERROR "OMP_SCHEDULE=awf-b, preloaded gcc program: ${out}\n${err}")
endif()

# A technique that reads the threads' powers finds them (the topology:
# milliseconds) as libgomp starts its first region, not in its first loop
# with the team waiting: SELFSCHED_VERBOSE names the powers before that loop.
run_preloaded(out err OMP_NUM_THREADS=2 SELFSCHED_SCHEDULE=af SELFSCHED_VERBOSE=1 ${BIN}/plain_program_c 20000)
string(FIND "${err}" "thread powers:" powers_at)
string(FIND "${err}" "served by af" loop_at)
if(NOT out MATCHES "wrong=0" OR powers_at EQUAL -1 OR loop_at EQUAL -1 OR NOT powers_at LESS loop_at)
  message(FATAL_ERROR "SELFSCHED_SCHEDULE=af, gcc program: the powers must be found before its first loop:\n${out}\n${err}")
endif()

# SELFSCHED_DISPLAY_ENV names the runtime and says its loops come to selfsched.
run_preloaded(out err OMP_NUM_THREADS=2 SELFSCHED_SCHEDULE=gss SELFSCHED_DISPLAY_ENV=true ${BIN}/plain_program_c 1000)
if(NOT err MATCHES "active technique for schedule\\(runtime\\) = 'gss'" OR
   NOT err MATCHES "OpenMP runtime = 'libgomp \\(GCC\\): its loops come to selfsched'")
  message(FATAL_ERROR "SELFSCHED_DISPLAY_ENV, gcc program: ${err}")
endif()

# Loops left to libgomp in the profile on request.
run_preloaded(out err OMP_NUM_THREADS=2 OMP_SCHEDULE=dynamic,4 SELFSCHED_PROFILE=${WORK}/gcc_forwarded.json
              SELFSCHED_PROFILE_FORWARDED=1 ${BIN}/plain_program_c 20000)
expect_forwarded_profile("SELFSCHED_PROFILE_FORWARDED=1, gcc program" ${WORK}/gcc_forwarded.json "libgomp dynamic,4" 2)

# Linked before libgomp: served, without LD_PRELOAD.
execute_process(COMMAND ${CMAKE_COMMAND} -E env OMP_NUM_THREADS=2 SELFSCHED_SCHEDULE=tss
                  SELFSCHED_PROFILE=${WORK}/gcc_linked.json ${BIN}/plain_program_c_linked 20000
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT out MATCHES "wrong=0 set_schedule=1")
  message(FATAL_ERROR "gcc program linked with -lselfsched first: exit ${rc}\n${out}\n${err}")
endif()
expect_served("gcc program linked with -lselfsched first" ${WORK}/gcc_linked.json tss)

# Linked after libgomp: libgomp's loops never reach selfsched. One message
# naming the variable and why; nothing claimed; the loops still right.
execute_process(COMMAND ${CMAKE_COMMAND} -E env OMP_NUM_THREADS=2 SELFSCHED_SCHEDULE=fss SELFSCHED_DISPLAY_ENV=true
                  ${BIN}/plain_program_c_gomp_first 20000
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT out MATCHES "wrong=0 set_schedule=0" OR
   NOT err MATCHES "SELFSCHED_SCHEDULE='fss' is not in force: libgomp \\(GCC\\): its loops do not come to selfsched \\(the runtime is linked before libselfsched" OR
   NOT err MATCHES "active technique for schedule\\(runtime\\) = 'none")
  message(FATAL_ERROR "gcc program linked with -lgomp before -lselfsched: exit ${rc}\n${out}\n${err}")
endif()

# No runtime at all (a program without OpenMP, here cmake itself): under
# SELFSCHED_VERBOSE, said once at exit.
run_preloaded(out err SELFSCHED_SCHEDULE=fss SELFSCHED_VERBOSE=1 ${CMAKE_COMMAND} -E true)
if(NOT err MATCHES "no loop was served by selfsched: no OpenMP runtime loaded")
  message(FATAL_ERROR "a program without OpenMP, SELFSCHED_VERBOSE=1: ${err}")
endif()
