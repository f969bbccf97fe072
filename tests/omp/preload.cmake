# The drop-in path: an unmodified program, LD_PRELOAD=libselfsched.so and
# OMP_SCHEDULE. libomp must print nothing for our names; a bad name gets one
# message from selfsched and libomp's default; standard names are untouched.
include(${CMAKE_CURRENT_LIST_DIR}/run_preloaded.cmake)
function(run_plain out_var err_var)
  run_preloaded(out err OMP_NUM_THREADS=3 ${ARGN} ${PROGRAM} 20000)
  set(${out_var} "${out}" PARENT_SCOPE)
  set(${err_var} "${err}" PARENT_SCOPE)
endfunction()

foreach(schedule fss w-gss,4 tss-80 "nonmonotonic:gss" awf-b af dtss css,10)
  run_plain(out err OMP_SCHEDULE=${schedule} SELFSCHED_PROFILE=${WORK}/preload_profile.json)
  if(NOT err STREQUAL "")
    message(FATAL_ERROR "OMP_SCHEDULE=${schedule}: expected no message, got:\n${err}")
  endif()
  file(READ ${WORK}/preload_profile.json profile)
  string(FIND "${profile}" "\"technique\": " at)
  if(at EQUAL -1)
    message(FATAL_ERROR "OMP_SCHEDULE=${schedule}: selfsched served no loop (profile: ${profile})")
  endif()
endforeach()

# A technique that reads the threads' powers finds them (the topology:
# milliseconds) as libomp starts, not in its first loop with the team
# waiting: SELFSCHED_VERBOSE names the powers before that loop. A fixed
# technique never looks for them.
run_plain(out err OMP_SCHEDULE=af SELFSCHED_VERBOSE=1)
string(FIND "${err}" "thread powers:" powers_at)
string(FIND "${err}" "served by af" loop_at)
if(powers_at EQUAL -1 OR loop_at EQUAL -1 OR NOT powers_at LESS loop_at)
  message(FATAL_ERROR "OMP_SCHEDULE=af: the powers must be found before its first loop starts:\n${err}")
endif()
run_plain(out err OMP_SCHEDULE=fss SELFSCHED_VERBOSE=1)
if(err MATCHES "thread powers:" OR NOT err MATCHES "served by fss")
  message(FATAL_ERROR "OMP_SCHEDULE=fss: its loop is served without looking for the powers:\n${err}")
endif()

# Every symbol bound at load (LD_BIND_NOW, or a runtime linked -z now, as
# hardened distributions build them): served, and nothing said. (An IFUNC
# among our entry points would make glibc print "Relink ... for IFUNC
# symbol" here, and call its resolver before the library is relocated.)
run_plain(out err OMP_SCHEDULE=fss LD_BIND_NOW=1 SELFSCHED_PROFILE=${WORK}/bind_now_profile.json)
file(READ ${WORK}/bind_now_profile.json profile)
if(NOT err STREQUAL "" OR NOT out MATCHES "sum_ok=1 wrong=0" OR NOT profile MATCHES "\"technique\": \"fss\"")
  message(FATAL_ERROR "LD_BIND_NOW=1: the loop must be served by fss, quietly:\n${out}\n${err}\n${profile}")
endif()

# Set but empty (VAR= program): the default, without a message.
run_plain(out err OMP_SCHEDULE=fss SELFSCHED_PROFILE_CHUNKS= SELFSCHED_WEIGHTS= SELFSCHED_MU=)
if(NOT err STREQUAL "")
  message(FATAL_ERROR "empty SELFSCHED_* values must mean their defaults, quietly; got:\n${err}")
endif()

run_plain(out err OMP_SCHEDULE=bogus)
string(REGEX MATCHALL "selfsched:" lines "${err}")
list(LENGTH lines count)
if(NOT err MATCHES "unknown technique 'bogus'; valid: static, ss/pss, css, gss" OR err MATCHES "OMP: Warning")
  message(FATAL_ERROR "OMP_SCHEDULE=bogus: expected selfsched's message only, got:\n${err}")
