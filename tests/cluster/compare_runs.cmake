# Runs a plain OpenMP program once as one process and once under
# selfsched-mpirun --cluster, each in a directory of its own, and checks that
# cluster mode changed nothing a user sees: the same exit status, the same
# standard output, the same files, byte for byte (each written once), and no
# private directory left behind.
#
#   cmake -DMPIRUN=selfsched-mpirun -DRANKS=n [-DTHREADS=t] -DPRELOAD=libselfsched.so -DWORK=dir
#         [-DSEED=name] [-DINPUT=file | -DINPUT_NUMBERS=count | -DINPUT_OPEN=1]
#         [-DEXPECT_STDERR=regex | -DQUIET=1] [-DSORTED=1] [-DEXPECT_EXIT=status]
#         -P compare_runs.cmake -- PROGRAM ARGS...
#
# The one process runs ranks x threads threads (THREADS: per rank, default 1)
# with libselfsched preloaded and every dynamic loop its own, under auto
# (libomp 19's nonmonotonic dynamic loops get lastprivate wrong under load:
# the reference must be right). MPIRUN may be a list (selfsched-netns run
# -- selfsched-mpirun). EXPECT_STDERR: a regex cluster mode's standard error
# must match (a conflict's one message); QUIET: cluster mode says nothing.
#
# SEED: a file the directory holds before each run ("before\n"). INPUT: the
# runs' standard input. INPUT_NUMBERS: a file of that many numbers made
# here, as INPUT. INPUT_OPEN: standard input a pipe nobody writes to or
# closes (a program that never reads it must not wait for it). SORTED: the
# program's threads print lines in any order; their sorted lists are compared.
# EXPECT_EXIT: both runs end with this status (default 0).
cmake_policy(SET CMP0007 NEW)  # SORTED: empty lines are lines
include(${CMAKE_CURRENT_LIST_DIR}/../command_after_dashes.cmake)
command_after_dashes(command)

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

function(run dir out_var rc_var err_var)
  set(err "")
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
  set(${err_var} "${err}" PARENT_SCOPE)
endfunction()

if(NOT DEFINED THREADS)
  set(THREADS 1)
endif()
math(EXPR all_threads "${RANKS} * ${THREADS}")
run("${WORK}/one" one_out one_rc one_err ${CMAKE_COMMAND} -E env OMP_NUM_THREADS=${all_threads} LD_PRELOAD=${PRELOAD}
    OMP_SCHEDULE=auto SELFSCHED_OVERRIDE=dynamic,guided ${command})
run("${WORK}/cluster" cluster_out cluster_rc cluster_err ${CMAKE_COMMAND} -E env OMP_NUM_THREADS=${THREADS}
    TMPDIR=${WORK}/tmp ${MPIRUN} --cluster -np ${RANKS} ${command})
message(STATUS "one process:\n${one_out}")

if(NOT DEFINED EXPECT_EXIT)
  set(EXPECT_EXIT 0)
endif()
if(NOT one_rc STREQUAL "${EXPECT_EXIT}" OR NOT cluster_rc STREQUAL "${EXPECT_EXIT}")
  message(FATAL_ERROR "exit status: one process ${one_rc}, cluster ${cluster_rc}\n${cluster_out}\n${cluster_err}")
endif()
if(DEFINED EXPECT_STDERR AND NOT cluster_err MATCHES "${EXPECT_STDERR}")
  message(FATAL_ERROR "cluster mode's stderr does not match '${EXPECT_STDERR}':\n${cluster_err}")
endif()
if(QUIET AND cluster_err MATCHES "selfsched-mpirun --cluster:|selfsched:")
  message(FATAL_ERROR "cluster mode said something:\n${cluster_err}")
endif()
if(SORTED)
  foreach(run one cluster)
    string(REPLACE ";" "\\;" lines "${${run}_out}")
    string(REPLACE "\n" ";" lines "${lines}")
    list(SORT lines)
    set(${run}_out "${lines}")
  endforeach()
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
