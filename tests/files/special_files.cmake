# Special files at every path selfsched writes: the profile
# (SELFSCHED_PROFILE), auto's cache (SELFSCHED_AUTO_CACHE), the SIA file
# selfsched-calibrate writes, selfsched-report's charts and selfsched-sim's
# outputs. A FIFO without a reader, a directory, a path in /proc, a full
# device: one message naming the path and why, and the program ends as it
# would have (a diagnostic never hangs it); nothing there is replaced. A
# pipe with a reader still gets the profile (/dev/stdout | cat).
#
#   cmake -DLIB=libselfsched.so -DPROGRAM=omp_plain_program -DCALIBRATE=exe -DREPORT=exe [-DSIM=exe]
#         -DWORK=dir -P special_files.cmake
set(work ${WORK}/special_files)
file(REMOVE_RECURSE ${work})
file(MAKE_DIRECTORY ${work})

# A program that waits for ever must not hold the suite: 60 s is 100 times
# what the runs here take, sanitizers included.
set(limit 60)

set(preload ${LIB})
if(DEFINED ENV{SANITIZER_RUNTIME})  # as tests/omp/run_preloaded.cmake
  set(preload $ENV{SANITIZER_RUNTIME}:${LIB})
endif()

# bounded(WHAT [VAR=value ...] command args...): runs it with libselfsched
# preloaded; fails the test if it did not end within the limit. Sets out,
# err and rc in the caller.
function(bounded what)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env LD_PRELOAD=${preload} OMP_NUM_THREADS=2 SELFSCHED_AUTO_CACHE=off
                          ${ARGN}
                  TIMEOUT ${limit} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc MATCHES "^[0-9]+$")  # "Process terminated due to timeout"
    message(FATAL_ERROR "${what}: did not end within ${limit} s (${rc}):\n${out}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
  set(rc "${rc}" PARENT_SCOPE)
endfunction()

# one_message(WHAT TEXT): `err` holds exactly one line from selfsched, and it
# contains TEXT (a literal).
function(one_message what text)
  string(REGEX MATCHALL "(^|\n)selfsched: " lines "${err}")
  list(LENGTH lines count)
  string(FIND "${err}" "${text}" at)
  if(NOT count EQUAL 1 OR at EQUAL -1)
    message(FATAL_ERROR "${what}: expected one message with '${text}', got ${count}:\n${err}")
  endif()
endfunction()

# The profile at PATH: the program ends normally, with one message.
function(profile_at what path text)
  bounded("SELFSCHED_PROFILE=${what}" OMP_SCHEDULE=fss SELFSCHED_PROFILE=${path} ${PROGRAM} 20000)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "sum_ok=1 wrong=0")
    message(FATAL_ERROR "SELFSCHED_PROFILE=${what}: the program must end as without a profile (exit ${rc}):\n${out}\n${err}")
  endif()
  one_message("SELFSCHED_PROFILE=${what}" "${text}")
endfunction()

execute_process(COMMAND id -u OUTPUT_VARIABLE uid OUTPUT_STRIP_TRAILING_WHITESPACE)
# /dev/full (every write: no space left). A node of our own where mknod is
# allowed; /dev/full itself only when we are not root, who could replace it
# if the writer ever renamed over a device again.
set(full ${work}/full)
execute_process(COMMAND mknod ${full} c 1 7 RESULT_VARIABLE made ERROR_QUIET)
if(NOT made EQUAL 0)
  set(full "")
  if(NOT uid STREQUAL "0")
    set(full /dev/full)
  endif()
endif()

function(expect_fifo what path)
  execute_process(COMMAND test -p ${path} RESULT_VARIABLE is_fifo)
  if(NOT is_fifo EQUAL 0)
    message(FATAL_ERROR "${what}: the FIFO ${path} was replaced")
  endif()
endfunction()

# ----------------------------------------------------------------- profile
execute_process(COMMAND mkfifo ${work}/profile_fifo COMMAND_ERROR_IS_FATAL ANY)
profile_at("a FIFO without a reader" ${work}/profile_fifo
           "${work}/profile_fifo is a FIFO that no process has open for reading")