endif()

run_plain(out err OMP_SCHEDULE=dynamic,4)
if(NOT err STREQUAL "" OR NOT out MATCHES "omp_get_schedule=2,4")
  message(FATAL_ERROR "OMP_SCHEDULE=dynamic,4 must be libomp's own: ${out} ${err}")
endif()

run_plain(out err OMP_SCHEDULE=gss SELFSCHED_WEIGHTS=1,nan)
if(NOT err MATCHES "SELFSCHED_WEIGHTS='1,nan' is invalid")
  message(FATAL_ERROR "a bad SELFSCHED_WEIGHTS must be named: ${err}")
endif()

# A two-word choice misspelt: named with both words, the default kept (the
# loop still runs under the technique asked for).
run_plain(out err OMP_SCHEDULE=auto SELFSCHED_SHARED_CPU=nap)
if(NOT err MATCHES "SELFSCHED_SHARED_CPU='nap' is invalid \\(valid: sleep, spin\\); using the default, sleep"
   OR NOT out MATCHES "wrong=0")
  message(FATAL_ERROR "a bad SELFSCHED_SHARED_CPU must be named with the choices: ${out} ${err}")
endif()

# Files the library reads are bounded and never throw: a directory, a FIFO-free
# special file and a deeply nested one as SIA file (these aborted w-* programs).
file(MAKE_DIRECTORY ${WORK}/sia_is_a_directory)
string(REPEAT "[" 100000 deep)
file(WRITE ${WORK}/sia_deep.json "${deep}")
foreach(sia ${WORK}/sia_is_a_directory /proc/self/mem ${WORK}/sia_deep.json)
  run_plain(out err OMP_SCHEDULE=w-gss SELFSCHED_SIA=${sia})
  if(NOT out MATCHES "wrong=0")
    message(FATAL_ERROR "SELFSCHED_SIA=${sia}: ${out} ${err}")
  endif()
endforeach()

# A list that names nothing is not "none" by accident: named, with the choices.
run_plain(out err OMP_SCHEDULE=fss SELFSCHED_OVERRIDE=,)
if(NOT err MATCHES "SELFSCHED_OVERRIDE=',' is invalid \\(it names no schedule; valid: dynamic, guided, none\\)")
  message(FATAL_ERROR "SELFSCHED_OVERRIDE=, must be named with the choices: ${err}")
endif()

# A profile that cannot be written is said at start, not only at exit (a
# long job learns it before it ends).
file(WRITE ${WORK}/a_file "not a directory")
run_plain(out err OMP_SCHEDULE=fss SELFSCHED_PROFILE=${WORK}/a_file/profile.json)
if(NOT err MATCHES "SELFSCHED_PROFILE=[^:]*a_file/profile.json: [^\n]*a_file is not a directory; the profile cannot be written there")
  message(FATAL_ERROR "an unwritable SELFSCHED_PROFILE must be named at start: ${err}")
endif()

# Loops left to libomp in the profile on request (a baseline beside
# selfsched's), not otherwise.
run_plain(out err OMP_SCHEDULE=dynamic,4 SELFSCHED_PROFILE=${WORK}/forwarded.json SELFSCHED_PROFILE_FORWARDED=1)
expect_forwarded_profile("SELFSCHED_PROFILE_FORWARDED=1" ${WORK}/forwarded.json "libomp dynamic,4" 3)
run_plain(out err OMP_SCHEDULE=dynamic,4 SELFSCHED_PROFILE=${WORK}/not_forwarded.json)
file(READ ${WORK}/not_forwarded.json profile)
string(JSON sites LENGTH "${profile}" sites)
if(NOT sites EQUAL 0)
  message(FATAL_ERROR "without SELFSCHED_PROFILE_FORWARDED, loops left to libomp are not profiled:\n${profile}")
endif()

