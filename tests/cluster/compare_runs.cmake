# Runs a plain OpenMP program once as one process and once under
# selfsched-mpirun --cluster, each in a directory of its own, and checks that
# cluster mode changed nothing a user sees: the same exit status, the same
# standard output, the same files, byte for byte (each written once), and no
# private directory left behind.
#
#   cmake -DMPIRUN=selfsched-mpirun -DRANKS=n -DPRELOAD=libselfsched.so -DWORK=dir
#         [-DSEED=name] [-DINPUT=file | -DINPUT_NUMBERS=count | -DINPUT_OPEN=1]
#         -P compare_runs.cmake -- PROGRAM ARGS...
#
# SEED: a file the directory holds before each run ("before\n"). INPUT: the
# runs' standard input. INPUT_NUMBERS: a file of that many numbers made
# here, as INPUT. INPUT_OPEN: standard input a pipe nobody writes to or
# closes (a program that never reads it must not wait for it).
set(command)
set(after_dashes FALSE)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE 1 ${last})
  if(after_dashes)
    list(APPEND command "${CMAKE_ARGV${i}}")
  elseif("${CMAKE_ARGV${i}}" STREQUAL "--")
    set(after_dashes TRUE)
  endif()
endforeach()

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/one" "${WORK}/cluster" "${WORK}/tmp")
foreach(dir one cluster)
  if(DEFINED SEED)
    file(WRITE "${WORK}/${dir}/${SEED}" "before\n")
  endif()
endforeach()

if(DEFINED INPUT_NUMBERS)
  set(numbers "")
  foreach(i RANGE 1 ${INPUT_NUMBERS})
    math(EXPR x "(${i} * 7919) % 10007 - 5000")
    string(APPEND numbers "${x}.25\n")
  endforeach()
  set(INPUT "${WORK}/input.txt")
  file(WRITE "${INPUT}" "${numbers}")
endif()
set(input_args)
if(DEFINED INPUT)
  set(input_args INPUT_FILE "${INPUT}")
endif()

# A pipe left open by a writer that never writes, as a terminal or mpirun's
# own standard input may be: bash holds it, and stops it after the run.
function(run_with_open_input dir out_var rc_var)
  execute_process(COMMAND bash -c "coproc silent { exec sleep 300; }; \"$@\" <&\${silent[0]}; s=$?; kill \$silent_PID; exit \$s"
                  bash ${ARGN} WORKING_DIRECTORY "${dir}" OUTPUT_VARIABLE out RESULT_VARIABLE rc)
  set(${out_var} "${out}" PARENT_SCOPE)
  set(${rc_var} "${rc}" PARENT_SCOPE)
endfunction()

function(run dir out_var rc_var)
  if(INPUT_OPEN)
    run_with_open_input("${dir}" out rc ${ARGN})
  else()
    execute_process(COMMAND ${ARGN} WORKING_DIRECTORY "${dir}" ${input_args} OUTPUT_VARIABLE out
                    ERROR_VARIABLE err RESULT_VARIABLE rc)
    if(err)
      message(STATUS "stderr in ${dir}: ${err}")
    endif()
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
  set(${rc_var} "${rc}" PARENT_SCOPE)
endfunction()

run("${WORK}/one" one_out one_rc ${CMAKE_COMMAND} -E env OMP_NUM_THREADS=${RANKS} LD_PRELOAD=${PRELOAD}
    SELFSCHED_OVERRIDE=dynamic,guided ${command})
run("${WORK}/cluster" cluster_out cluster_rc ${CMAKE_COMMAND} -E env OMP_NUM_THREADS=1 TMPDIR=${WORK}/tmp
    ${MPIRUN} --cluster -np ${RANKS} ${command})
message(STATUS "one process:\n${one_out}")

if(NOT one_rc STREQUAL "0" OR NOT cluster_rc STREQUAL "0")
  message(FATAL_ERROR "exit status: one process ${one_rc}, cluster ${cluster_rc}\n${cluster_out}")
endif()
if(NOT one_out STREQUAL cluster_out)
  message(FATAL_ERROR "standard output differs; cluster mode printed:\n${cluster_out}")
endif()

file(GLOB_RECURSE one_files RELATIVE "${WORK}/one" LIST_DIRECTORIES true "${WORK}/one/*")
file(GLOB_RECURSE cluster_files RELATIVE "${WORK}/cluster" LIST_DIRECTORIES true "${WORK}/cluster/*")
if(NOT one_files STREQUAL cluster_files)
  message(FATAL_ERROR "files differ: one process made '${one_files}', cluster mode '${cluster_files}'")
endif()
foreach(name IN LISTS one_files)
  if(IS_DIRECTORY "${WORK}/one/${name}")
    continue()
  endif()
  file(SHA256 "${WORK}/one/${name}" one_hash)
  file(SHA256 "${WORK}/cluster/${name}" cluster_hash)
  if(NOT one_hash STREQUAL cluster_hash)
    file(READ "${WORK}/cluster/${name}" text LIMIT 2000)
    message(FATAL_ERROR "${name} differs from one process's; cluster mode wrote:\n${text}")
  endif()
endforeach()

file(GLOB left RELATIVE "${WORK}/tmp" "${WORK}/tmp/*")
if(left)
  message(FATAL_ERROR "private directories left behind in ${WORK}/tmp: ${left}")
endif()
