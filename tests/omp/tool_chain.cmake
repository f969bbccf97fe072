# Another OMPT tool beside selfsched's: named in OMP_TOOL_LIBRARIES, it is
# started as a client of selfsched's tool (ompt-multiplex.h) and sees its
# events, while selfsched still serves the runtime loop. OMP_TOOL_LIBRARIES
# naming libselfsched itself must not recurse. Nested regions beside the
# tool: each keeps its own parallel data, no team is mixed up with another.
# A tool the program links (not named anywhere) is started alike: libomp
# would find selfsched's ompt_start_tool first and never start it. A tool
# named in SELFSCHED_TOOL_LIBRARIES (the settings table's row) is started
# as one named in OMP_TOOL_LIBRARIES.
# -DLIB=libselfsched.so -DTOOL=libcounting_tool.so -DPROGRAM=omp_plain_program
# -DLINKED_TOOL_PROGRAM=the same linked with the tool -DFORMS=omp_loop_forms -DWORK=dir
file(MAKE_DIRECTORY ${WORK})
set(profile ${WORK}/tool_chain_profile.json)

# The profile the last run wrote must show fss serving its runtime loop.
function(expect_fss_served beside)
  file(READ ${profile} text)
  if(NOT text MATCHES "\"technique\": \"fss\"")
    message(FATAL_ERROR "selfsched did not serve the runtime loop next to ${beside}:\n${text}")
  endif()
endfunction()

file(REMOVE ${profile})
execute_process(COMMAND ${CMAKE_COMMAND} -E env LD_PRELOAD=${LIB} OMP_NUM_THREADS=2 OMP_SCHEDULE=fss
                        OMP_TOOL_LIBRARIES=${TOOL} SELFSCHED_PROFILE=${profile} ${PROGRAM} 20000
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "with a client tool: exit ${rc}\n${out}\n${err}")
endif()
if(NOT err MATCHES "counting tool: 2 parallel regions")
  message(FATAL_ERROR "the client tool did not see the program's 2 regions:\n${err}")
endif()
if(NOT err MATCHES ", 0 saw parallel data not its own")
  message(FATAL_ERROR "the client tool's parallel data was not kept apart from selfsched's:\n${err}")
endif()
if(err MATCHES "selfsched:")
  message(FATAL_ERROR "selfsched spoke for a correct configuration:\n${err}")
endif()
expect_fss_served("the client tool")

