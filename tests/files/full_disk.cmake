# A full disk under the profile and auto's cache: one message each naming
# the file and "No space left on device", the program ends as it would
# have, no temporary is left. The disk is a 16 KiB tmpfs filled up, in a
# mount namespace of the test's own (unshare: root); skipped elsewhere.
#
#   cmake -DLIB=libselfsched.so -DPROGRAM=omp_plain_program -DWORK=dir -P full_disk.cmake
set(disk ${WORK}/full_disk)
file(REMOVE_RECURSE ${disk})
file(MAKE_DIRECTORY ${disk})
execute_process(COMMAND unshare --mount true RESULT_VARIABLE private ERROR_QUIET)
if(NOT private EQUAL 0)
  message("skipped: no mount namespace of our own here (unshare --mount needs root)")
  return()
endif()
set(preload ${LIB})
if(DEFINED ENV{SANITIZER_RUNTIME})  # as tests/omp/run_preloaded.cmake
  set(preload $ENV{SANITIZER_RUNTIME}:${LIB})
endif()
# $1 the disk, $2 LD_PRELOAD, $3 the program: the profile, then auto's cache.
set(script [=[
mount -t tmpfs -o size=16k selfsched-full "$1" || exit 9
head -c 1M /dev/zero > "$1/fill" 2>/dev/null
env LD_PRELOAD="$2" OMP_NUM_THREADS=2 OMP_SCHEDULE=fss SELFSCHED_AUTO_CACHE=off SELFSCHED_PROFILE="$1/profile.json" "$3" 20000 || echo "exit $?"
env LD_PRELOAD="$2" OMP_NUM_THREADS=2 OMP_SCHEDULE=auto SELFSCHED_AUTO_CACHE="$1/auto.json" "$3" 20000 || echo "exit $?"
ls -A "$1"
]=])
execute_process(COMMAND unshare --mount sh -c "${script}" sh ${disk} ${preload} ${PROGRAM}
                TIMEOUT 120 OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(rc EQUAL 9)
  message("skipped: no tmpfs could be mounted here:\n${err}")
  return()
endif()
string(REGEX MATCHALL "(^|\n)selfsched: " lines "${err}")
list(LENGTH lines count)
if(NOT rc EQUAL 0 OR out MATCHES "exit [0-9]" OR NOT out MATCHES "sum_ok=1 wrong=0[^\n]*\nn=20000 sum_ok=1 wrong=0[^\n]*\nfill\n$"
   OR NOT count EQUAL 2
   OR NOT err MATCHES "SELFSCHED_PROFILE: the profile was not written: cannot write ${disk}/profile.json: No space left on device"
   OR NOT err MATCHES "SELFSCHED_AUTO_CACHE: what auto learned was not kept: cannot write ${disk}/auto.json: No space left on device")
  message(FATAL_ERROR "a full disk: expected both programs to end normally, one message each and only the filler left (${rc}):\n${out}\n${err}")
endif()
