# check_exported_symbols(LIB NM ALLOWED LEAST WHAT): the shared library LIB
# exports at least LEAST symbols (fewer: its API is missing) and none whose
# mangled name does not match the regular expression ALLOWED (a leaked
# internal: its signature may change with any refactor, and a leaked template
# instance, std:: or nlohmann::json, or core symbol could bind a program's
# own copy to ours). WHAT names the list the library keeps, for the message.
# Shared by tests/omp/exports.cmake and tests/mpi/exports.cmake.
function(check_exported_symbols lib nm allowed least what)
  execute_process(COMMAND ${nm} -D --defined-only ${lib} OUTPUT_VARIABLE listing RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${nm} failed on ${lib}")
  endif()
  string(REPLACE "\n" ";" lines "${listing}")
  set(leaked "")
  set(count 0)
  foreach(line IN LISTS lines)
    if(line MATCHES "^[0-9a-f]+ [A-Za-z] (.+)$")
      set(symbol ${CMAKE_MATCH_1})
      math(EXPR count "${count} + 1")
      if(NOT symbol MATCHES "${allowed}")
        string(APPEND leaked "  ${symbol}\n")
      endif()
    endif()
  endforeach()
  if(count LESS least)
    message(FATAL_ERROR "only ${count} symbols exported by ${lib}: its API is missing")
  endif()
  if(NOT leaked STREQUAL "")
    message(FATAL_ERROR "${lib} exports symbols outside ${what}'s list:\n${leaked}")
  endif()
endfunction()
