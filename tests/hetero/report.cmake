# selfsched-report on the profile of a real run: the table names the loop,
# the SVG files are well-formed XML, the Gantt chart has one bar per chunk
# and the busy chart one bar per thread and part.
#
#   cmake -DREPORT=exe -DPROGRAM=synthetic -DLIB=libselfsched.so -DWORK=dir [-DXMLLINT=exe] -P report.cmake
set(profile ${WORK}/report_profile.json)
set(charts ${WORK}/report_charts)
file(REMOVE_RECURSE ${charts})
file(REMOVE ${profile})
execute_process(COMMAND ${CMAKE_COMMAND} -E env LD_PRELOAD=${LIB} OMP_NUM_THREADS=2 OMP_SCHEDULE=w-gss
    SELFSCHED_SIA=off SELFSCHED_PROFILE=${profile} SELFSCHED_PROFILE_CHUNKS=1
    ${PROGRAM} --n 3000 --work 20 --profile random
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT EXISTS ${profile})
  message(FATAL_ERROR "the profiled run failed (exit ${rc}):\n${out}\n${err}")
endif()

execute_process(COMMAND ${REPORT} --out ${charts} ${profile} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
message(STATUS "${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "selfsched-report failed (exit ${rc})")
endif()
foreach(expected "synthetic.cpp:[0-9]+ in main" "instance 0  w-gss  n=3000  p=2  makespan [0-9.]+ s  imbalance max/mean"
                 "thread  cpu  power mean Q +iterations  chunks" "charts: .*-gantt.svg .*-busy.svg")
  if(NOT out MATCHES "${expected}")
    message(FATAL_ERROR "the report lacks '${expected}'")
  endif()
endforeach()

# One bar per chunk of the loop, one bar per thread and part.
file(READ ${profile} text)
# No thread waits a negative time (the threads' clocks differ by nanoseconds);
# each has the Q its requests read (w-gss is weighted).
string(JSON threads LENGTH "${text}" sites 0 loops 0 threads)
math(EXPR last_thread "${threads} - 1")
foreach(t RANGE ${last_thread})
  string(JSON wait GET "${text}" sites 0 loops 0 threads ${t} wait_s)
  if(wait MATCHES "^-")
    message(FATAL_ERROR "thread ${t} waited ${wait} s")
  endif()
  string(JSON queue ERROR_VARIABLE missing GET "${text}" sites 0 loops 0 threads ${t} mean_queue)
  if(missing OR queue LESS 1)
    message(FATAL_ERROR "thread ${t} of the w-gss loop has no mean_queue of at least 1: ${missing}${queue}")
  endif()
endforeach()
string(JSON chunks LENGTH "${text}" sites 0 loops 0 chunks)
file(GLOB gantt ${charts}/*-gantt.svg)
file(GLOB busy ${charts}/*-busy.svg)
list(LENGTH gantt files)
if(NOT files EQUAL 1 OR NOT busy)
  message(FATAL_ERROR "expected one Gantt and one busy chart in ${charts}, found: ${gantt} ${busy}")
endif()
file(READ ${gantt} svg)
string(REGEX MATCHALL "<rect class=\"chunk\"" bars "${svg}")
list(LENGTH bars bar_count)
if(NOT bar_count EQUAL chunks)
  message(FATAL_ERROR "the Gantt chart has ${bar_count} chunk bars for the profile's ${chunks} chunks")
endif()
file(READ ${busy} svg)
foreach(part busy scheduling wait)
  string(REGEX MATCHALL "<rect class=\"${part}\"" bars "${svg}")
  list(LENGTH bars bar_count)
  if(NOT bar_count EQUAL 2)
    message(FATAL_ERROR "the busy chart has ${bar_count} '${part}' bars for 2 threads")
  endif()
endforeach()

# Well-formed XML: xmllint when there is one, else the shape of the file.
foreach(file ${gantt} ${busy})
  if(XMLLINT)
    execute_process(COMMAND ${XMLLINT} --noout ${file} ERROR_VARIABLE err RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "${file} is not well-formed XML:\n${err}")
    endif()
  else()
    file(READ ${file} svg)
    if(NOT svg MATCHES "^<\\?xml [^\n]*\n<svg xmlns=\"http://www.w3.org/2000/svg\"" OR NOT svg MATCHES "</svg>\n$")
      message(FATAL_ERROR "${file} does not look like an SVG document")
    endif()
  endif()
endforeach()

# A technique that does not weight reads no Q, and a profile does not read
# it for it (a reading stops a thread for about a millisecond): no
# mean_queue, and '-' in the report's column.
set(plain ${WORK}/report_profile_plain.json)
file(REMOVE ${plain})
execute_process(COMMAND ${CMAKE_COMMAND} -E env LD_PRELOAD=${LIB} OMP_NUM_THREADS=2 OMP_SCHEDULE=gss
    SELFSCHED_SIA=off SELFSCHED_PROFILE=${plain} ${PROGRAM} --n 3000 --work 20 --profile random
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT EXISTS ${plain})
  message(FATAL_ERROR "the profiled gss run failed (exit ${rc}):\n${out}\n${err}")
endif()
file(READ ${plain} text)
foreach(t 0 1)
  string(JSON queue ERROR_VARIABLE missing GET "${text}" sites 0 loops 0 threads ${t} mean_queue)
  if(NOT missing)
    message(FATAL_ERROR "thread ${t} of the gss loop has a mean_queue (${queue}) that no request read")
  endif()
endforeach()
execute_process(COMMAND ${REPORT} --no-charts ${plain} OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT out MATCHES "\n +T0 +-?[0-9]+ +[0-9.]+ +- +[0-9]+ ")
  message(FATAL_ERROR "the report of the gss loop does not show '-' for mean Q (exit ${rc}):\n${out}")
endif()

# Bad input: one message naming it, status 2.
execute_process(COMMAND ${REPORT} --bogus ${profile} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 2 OR NOT err MATCHES "unknown option '--bogus'; valid: --loop, --all, --out, --no-charts, --help")
  message(FATAL_ERROR "--bogus: expected status 2 and the valid options, got ${rc}: ${err}")
endif()

# --loop picks by site and instance; a site that is not there is an error.
execute_process(COMMAND ${REPORT} --loop "synthetic.cpp#0" --no-charts ${profile} OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT out MATCHES "instance 0  w-gss" OR out MATCHES "charts:")
  message(FATAL_ERROR "--loop synthetic.cpp#0 --no-charts: exit ${rc}\n${out}")
endif()
execute_process(COMMAND ${REPORT} --loop nowhere.cpp ${profile} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 1 OR NOT err MATCHES "no loop matches --loop")
  message(FATAL_ERROR "--loop nowhere.cpp: expected status 1 and 'no loop matches', got ${rc}: ${err}")
endif()

# A profile that is not one, or was tampered with: one line naming the file
# and the wrong field, status 2, no chart and no abort.
file(READ ${profile} good)
function(expect_refused name content expected)
  set(bad ${WORK}/report_bad_${name}.json)
  file(WRITE ${bad} "${content}")
  execute_process(COMMAND ${REPORT} --no-charts ${bad} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 2 OR NOT err MATCHES "${expected}")
    message(FATAL_ERROR "profile ${name}: expected status 2 and '${expected}', got ${rc}:\n${err}\n${out}")
  endif()
endfunction()
string(REGEX REPLACE "\"iterations\": [0-9]+" "\"iterations\": -5" negative "${good}")
expect_refused(negative_count "${negative}" "threads\\[[0-9]+\\]\\.iterations: expected an integer >= 0, got -5")
string(REGEX REPLACE "\"n\": ([0-9]+)" "\"n\": \"\\1\"" quoted "${good}")
expect_refused(number_as_string "${quoted}" "loops\\[0\\]\\.n: expected an integer >= 0, got \"3000\"")
string(REGEX REPLACE "\"busy_s\": [0-9.e+-]+" "\"busy_s\": null" null_time "${good}")
expect_refused(null_time "${null_time}" "busy_s: expected a finite number >= 0, got null")
string(REPEAT "[" 100000 deep)
expect_refused(deep "${deep}" "nests deeper than 32 levels")
expect_refused(not_json "{\"sites\": [" "is not valid JSON")
expect_refused(no_sites "{\"selfsched_profile\": 1}" "is not a selfsched profile: sites: missing")
# Cluster mode's section (selfsched-report shows it per rank), checked as the rest.
set(region "{\"region\": \"a.c:1\", \"next_run\": \"shared\", \"runs_shared\": 1, \"runs_replicated\": 0, \"runs_replicated_unchecked\": 0, \"merges\": 1, \"pages_sent\": -3, \"bytes_sent\": 0, \"merge_s\": 0}")
expect_refused(cluster_rank "{\"sites\": [], \"cluster\": {\"rank\": 2, \"ranks\": 2, \"write_tracking\": \"kernel\", \"regions\": []}}"
  "cluster.rank: 2 is not below cluster.ranks")
expect_refused(cluster_pages "{\"sites\": [], \"cluster\": {\"rank\": 0, \"ranks\": 2, \"write_tracking\": \"kernel\", \"regions\": [${region}]}}"
  "cluster.regions\\[0\\]\\.pages_sent: expected an integer >= 0, got -3")
execute_process(COMMAND ${REPORT} ${WORK} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 2 OR NOT err MATCHES "is not a regular file")
  message(FATAL_ERROR "a directory as the profile: expected status 2 and 'not a regular file', got ${rc}: ${err}")
endif()

# A loop left to libomp, profiled on request: the report says what its
# columns mean, and draws its busy chart (no Gantt chart: no chunks seen).
set(forwarded ${WORK}/report_forwarded.json)
file(REMOVE ${forwarded})
execute_process(COMMAND ${CMAKE_COMMAND} -E env LD_PRELOAD=${LIB} OMP_NUM_THREADS=2 OMP_SCHEDULE=dynamic,8
    SELFSCHED_SIA=off SELFSCHED_PROFILE=${forwarded} SELFSCHED_PROFILE_FORWARDED=1
    ${PROGRAM} --n 3000 --work 20 --profile random
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the run with a forwarded loop failed (exit ${rc}):\n${out}\n${err}")
endif()
execute_process(COMMAND ${REPORT} --out ${charts}-forwarded ${forwarded} OUTPUT_VARIABLE out ERROR_VARIABLE err
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT out MATCHES "instance 0  libomp dynamic,8  n=3000  p=2" OR NOT out MATCHES "left to the runtime")
  message(FATAL_ERROR "selfsched-report on a forwarded loop (exit ${rc}):\n${out}${err}")
endif()
