# libselfsched exports only what omp_ext/exports.map allows: the interposed
# libomp entry points, the OMPT tool entry, the C API and selfsched::omp.
# A leaked template instance (std::, nlohmann::json) or core symbol could bind
# a program's own copy to ours. Run with -DLIB=<libselfsched.so> -DNM=<nm>.
execute_process(COMMAND ${NM} -D --defined-only ${LIB} OUTPUT_VARIABLE listing RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} failed on ${LIB}")
endif()
string(REPLACE "\n" ";" lines "${listing}")
set(leaked "")
set(count 0)
foreach(line IN LISTS lines)
  if(line MATCHES "^[0-9a-f]+ [A-Za-z] (.+)$")
    set(symbol ${CMAKE_MATCH_1})
    math(EXPR count "${count} + 1")
    # exports.map's selfsched::omp::* matches demangled names, whose return
    # type comes first for a function template: a standard-library instance
    # returning one of our types (selfsched::omp::chunk_event& std::vector<...>
    # ::emplace_back) is exported when the compiler keeps it out of line (in
    # sanitizer builds). Only code using selfsched::omp types can bind to it.
    if(NOT symbol MATCHES "^(__kmpc_|omp_|kmp_|ompt_start_tool$|selfsched_|_ZN9selfsched3omp|_ZNK9selfsched3omp)"
       AND NOT symbol MATCHES "^_ZN?St.*9selfsched3omp")
      string(APPEND leaked "  ${symbol}\n")
    endif()
  endif()
endforeach()
if(count LESS 20)
  message(FATAL_ERROR "only ${count} symbols exported by ${LIB}: the entry points are missing")
endif()
if(NOT leaked STREQUAL "")
  message(FATAL_ERROR "libselfsched exports symbols outside exports.map's list:\n${leaked}")
endif()
