# In a set-uid program libselfsched takes no setting from the environment
# (secure_getenv), the other OMPT tools' variables included: the
# multiplexer neither dlopens the libraries SELFSCHED_TOOL_LIBRARIES or
# OMP_TOOL_LIBRARIES name nor opens the log SELFSCHED_TOOL_VERBOSE_INIT
# names. Checked on a set-uid copy of a program linked with libselfsched;
# skipped where no such copy can be made (not root, a nosuid mount).
# -DTOOL=libcounting_tool.so -DFORMS=omp_loop_forms -DWORK=dir
set(asked SELFSCHED_TOOL_VERBOSE_INIT=stderr SELFSCHED_TOOL_LIBRARIES=${TOOL} OMP_TOOL_LIBRARIES=${TOOL})
set(started "CLIENT TOOL REGISTRATION|counting tool:")

# The same program as any user runs it: the tool and the log are there.
execute_process(COMMAND ${CMAKE_COMMAND} -E env ${asked} OMP_NUM_THREADS=2 ${FORMS} --forms nested gss
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
if(NOT rc EQUAL 0 OR NOT err MATCHES "CLIENT TOOL REGISTRATION" OR NOT err MATCHES "counting tool:")
  message(FATAL_ERROR "without set-uid the tool and its log must start: exit ${rc}\n${err}")
endif()

execute_process(COMMAND id -u OUTPUT_VARIABLE uid OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT uid STREQUAL "0")
  message("skipped: a set-uid copy needs root (uid ${uid})")
  return()
endif()
set(copy ${WORK}/tool_chain_secure/omp_loop_forms)
file(MAKE_DIRECTORY ${WORK}/tool_chain_secure)
file(COPY_FILE ${FORMS} ${copy})
execute_process(COMMAND chown nobody ${copy} RESULT_VARIABLE chown_rc)
execute_process(COMMAND chmod 4755 ${copy} RESULT_VARIABLE chmod_rc)
# ld.so drops LD_SHOW_AUXV in a secure process: its output says the bit took.
execute_process(COMMAND ${CMAKE_COMMAND} -E env LD_SHOW_AUXV=1 OMP_NUM_THREADS=1 ${copy} --forms nested ss
                OUTPUT_VARIABLE auxv ERROR_QUIET TIMEOUT 60)
if(NOT chown_rc EQUAL 0 OR NOT chmod_rc EQUAL 0 OR auxv MATCHES "AT_SECURE")
  message("skipped: the set-uid bit takes no effect on ${copy} (chown ${chown_rc}, chmod ${chmod_rc})")
  return()
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env ${asked} OMP_NUM_THREADS=2 ${copy} --forms nested gss
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
if(NOT rc EQUAL 0 OR err MATCHES "${started}")
  message(FATAL_ERROR "a set-uid program took its OMPT tools or their log from the environment: exit ${rc}\n${err}")
endif()
message(STATUS "set-uid copy: no tool and no log started from the environment")
