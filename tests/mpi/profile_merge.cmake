# selfsched-report over the profiles of an MPI job's ranks: one shared loop
# (mpi_mandelbrot, 2 ranks x 2 threads) profiled per rank, then shown as one
# loop over all four threads, labelled by rank, whose iterations add up to
# the loop's n and whose Gantt chart has every rank's chunks.
# -DMPIRUN=selfsched-mpirun -DPROGRAM=mpi_mandelbrot -DREPORT=selfsched-report -DWORK=dir
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${ARGN}: exit ${rc}\n${out}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

set(lines 300)
run(${CMAKE_COMMAND} -E env OMP_NUM_THREADS=2 OMP_SCHEDULE=gss SELFSCHED_PROFILE=${WORK}/prof.json
    SELFSCHED_PROFILE_CHUNKS=1 ${MPIRUN} -np 2 ${PROGRAM} --width 200 --height ${lines} --max-iter 300)
run(${REPORT} --out ${WORK}/charts ${WORK}/prof.rank0.json ${WORK}/prof.rank1.json)

# Rank 1 waits at least for its first outer chunk from rank 0: that time is
# in a column of its own ("ranks s"), not in scheduling.
foreach(expected "prof.rank0.json: VP from [^\n]*, rank 0" "prof.rank1.json: VP from [^\n]*, rank 1" "merged: "
        " R0\\.T0 " " R0\\.T1 " " R1\\.T0 " " R1\\.T1 " "wait s +ranks s\n")
  if(NOT out MATCHES "${expected}")
    message(FATAL_ERROR "the merged report lacks '${expected}':\n${out}")
  endif()
endforeach()

# The shared loop's rows: their iterations add up to the image's lines.
string(REGEX MATCHALL " R[0-9]+\\.T[0-9]+ +-?[0-9]+ +[0-9.]+ +([0-9.]+|-) +[0-9]+ " rows "${out}")
set(total 0)
foreach(row IN LISTS rows)
  string(REGEX REPLACE ".* ([0-9]+) $" "\\1" iterations "${row}")
  math(EXPR total "${total} + ${iterations}")
endforeach()
if(NOT total EQUAL lines)
  message(FATAL_ERROR "the ranks' threads ran ${total} iterations in the merged loop, expected ${lines}:\n${out}")
endif()

# One Gantt chart over both ranks: bars of rank 0 and of rank 1.
file(GLOB gantt ${WORK}/charts/*-gantt.svg)
list(LENGTH gantt charts)
if(NOT charts EQUAL 1)
  message(FATAL_ERROR "expected one Gantt chart, found: ${gantt}")
endif()
file(READ ${gantt} svg)
foreach(label "R0.T0" "R1.T0")
  string(FIND "${svg}" "${label}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the Gantt chart has no row ${label}")
  endif()
endforeach()