file(REMOVE ${profile})
execute_process(COMMAND ${CMAKE_COMMAND} -E env LD_PRELOAD=${LIB} OMP_NUM_THREADS=2 OMP_SCHEDULE=fss
                        SELFSCHED_TOOL_LIBRARIES=${TOOL} SELFSCHED_PROFILE=${profile} ${PROGRAM} 20000
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
if(NOT rc EQUAL 0 OR NOT err MATCHES "counting tool: 2 parallel regions" OR err MATCHES "selfsched:")
  message(FATAL_ERROR "a client tool named in SELFSCHED_TOOL_LIBRARIES: exit ${rc}\n${out}\n${err}")
endif()
expect_fss_served("a tool named in SELFSCHED_TOOL_LIBRARIES")

# The loops libselfsched leaves to libomp, as the client tool sees them:
# named by the program's address (libselfsched forwards with a tail call),
# also while a profile of forwarded loops is being written.
foreach(profiled "" "SELFSCHED_PROFILE=${WORK}/tool_chain_forwarded.json;SELFSCHED_PROFILE_FORWARDED=1")
  execute_process(COMMAND ${CMAKE_COMMAND} -E env LD_PRELOAD=${LIB} OMP_NUM_THREADS=2 OMP_SCHEDULE=dynamic,4
                          OMP_TOOL_LIBRARIES=${TOOL} ${profiled} ${PROGRAM} 20000
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT err MATCHES ", ([1-9][0-9]*) loops, 0 named outside the program")
    message(FATAL_ERROR "loops left to libomp, ${profiled}: a client tool must see them at the program's address "
                        "(exit ${rc}):\n${err}")
  endif()
endforeach()

file(REMOVE ${profile})
execute_process(COMMAND ${CMAKE_COMMAND} -E env LD_PRELOAD=${LIB} OMP_NUM_THREADS=2 OMP_SCHEDULE=fss
                        SELFSCHED_PROFILE=${profile} ${LINKED_TOOL_PROGRAM} 20000
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
if(NOT rc EQUAL 0 OR NOT err MATCHES "counting tool: 2 parallel regions" OR NOT err MATCHES ", 0 saw parallel data not its own")
  message(FATAL_ERROR "a tool linked into the program was not started beside selfsched: exit ${rc}\n${out}\n${err}")
endif()
expect_fss_served("the linked tool")

execute_process(COMMAND ${CMAKE_COMMAND} -E env LD_PRELOAD=${LIB} OMP_NUM_THREADS=2 OMP_SCHEDULE=gss
                        OMP_TOOL_LIBRARIES=${LIB}:${TOOL} ${PROGRAM} 20000
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
if(NOT rc EQUAL 0 OR NOT err MATCHES "counting tool: 2 parallel regions")
  message(FATAL_ERROR "OMP_TOOL_LIBRARIES naming libselfsched too: exit ${rc}\n${out}\n${err}")
endif()

execute_process(COMMAND ${CMAKE_COMMAND} -E env OMP_TOOL_LIBRARIES=${TOOL} ${FORMS} --forms nested gss w-gss tss ss auto
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
if(NOT rc EQUAL 0 OR NOT err MATCHES ", 0 saw parallel data not its own")
  message(FATAL_ERROR "nested regions beside a client tool: exit ${rc}\n${out}\n${err}")
endif()

# The multiplexer gets its variables from the settings table, not from its
# own getenv: a SELFSCHED_TOOL_LIBRARIES naming libselfsched does not start
# it as its own client (that would recurse), and its log of the clients'
# start goes where SELFSCHED_TOOL_VERBOSE_INIT says, naming the list handed
# to it, also to a file while libomp's OMP_TOOL_VERBOSE_INIT is unset.
execute_process(COMMAND ${CMAKE_COMMAND} -E env LD_PRELOAD=${LIB} OMP_NUM_THREADS=2 OMP_SCHEDULE=gss
                        SELFSCHED_TOOL_LIBRARIES=${LIB}:${TOOL} SELFSCHED_TOOL_VERBOSE_INIT=stderr ${PROGRAM} 20000
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
if(NOT rc EQUAL 0 OR NOT err MATCHES "counting tool: 2 parallel regions")
  message(FATAL_ERROR "SELFSCHED_TOOL_LIBRARIES naming libselfsched too: exit ${rc}\n${out}\n${err}")
endif()
string(FIND "${err}" "SELFSCHED_TOOL_LIBRARIES = ${TOOL}\n" at)
if(at EQUAL -1)
  message(FATAL_ERROR "the multiplexer's log must show the client list without libselfsched:\n${err}")
endif()
set(log ${WORK}/tool_chain_multiplex.log)
file(REMOVE ${log})
execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=OMP_TOOL_VERBOSE_INIT LD_PRELOAD=${LIB} OMP_NUM_THREADS=2
                        OMP_SCHEDULE=fss OMP_TOOL_LIBRARIES=${TOOL} SELFSCHED_TOOL_VERBOSE_INIT=${log} ${PROGRAM} 20000
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
if(NOT rc EQUAL 0 OR NOT err MATCHES "counting tool: 2 parallel regions" OR NOT EXISTS ${log})
  message(FATAL_ERROR "SELFSCHED_TOOL_VERBOSE_INIT=${log}: exit ${rc}\n${out}\n${err}")
endif()
file(READ ${log} text)
string(FIND "${text}" "SELFSCHED_TOOL_LIBRARIES = ${TOOL}\n" at)
if(at EQUAL -1)
  message(FATAL_ERROR "the multiplexer's log file must name the client OMP_TOOL_LIBRARIES gave:\n${text}")
endif()
