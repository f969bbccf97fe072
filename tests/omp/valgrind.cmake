# Programs run under valgrind's memcheck with libselfsched preloaded, as a
# user debugging their own program runs them: valgrind reads the library,
# finds no error in it, and the loops are served, each iteration once.
#
#   cmake -DVALGRIND=valgrind -DLIB=libselfsched.so -DPROGRAMS="a;b"
#         -DWORK=dir -P valgrind.cmake
# Each program is plain_program (C or C++): argument n, prints sum_ok and wrong.
include(${CMAKE_CURRENT_LIST_DIR}/run_preloaded.cmake)

file(MAKE_DIRECTORY ${WORK})
foreach(program ${PROGRAMS})
  get_filename_component(name ${program} NAME)
  foreach(technique fss af auto)
    set(profile ${WORK}/valgrind_${name}_${technique}.json)
    file(REMOVE ${profile})
    # --error-exitcode: any memcheck error fails the run, and so the test.
    run_preloaded(out err OMP_NUM_THREADS=2 SELFSCHED_SCHEDULE=${technique} SELFSCHED_VERBOSE=1
                  SELFSCHED_AUTO_CACHE=off SELFSCHED_PROFILE=${profile} SELFSCHED_PROFILE_CHUNKS=1
                  ${VALGRIND} --error-exitcode=9 -q ${program} 20000)
    if(NOT out MATCHES "sum_ok=1 wrong=0" OR NOT err MATCHES "served by ${technique}")
      message(FATAL_ERROR "${name} under ${technique} in valgrind: expected every iteration once and the loop "
                          "served by ${technique}; got:\n${out}\n${err}")
    endif()
    expect_served("${name} under ${technique} in valgrind" ${profile} ${technique})
  endforeach()
endforeach()
