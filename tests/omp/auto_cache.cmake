# auto's cache across runs (omp_ext/learning/auto_cache.hpp): the second run
# starts each site from what the first learned; off writes nothing; a bad
# cache file is named once and replaced, never a crash; the file is written
# through a new temporary, so a symlink at its path is replaced, not followed.
include(${CMAKE_CURRENT_LIST_DIR}/run_preloaded.cmake)
set(dir ${WORK}/auto_cache)
file(REMOVE_RECURSE ${dir})
file(MAKE_DIRECTORY ${dir})
set(cache ${dir}/auto.json)
set(profile ${dir}/profile.json)

# The first chunk of each thread at each site of the profile, as "t0,t1;..."
# per site; "-" for a thread that got no chunk there (a short loop can be
# over before the second thread comes).
function(first_chunks out_var)
  file(READ ${profile} text)
  string(JSON sites LENGTH "${text}" sites)
  math(EXPR last_site "${sites} - 1")
  set(result "")
  foreach(s RANGE ${last_site})
    string(JSON chunks LENGTH "${text}" sites ${s} loops 0 chunks)
    math(EXPR last_chunk "${chunks} - 1")
    set(first0 "")
    set(first1 "")
    foreach(c RANGE ${last_chunk})
      string(JSON thread GET "${text}" sites ${s} loops 0 chunks ${c} thread)
      if(first${thread} STREQUAL "")
        string(JSON first${thread} GET "${text}" sites ${s} loops 0 chunks ${c} size)
      endif()
    endforeach()
    foreach(t 0 1)
      if(first${t} STREQUAL "")
        set(first${t} "-")
      endif()
    endforeach()
    string(APPEND result "${first0},${first1};")
  endforeach()
  set(${out_var} "${result}" PARENT_SCOPE)
endfunction()

set(common OMP_NUM_THREADS=2 OMP_SCHEDULE=auto SELFSCHED_PROFILE=${profile} SELFSCHED_PROFILE_CHUNKS=true)
run_preloaded(out err ${common} SELFSCHED_AUTO_CACHE=${cache} ${PROGRAM} 30000 1)
first_chunks(first_run)
if(NOT EXISTS ${cache} OR NOT first_run MATCHES "^(1,1|1,-|-,1);(1,1|1,-|-,1);(1,1|1,-|-,1);$" OR NOT err STREQUAL "")
  message(FATAL_ERROR "first run: expected every thread that ran to start at 1 and a cache file, got ${first_run}\n${err}")
endif()
file(READ ${cache} text)
string(JSON binaries LENGTH "${text}" binaries)
if(NOT binaries EQUAL 1)
  message(FATAL_ERROR "the cache should hold one binary: ${text}")
endif()

run_preloaded(out err ${common} SELFSCHED_AUTO_CACHE=${cache} SELFSCHED_VERBOSE=true ${PROGRAM} 30000 1)
first_chunks(second_run)
string(REGEX MATCHALL "auto starts from the cache \\(learned in 1 earlier runs\\)" seeded "${err}")
list(LENGTH seeded seeded_sites)
string(REGEX MATCHALL "[0-9]+" sizes "${second_run}")
set(larger 0)
foreach(size IN LISTS sizes)
  if(size GREATER 1)
    math(EXPR larger "${larger} + 1")
  endif()
endforeach()
if(NOT seeded_sites EQUAL 3 OR larger LESS 3)
  message(FATAL_ERROR "second run: expected 3 sites seeded from the cache and larger first chunks, got "
    "${seeded_sites} and ${second_run}\n${err}")
endif()

# Another binary does not find the first one's sites.
run_preloaded(out err OMP_NUM_THREADS=2 OMP_SCHEDULE=auto SELFSCHED_AUTO_CACHE=${cache} SELFSCHED_VERBOSE=true
  ${OTHER_PROGRAM} 2000)
