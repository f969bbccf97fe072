# libselfsched exports only what omp_ext/exports.map allows: the interposed
# libomp and libgomp entry points, the OMPT tool entry, the C API and the MPI layer's
# seam (selfsched::omp::bridge, install_outer_source); no other internal
# function of the library, whose signatures may change with any refactor.
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
    # outer_source's type information too, where a build emits it (UBSan's vptr check).
    if(NOT symbol MATCHES "^(__kmpc_|GOMP_|omp_|kmp_|ompt_start_tool$|selfsched_|_ZN9selfsched3omp6bridge|_ZN9selfsched3omp20install_outer_source|_ZT[ISV]N9selfsched3omp12outer_sourceE$)")
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
