# selfsched-calibrate writes an SIA entry for this machine; the library uses
# it (VP per core) and ignores entries of other machines.
#
#   cmake -DCALIBRATE=exe -DPOWERS=hetero_powers -DWORK=dir -P sia.cmake
function(run out_var)
  execute_process(COMMAND ${ARGN} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${ARGN}\n  exit ${rc}\n${out}\n${err}")
  endif()
  message(STATUS "${out}${err}")
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

set(sia ${WORK}/sia.json)
file(REMOVE ${sia})
run(out ${CALIBRATE} --output ${sia} --repeat 2 --millis 10)
if(NOT out MATCHES "written to")
  message(FATAL_ERROR "selfsched-calibrate did not say where it wrote:\n${out}")
endif()

# The entry: this machine's, every core with 0 < vp <= 1, the fastest at 1.
file(READ ${sia} text)
string(JSON machine MEMBER "${text}" machines 0)
string(JSON cores LENGTH "${text}" machines "${machine}" cores)
set(fastest 0)
math(EXPR last "${cores} - 1")
foreach(c RANGE ${last})
  string(JSON vp GET "${text}" machines "${machine}" cores ${c} vp)
  if(NOT vp GREATER 0 OR vp GREATER 1)
    message(FATAL_ERROR "core ${c} has vp ${vp}; expected 0 < vp <= 1:\n${text}")
  endif()
  if(vp GREATER fastest)
    set(fastest ${vp})
  endif()
endforeach()
if(NOT fastest EQUAL 1)
  message(FATAL_ERROR "the fastest core must have vp 1, has ${fastest}:\n${text}")
endif()
# A wrong entry is named always, without SELFSCHED_VERBOSE, and the run goes
# on with powers from the CPU kinds; a missing file is said only when asked.
function(expect_message file expected)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env SELFSCHED_SIA=${file} SELFSCHED_VERBOSE=
    SELFSCHED_PROFILE=${WORK}/sia_profile_exit.json ${POWERS} ${WORK}/sia_profile.json --source-not "SIA file"
    OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  string(REGEX MATCHALL "selfsched: " said "${err}")
  list(LENGTH said lines)
  if(NOT rc EQUAL 0 OR (expected STREQUAL "" AND NOT lines EQUAL 0) OR
     (NOT expected STREQUAL "" AND (NOT lines EQUAL 1 OR NOT err MATCHES "${expected}")))
    message(FATAL_ERROR "SELFSCHED_SIA=${file}: expected exit 0 and ${lines} message(s) matching '${expected}', got ${rc}:\n${err}")
  endif()
endfunction()
string(JSON wrong SET "${text}" machines "${machine}" cores 0 vp -1)
file(WRITE ${WORK}/sia_negative_vp.json "${wrong}")
expect_message(${WORK}/sia_negative_vp.json "cores\\[0\\]\\.vp: -1; valid: 0 < vp <= 1; thread powers from the CPU kinds")
string(JSON wrong SET "${text}" machines "${machine}" cores 0 pus "[\"zero\"]")
file(WRITE ${WORK}/sia_pu_as_string.json "${wrong}")
expect_message(${WORK}/sia_pu_as_string.json "cores\\[0\\]\\.pus: \"zero\" is not an OS index of a PU")
file(WRITE ${WORK}/sia_not_json.json "{\"machines\": {")
expect_message(${WORK}/sia_not_json.json "sia_not_json.json is not valid JSON")
expect_message(${WORK}/sia_missing.json "")

if(cores LESS 2)
  message("skipped: one core; nothing to weigh")
  return()
endif()

# Make core 1 a quarter as fast: thread powers must follow the SIA entry.
string(JSON text SET "${text}" machines "${machine}" cores 0 vp 1.0)
string(JSON text SET "${text}" machines "${machine}" cores 1 vp 0.25)
string(JSON pu0 GET "${text}" machines "${machine}" cores 0 pus 0)
string(JSON pu1 GET "${text}" machines "${machine}" cores 1 pus 0)
file(WRITE ${WORK}/sia_edited.json "${text}")
run(out ${CMAKE_COMMAND} -E env SELFSCHED_SIA=${WORK}/sia_edited.json SELFSCHED_BIND=true
  SELFSCHED_PROFILE=${WORK}/sia_profile_exit.json ${POWERS} ${WORK}/sia_profile.json
  --source "SIA file ${WORK}/sia_edited.json" --cpu-powers ${pu0}=1,${pu1}=0.25 --distinct-cpus)

# The same numbers filed under another machine: not used.
string(JSON entry GET "${text}" machines "${machine}")
string(JSON text REMOVE "${text}" machines "${machine}")
string(JSON text SET "${text}" machines "another machine | 64 cores" "${entry}")
file(WRITE ${WORK}/sia_other.json "${text}")
run(out ${CMAKE_COMMAND} -E env SELFSCHED_SIA=${WORK}/sia_other.json SELFSCHED_BIND=true
  SELFSCHED_PROFILE=${WORK}/sia_profile_exit.json ${POWERS} ${WORK}/sia_profile.json
  --source-not "SIA file")