# Under SELFSCHED_VERBOSE a loop left to libomp is named once, with why. A
# libomp with selfsched's schedules registered (patches/) runs it without
# passing through selfsched at all, and verbose says that instead.
run_plain(out err OMP_SCHEDULE=dynamic SELFSCHED_VERBOSE=1)
string(REGEX MATCHALL "selfsched: loop [^\n]*plain_program.cpp:[0-9]+[^\n]*, schedule\\(runtime\\): libomp's schedule, OMP_SCHEDULE names no selfsched technique" named "${err}")
list(LENGTH named times)
set(expected_times 1)
if(err MATCHES "libomp takes registered loop schedules")
  set(expected_times 0)
endif()
if(NOT times EQUAL expected_times)
  message(FATAL_ERROR "SELFSCHED_VERBOSE must name the forwarded loop once (${times} times):\n${err}")
endif()

# A misspelt variable is named with the one meant; another program's
# SELFSCHED_* variable, far from every setting, is left alone.
run_plain(out err OMP_SCHEDULE=fss SELFSCHED_SHEDULE=gss SELFSCHED_EXAMPLE_SLOWDOWN=1)
if(NOT err MATCHES "SELFSCHED_SHEDULE is not a selfsched setting and is ignored; did you mean SELFSCHED_SCHEDULE\\?"
   OR err MATCHES "SELFSCHED_EXAMPLE_SLOWDOWN")
  message(FATAL_ERROR "SELFSCHED_SHEDULE must be named with SELFSCHED_SCHEDULE, and nothing else: ${err}")
endif()

run_plain(out err OMP_SCHEDULE=fss SELFSCHED_DISPLAY_ENV=true)
if(NOT err MATCHES "SELFSCHED DISPLAY ENVIRONMENT BEGIN" OR NOT err MATCHES "active technique for schedule\\(runtime\\) = 'fss'")
  message(FATAL_ERROR "SELFSCHED_DISPLAY_ENV=true must print the settings: ${err}")
endif()
# OMP_DISPLAY_ENV's OMP_SCHEDULE line says `dynamic` (`fss` on a libomp that
# takes registered schedules): what selfsched does is shown beside it,
# unless SELFSCHED_DISPLAY_ENV says no.
run_plain(out err OMP_SCHEDULE=fss OMP_DISPLAY_ENV=verbose)
if(NOT err MATCHES "OMP_SCHEDULE='(dynamic|fss)'" OR NOT err MATCHES "active technique for schedule\\(runtime\\) = 'fss'")
  message(FATAL_ERROR "OMP_DISPLAY_ENV=verbose must show libomp's settings and selfsched's: ${err}")
endif()
run_plain(out err OMP_SCHEDULE=fss OMP_DISPLAY_ENV=true SELFSCHED_DISPLAY_ENV=false)
if(err MATCHES "SELFSCHED DISPLAY" OR NOT err MATCHES "OMP_SCHEDULE='(dynamic|fss)'")
  message(FATAL_ERROR "SELFSCHED_DISPLAY_ENV=false must keep selfsched's settings out of OMP_DISPLAY_ENV's: ${err}")
endif()
# Once, by the process that runs OpenMP, not by the shell that starts it.
run_preloaded(out err OMP_SCHEDULE=fss SELFSCHED_DISPLAY_ENV=true sh -c "'${PROGRAM}' 2000")
string(REGEX MATCHALL "SELFSCHED DISPLAY ENVIRONMENT BEGIN" shown "${err}")
list(LENGTH shown times)
if(NOT times EQUAL 1)
  message(FATAL_ERROR "SELFSCHED_DISPLAY_ENV=true under a shell: printed ${times} times, expected once:\n${err}")
endif()

# The profile is the program's, not the shell's that started it and ended
# after it (bash runs its exit handlers; dash does not). "&&", not ";",
# which would split the CMake argument and let bash exec the program.
file(REMOVE ${WORK}/under_bash.json)
run_preloaded(out err OMP_SCHEDULE=fss SELFSCHED_PROFILE=${WORK}/under_bash.json
              bash -c "'${PROGRAM}' 2000 && echo the shell goes on")
