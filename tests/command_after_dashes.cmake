# command_after_dashes(VAR): the words after `--` on a `cmake -P script.cmake
# -- PROGRAM ARGS...` command line, as a list in VAR (empty without `--`).
# Shared by the scripts that run a program given that way.
function(command_after_dashes var)
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
  set(${var} "${command}" PARENT_SCOPE)
endfunction()
