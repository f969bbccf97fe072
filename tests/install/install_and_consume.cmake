# Installs the build tree into a scratch prefix, then builds and runs two
# user programs against it: one through find_package(selfsched), one through
# pkg-config. Run with -DBUILD=<build dir> -DWORK=<scratch dir>
# -DCXX=<C++ compiler> -DCC=<C compiler> -DSOURCE=<this directory> -DLIBDIR=<lib dir under the prefix>.
# A sanitizer build (SELFSCHED_SANITIZE) adds -DSANITIZER_FLAGS=<compile and
# link flags> -DSANITIZER_LINK_FLAGS=<link flags> (;-lists): a program that
# links a sanitized libselfsched is built with the same sanitizer.
string(JOIN " " sanitizer_flags ${SANITIZER_FLAGS})
string(JOIN " " sanitizer_link_flags ${SANITIZER_FLAGS} ${SANITIZER_LINK_FLAGS})
set(prefix ${WORK}/prefix)
file(REMOVE_RECURSE ${WORK})

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

run("cmake --install" ${CMAKE_COMMAND} --install ${BUILD} --prefix ${prefix})

run("configuring the find_package consumer" ${CMAKE_COMMAND} -S ${SOURCE}/consumer -B ${WORK}/consumer -G Ninja
    -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_RPATH=${prefix}/${LIBDIR}
    "-DCMAKE_CXX_FLAGS=${sanitizer_flags}" "-DCMAKE_EXE_LINKER_FLAGS=${sanitizer_link_flags}")
run("building the find_package consumer" ${CMAKE_COMMAND} --build ${WORK}/consumer)
run("running the find_package consumer" ${WORK}/consumer/consumer)
if(NOT last_output MATCHES "consumer ok: w-fss, gss,3")
  message(FATAL_ERROR "unexpected output of the find_package consumer: ${last_output}")
endif()

find_program(PKG_CONFIG pkg-config REQUIRED)
set(ENV{PKG_CONFIG_PATH} ${prefix}/${LIBDIR}/pkgconfig)
run("pkg-config selfsched" ${PKG_CONFIG} --cflags --libs selfsched)
string(STRIP "${last_output}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
run("compiling with pkg-config's flags" ${CC} ${SOURCE}/consumer/pkgconfig_consumer.c ${flags} ${SANITIZER_FLAGS} ${SANITIZER_LINK_FLAGS}
    -Wl,-rpath,${prefix}/${LIBDIR} -o ${WORK}/pkgconfig_consumer)
run("running the pkg-config consumer" ${WORK}/pkgconfig_consumer)
if(NOT last_output MATCHES "pkg-config consumer ok: tss")
  message(FATAL_ERROR "unexpected output of the pkg-config consumer: ${last_output}")
endif()
run("pkg-config selfsched-core" ${PKG_CONFIG} --libs selfsched-core)
message(STATUS "installed selfsched found by find_package and pkg-config")