if(NOT out MATCHES "the shell goes on")
  message(FATAL_ERROR "bash must run on after the program: ${out}")
endif()
expect_served("a profile under bash" ${WORK}/under_bash.json fss)

# selfsched-run sets the same variables for the user.
execute_process(COMMAND ${RUN} --schedule tss --profile ${WORK}/run_profile.json -- ${PROGRAM} 5000
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
file(READ ${WORK}/run_profile.json profile)
if(NOT rc EQUAL 0 OR NOT err STREQUAL "" OR NOT profile MATCHES "\"technique\": \"tss\"")
  message(FATAL_ERROR "selfsched-run --schedule tss: exit ${rc}\n${out}\n${err}\n${profile}")
endif()
execute_process(COMMAND ${RUN} --bogus -- ${PROGRAM} RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "unknown option '--bogus'")
  message(FATAL_ERROR "selfsched-run --bogus: exit ${rc}: ${err}")
endif()

# Without OMPT selfsched cannot tell teams apart: it says so once and the
# loops still run correctly under libomp.
run_plain(out err OMP_SCHEDULE=fss OMP_TOOL=disabled)
if(NOT err MATCHES "did not start selfsched's OpenMP tool")
  message(FATAL_ERROR "OMP_TOOL=disabled must be explained: ${err}")
endif()

run_plain(out err OMP_SCHEDULE=gss SELFSCHED_VERBOSE=true)
if(NOT err MATCHES "loop at .*plain_program.cpp:[0-9]+ in main \\(n=20000, 3 threads\\) served by gss")
  message(FATAL_ERROR "SELFSCHED_VERBOSE=true must name the loop and its technique: ${err}")
endif()
# A run whose loops never reach selfsched (here: both loops empty, so the
# program never calls the runtime for them) says so at exit, naming the
# loops it would have taken.
run_preloaded(out err OMP_SCHEDULE=fss SELFSCHED_OVERRIDE=dynamic SELFSCHED_VERBOSE=true ${PROGRAM} 0)
if(NOT err MATCHES "no loop was served by selfsched: no schedule\\(runtime\\) or dynamic loop ran")
  message(FATAL_ERROR "a run that served no loop, SELFSCHED_VERBOSE=true: ${err}")
endif()
# Names are case-insensitive and blanks are ignored: one spelling is shown.
run_plain(out err "OMP_SCHEDULE= GSS , 3" SELFSCHED_VERBOSE=true)
if(NOT err MATCHES "served by gss,3\n")
  message(FATAL_ERROR "OMP_SCHEDULE=' GSS , 3' must be served and named as gss,3: ${err}")
endif()

# A profile keeps at most 250,000 chunks a process (a loop of ss hands out
# one a microsecond): the rest are counted, in the loop and at exit. Threads
# take the room in blocks of 4096, so the other thread may still hold up to
# a block unused when one finds the room used up.
run_preloaded(out err OMP_NUM_THREADS=2 OMP_SCHEDULE=ss SELFSCHED_PROFILE=${WORK}/bounded.json
              SELFSCHED_PROFILE_CHUNKS=1 ${PROGRAM} 400000)
file(READ ${WORK}/bounded.json profile)
string(JSON kept LENGTH "${profile}" sites 0 loops 0 chunks)
string(JSON not_kept GET "${profile}" sites 0 loops 0 chunks_not_kept)
math(EXPR all "${kept} + ${not_kept}")
if(NOT out MATCHES "wrong=0" OR kept GREATER 250000 OR kept LESS 245904 OR NOT all EQUAL 400000 OR
   NOT err MATCHES "SELFSCHED_PROFILE_CHUNKS: ${not_kept} chunks were counted but not kept: a process keeps at most 250000")
  message(FATAL_ERROR "400,000 chunks of ss: kept ${kept}, not kept ${not_kept}, expected 245,904 to 250,000 kept "
                      "and the rest counted:\n${out}\n${err}")
endif()
