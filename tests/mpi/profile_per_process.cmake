# SELFSCHED_PROFILE when several processes run with the preloaded library:
# the ranks of an mpirun each write their own complete profile (one shared
# name used to leave one file of interleaved JSON); %r, %p and %% expand; a
# single process keeps the name as given; processes that share a name
# anyway leave a valid profile, never a mix.
# -DMPIRUN=selfsched-mpirun -DLIB=libselfsched.so -DPROGRAM=omp_plain_program -DWORK=dir
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

# A profile file: it must exist, parse as JSON, and show selfsched served a
# loop of n iterations with `technique`.
function(expect_profile path technique n)
  if(NOT EXISTS ${path})
    file(GLOB present ${WORK}/*)
    message(FATAL_ERROR "no profile ${path}; present: ${present}")
  endif()
  file(READ ${path} text)
  string(JSON first_site ERROR_VARIABLE error GET "${text}" sites 0 loops 0)
  if(error)
    message(FATAL_ERROR "${path} is not a valid profile: ${error}")
  endif()
  string(JSON got_technique GET "${first_site}" technique)
  string(JSON got_n GET "${first_site}" n)
  if(NOT got_technique STREQUAL technique OR NOT got_n EQUAL n)
    message(FATAL_ERROR "${path}: loop ${got_technique} n=${got_n}, expected ${technique} n=${n}")
  endif()
endfunction()

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${ARGN}: exit ${rc}\n${out}\n${err}")
  endif()
endfunction()

# Three ranks, one name: prof.rank0.json ... prof.rank2.json, nothing else.
run(${CMAKE_COMMAND} -E env OMP_NUM_THREADS=1 OMP_SCHEDULE=fss SELFSCHED_PROFILE=${WORK}/prof.json
    ${MPIRUN} -np 3 ${PROGRAM} 3000)
foreach(rank 0 1 2)
  expect_profile(${WORK}/prof.rank${rank}.json fss 3000)
endforeach()
file(GLOB written ${WORK}/*)
list(LENGTH written count)
if(NOT count EQUAL 3)
  message(FATAL_ERROR "three ranks must write three profiles, found: ${written}")
endif()

# %r and %p name the files as asked (no .rank suffix added).
run(${CMAKE_COMMAND} -E env OMP_NUM_THREADS=1 OMP_SCHEDULE=gss SELFSCHED_PROFILE=${WORK}/r%r-p%p-100%%.json
    ${MPIRUN} -np 2 ${PROGRAM} 2000)
foreach(rank 0 1)
  file(GLOB match ${WORK}/r${rank}-p*-100%.json)
  list(LENGTH match found)
  if(NOT found EQUAL 1 OR NOT match MATCHES "/r${rank}-p[0-9]+-100%\\.json$")
    file(GLOB present ${WORK}/*)
    message(FATAL_ERROR "SELFSCHED_PROFILE=r%r-p%p-100%%.json, rank ${rank}: found '${match}' in ${present}")
  endif()
  expect_profile(${match} gss 2000)
endforeach()

# One process, no launcher: the name as given (no extension: none added).
run(${CMAKE_COMMAND} -E env LD_PRELOAD=${LIB} OMP_NUM_THREADS=2 OMP_SCHEDULE=tss SELFSCHED_PROFILE=${WORK}/single
    ${PROGRAM} 1000)
expect_profile(${WORK}/single tss 1000)

# Four processes at once on one name, with large profiles (every chunk of
# ss): the file left is one whole profile.
find_program(SH sh REQUIRED)
run(${CMAKE_COMMAND} -E env LD_PRELOAD=${LIB} OMP_NUM_THREADS=2 OMP_SCHEDULE=ss SELFSCHED_PROFILE_CHUNKS=1
    SELFSCHED_PROFILE=${WORK}/shared.json
    ${SH} -c "for k in 1 2 3 4\ndo '${PROGRAM}' 20000 &\ndone\nwait")  # newlines: ';' splits CMake lists
expect_profile(${WORK}/shared.json ss 20000)
file(GLOB leftovers ${WORK}/shared.json.tmp*)
if(leftovers)
  message(FATAL_ERROR "temporary profile files left behind: ${leftovers}")
endif()