expect_fifo("SELFSCHED_PROFILE" ${work}/profile_fifo)

file(MAKE_DIRECTORY ${work}/profile_directory)
profile_at("a directory" ${work}/profile_directory "${work}/profile_directory is a directory")

profile_at("/proc/self/status" /proc/self/status "/proc/self/status")
profile_at("a path under /proc" /proc/selfsched-none/profile.json "/proc/selfsched-none/profile.json")

if(full)
  profile_at("a full device" ${full} "cannot write ${full}: No space left on device")
else()
  message(STATUS "no full device as root without mknod: that case is the unit test's (files.AFullDeviceSaysNoSpace)")
endif()

# /dev/stdout read by another program, as `SELFSCHED_PROFILE=/dev/stdout prog | cat`.
execute_process(COMMAND ${CMAKE_COMMAND} -E env LD_PRELOAD=${preload} OMP_NUM_THREADS=2 SELFSCHED_AUTO_CACHE=off
                        OMP_SCHEDULE=fss SELFSCHED_PROFILE=/dev/stdout ${PROGRAM} 20000
                COMMAND cat
                TIMEOUT ${limit} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULTS_VARIABLE rcs)
if(NOT rcs STREQUAL "0;0" OR NOT err STREQUAL "")
  message(FATAL_ERROR "SELFSCHED_PROFILE=/dev/stdout | cat: exits ${rcs}:\n${out}\n${err}")
endif()
# The program's line first (what it buffered is flushed before the profile), then the profile.
string(FIND "${out}" "{" json_at)
string(SUBSTRING "${out}" ${json_at} -1 profile)
string(JSON technique ERROR_VARIABLE error GET "${profile}" sites 0 loops 0 technique)
if(error OR NOT technique STREQUAL "fss" OR NOT out MATCHES "^n=20000 sum_ok=1 [^\n]*\n{")
  message(FATAL_ERROR "SELFSCHED_PROFILE=/dev/stdout | cat: the program's line, then its profile, expected:\n${out}")
endif()

# /dev/stdout into a file (prog > out): after the program's output, through
# the same descriptor (a file opened again would write over it); /dev/stdout
# stays what it is.
execute_process(COMMAND ${CMAKE_COMMAND} -E env LD_PRELOAD=${preload} OMP_NUM_THREADS=2 SELFSCHED_AUTO_CACHE=off
                        OMP_SCHEDULE=fss SELFSCHED_PROFILE=/dev/stdout ${PROGRAM} 20000
                TIMEOUT ${limit} OUTPUT_FILE ${work}/stdout.txt ERROR_VARIABLE err RESULT_VARIABLE rc)
file(READ ${work}/stdout.txt out)
string(FIND "${out}" "{" json_at)
string(SUBSTRING "${out}" ${json_at} -1 profile)
string(JSON technique ERROR_VARIABLE error GET "${profile}" sites 0 loops 0 technique)
if(NOT rc EQUAL 0 OR NOT err STREQUAL "" OR NOT out MATCHES "^n=20000 sum_ok=1 [^\n]*\n{" OR error
   OR NOT technique STREQUAL "fss" OR NOT IS_SYMLINK /dev/stdout)
  message(FATAL_ERROR "SELFSCHED_PROFILE=/dev/stdout > file: exit ${rc}:\n${out}\n${err}")
endif()

# -------------------------------------------------------------- auto cache
# A cache is read back: what is not a file cannot be one. Said once, at
# start; auto runs, and nothing is written at exit.
execute_process(COMMAND mkfifo ${work}/cache_fifo COMMAND_ERROR_IS_FATAL ANY)
file(MAKE_DIRECTORY ${work}/cache_directory)
foreach(cache cache_fifo cache_directory)
  set(kind "a FIFO")
  if(cache STREQUAL "cache_directory")
    set(kind "a directory")
  endif()
  bounded("SELFSCHED_AUTO_CACHE=${cache}" OMP_SCHEDULE=auto SELFSCHED_AUTO_CACHE=${work}/${cache} ${PROGRAM} 20000)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "sum_ok=1 wrong=0")
    message(FATAL_ERROR "SELFSCHED_AUTO_CACHE=${cache}: exit ${rc}:\n${out}\n${err}")
  endif()
  one_message("SELFSCHED_AUTO_CACHE=${cache}" "${work}/${cache} is ${kind}, not a file: auto learns afresh")