if(err MATCHES "starts from the cache")
  message(FATAL_ERROR "another binary must not start from this one's entries: ${err}")
endif()

# A program without a build id is known by its file, wherever it is started
# from: run by a relative name in its own folder, then by its full path from
# another, the second run starts from what the first learned.
get_filename_component(no_id_dir ${NO_BUILD_ID_PROGRAM} DIRECTORY)
get_filename_component(no_id_name ${NO_BUILD_ID_PROGRAM} NAME)
set(run_preloaded_directory ${no_id_dir})
run_preloaded(out err ${common} SELFSCHED_AUTO_CACHE=${dir}/no_id.json ./${no_id_name} 30000 1)
set(run_preloaded_directory ${dir})
run_preloaded(out err ${common} SELFSCHED_AUTO_CACHE=${dir}/no_id.json SELFSCHED_VERBOSE=true
  ${NO_BUILD_ID_PROGRAM} 30000 1)
unset(run_preloaded_directory)
file(READ ${dir}/no_id.json text)
string(JSON no_id_binaries LENGTH "${text}" binaries)
if(NOT err MATCHES "auto starts from the cache" OR NOT no_id_binaries EQUAL 1)
  message(FATAL_ERROR "a program without a build id must find its sites from another folder, got "
                      "${no_id_binaries} binaries:\n${text}\n${err}")
endif()

# off: nothing written.
run_preloaded(out err ${common} SELFSCHED_AUTO_CACHE=off HOME=${dir}/home XDG_CACHE_HOME= ${PROGRAM} 3000 1)
if(EXISTS ${dir}/home)
  message(FATAL_ERROR "SELFSCHED_AUTO_CACHE=off must write nothing")
endif()

# Every auto process reads the whole file: it is kept to the 16 binaries used
# last and 1 MiB, the oldest dropped first, this run's binary kept.
string(REPEAT "x" 100000 pad)
set(others "")
foreach(k RANGE 1 20)
  string(APPEND others "\"other${k}\": {\"used\": ${k}, \"sites\": {\"0x1\": {\"pad\": \"${pad}\"}}}, ")
endforeach()
string(REGEX REPLACE ", $" "" others "${others}")
file(WRITE ${dir}/large.json "{\"selfsched_auto_cache\": 1, \"binaries\": {${others}}}")
run_preloaded(out err ${common} SELFSCHED_AUTO_CACHE=${dir}/large.json ${PROGRAM} 3000 1)
file(SIZE ${dir}/large.json size)
file(READ ${dir}/large.json text)
string(JSON binaries LENGTH "${text}" binaries)
string(JSON newest_other ERROR_VARIABLE dropped GET "${text}" binaries other20 used)
string(JSON oldest_other ERROR_VARIABLE kept_oldest GET "${text}" binaries other1 used)
if(size GREATER 1048576 OR binaries GREATER 16 OR binaries LESS 2 OR dropped OR NOT kept_oldest
   OR NOT text MATCHES "\"0x[0-9a-f]+\":{\"estimates\"")
  message(FATAL_ERROR "a large cache: expected at most 1 MiB and 16 binaries, this run's and the newest others, "
                      "got ${size} bytes, ${binaries} binaries (newest other: '${dropped}', oldest other: "
                      "'${kept_oldest}')\n${err}")
endif()

# An entry edited by hand ("used" not a number, a binary not an object) is
# dropped first when the file is full, never a lost write.
set(others "\"edited\": {\"used\": \"yesterday\", \"sites\": {}}, \"broken\": [1, 2]")
foreach(k RANGE 1 16)
  string(APPEND others ", \"other${k}\": {\"used\": ${k}, \"sites\": {}}")