endforeach()
expect_fifo("SELFSCHED_AUTO_CACHE" ${work}/cache_fifo)
if(full)
  bounded("SELFSCHED_AUTO_CACHE=full" OMP_SCHEDULE=auto SELFSCHED_AUTO_CACHE=${full} ${PROGRAM} 20000)
  one_message("SELFSCHED_AUTO_CACHE=full" "${full} is a character device, not a file")
endif()

# --------------------------------------------------- selfsched-calibrate
# Exit 1 and the file named, as for any file it cannot write.
foreach(output profile_fifo profile_directory)
  bounded("selfsched-calibrate --output ${output}" ${CALIBRATE} --repeat 1 --millis 1 --output ${work}/${output})
  if(NOT rc EQUAL 1 OR NOT err MATCHES "selfsched-calibrate: ${work}/${output} is a ")
    message(FATAL_ERROR "selfsched-calibrate --output ${output}: exit ${rc}, expected 1 and the file named:\n${err}")
  endif()
endforeach()
expect_fifo("selfsched-calibrate" ${work}/profile_fifo)
if(full)
  bounded("selfsched-calibrate --output full" ${CALIBRATE} --repeat 1 --millis 1 --output ${full})
  if(NOT rc EQUAL 1 OR NOT err MATCHES "cannot write ${full}: No space left on device")
    message(FATAL_ERROR "selfsched-calibrate --output full: exit ${rc}:\n${err}")
  endif()
endif()

# ------------------------------------------------------ selfsched-report
# A chart's name taken by a FIFO in --out: named, exit 1.
bounded("a profile" OMP_SCHEDULE=fss SELFSCHED_PROFILE=${work}/profile.json SELFSCHED_PROFILE_CHUNKS=1 ${PROGRAM} 20000)
bounded("selfsched-report" ${REPORT} --out ${work}/charts ${work}/profile.json)
file(GLOB charts ${work}/charts/*-busy.svg)
list(LENGTH charts count)
if(NOT rc EQUAL 0 OR NOT count EQUAL 1)
  message(FATAL_ERROR "selfsched-report: exit ${rc}, ${count} busy charts:\n${out}\n${err}")
endif()
file(REMOVE ${charts})
execute_process(COMMAND mkfifo ${charts} COMMAND_ERROR_IS_FATAL ANY)
bounded("selfsched-report, a FIFO in --out" ${REPORT} --out ${work}/charts ${work}/profile.json)
if(NOT rc EQUAL 1 OR NOT err MATCHES "selfsched-report: ${charts} is a FIFO that no process has open for reading")
  message(FATAL_ERROR "selfsched-report, a FIFO in --out: exit ${rc}, expected 1 and the FIFO named:\n${err}")
endif()
expect_fifo("selfsched-report" ${charts})

# --------------------------------------------------------- selfsched-sim
if(SIM)
  foreach(option --json --chart)
    execute_process(COMMAND mkfifo ${work}/sim${option} COMMAND_ERROR_IS_FATAL ANY)
    bounded("selfsched-sim ${option} FIFO" ${SIM} --technique fss --workers 2 --n 100 ${option} ${work}/sim${option})
    if(NOT rc EQUAL 2 OR NOT err MATCHES "selfsched-sim: ${option}: ${work}/sim${option} is a FIFO that no process")
      message(FATAL_ERROR "selfsched-sim ${option} FIFO: exit ${rc}, expected 2 and the FIFO named:\n${err}")
    endif()
    expect_fifo("selfsched-sim ${option}" ${work}/sim${option})
    bounded("selfsched-sim ${option} directory" ${SIM} --technique fss --workers 2 --n 100 ${option} ${work})
    if(NOT rc EQUAL 2 OR NOT err MATCHES "selfsched-sim: ${option}: ${work} is a directory")
      message(FATAL_ERROR "selfsched-sim ${option} directory: exit ${rc}, expected 2 and the directory named:\n${err}")
    endif()
  endforeach()
endif()