endforeach()
file(WRITE ${dir}/edited.json "{\"selfsched_auto_cache\": 1, \"binaries\": {${others}}}")
run_preloaded(out err ${common} SELFSCHED_AUTO_CACHE=${dir}/edited.json ${PROGRAM} 3000 1)
file(READ ${dir}/edited.json text)
string(JSON binaries LENGTH "${text}" binaries)
string(JSON edited ERROR_VARIABLE edited_dropped GET "${text}" binaries edited)
string(JSON broken ERROR_VARIABLE broken_dropped GET "${text}" binaries broken)
string(JSON newest_other ERROR_VARIABLE newest_dropped GET "${text}" binaries other16 used)
if(NOT err STREQUAL "" OR NOT binaries EQUAL 16 OR NOT edited_dropped OR NOT broken_dropped OR newest_dropped
   OR NOT text MATCHES "\"0x[0-9a-f]+\":{\"estimates\"")
  message(FATAL_ERROR "hand-edited entries must be dropped first and this run's kept, got ${binaries} binaries "
                      "(edited: '${edited}', broken: '${broken}')\n${err}\n${text}")
endif()

# Under an MPI launcher only the first rank of each node writes.
foreach(local_rank 1 0)
  run_preloaded(out err ${common} SELFSCHED_AUTO_CACHE=${dir}/node_${local_rank}.json
    OMPI_COMM_WORLD_LOCAL_RANK=${local_rank} ${PROGRAM} 3000 1)
endforeach()
if(EXISTS ${dir}/node_1.json OR NOT EXISTS ${dir}/node_0.json)
  message(FATAL_ERROR "the cache must be written by local rank 0 alone")
endif()

# A corrupt file, a directory: named, the program runs, the file is replaced.
file(WRITE ${dir}/corrupt.json "[[[[")
run_preloaded(out err ${common} SELFSCHED_AUTO_CACHE=${dir}/corrupt.json ${PROGRAM} 3000 1)
file(READ ${dir}/corrupt.json text)
if(NOT err MATCHES "SELFSCHED_AUTO_CACHE: ${dir}/corrupt.json is not valid JSON" OR NOT text MATCHES "selfsched_auto_cache")
  message(FATAL_ERROR "a corrupt cache must be named and replaced: ${err}\n${text}")
endif()
# Read as libomp starts, not in the first auto loop with the team waiting:
# the file is named before that loop is served.
file(WRITE ${dir}/corrupt.json "[[[[")
run_preloaded(out err ${common} SELFSCHED_AUTO_CACHE=${dir}/corrupt.json SELFSCHED_VERBOSE=true ${PROGRAM} 3000 1)
string(FIND "${err}" "is not valid JSON" read_at)
string(FIND "${err}" "served by auto" loop_at)
if(read_at EQUAL -1 OR loop_at EQUAL -1 OR NOT read_at LESS loop_at)
  message(FATAL_ERROR "OMP_SCHEDULE=auto: the cache must be read before its first loop starts:\n${err}")
endif()
file(MAKE_DIRECTORY ${dir}/a_directory)
run_preloaded(out err ${common} SELFSCHED_AUTO_CACHE=${dir}/a_directory ${PROGRAM} 3000 1)
string(REGEX MATCHALL "selfsched: " messages "${err}")
list(LENGTH messages count)
if(NOT err MATCHES "a_directory is a directory, not a file: auto learns afresh and keeps nothing" OR NOT count EQUAL 1
   OR NOT IS_DIRECTORY ${dir}/a_directory)
  message(FATAL_ERROR "a directory as cache must be named once, and kept, no crash: ${err}")
endif()

# A symlink at the cache's path: replaced by the new file, its target untouched.
file(WRITE ${dir}/victim "untouched")
file(CREATE_LINK ${dir}/victim ${dir}/linked.json SYMBOLIC)
run_preloaded(out err ${common} SELFSCHED_AUTO_CACHE=${dir}/linked.json ${PROGRAM} 3000 1)
file(READ ${dir}/victim victim)
if(NOT victim STREQUAL "untouched" OR IS_SYMLINK ${dir}/linked.json)
  message(FATAL_ERROR "the cache write followed a symlink: victim '${victim}'")
endif()
