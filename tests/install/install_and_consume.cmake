# Installs the build tree into a scratch prefix, moves it (the prefix must be
# relocatable), then builds and runs user programs against it: C++20 through
# find_package(selfsched), C-only CMake (the C API, and the MPI bridge's),
# C++17 with the MPI bridge's C++ API, and C through pkg-config (selfsched,
# selfsched-core, selfsched-mpi). Installed libraries and tools must carry a
# RUNPATH that finds their own libraries. Run with -DBUILD=<build dir>
# -DWORK=<scratch dir> -DCXX=<C++ compiler> -DCC=<C compiler> [-DGCC=<gcc> -DGXX=<g++>]
# -DSOURCE=<this directory> -DLIBDIR=<lib dir under the prefix> -DWITH_MPI=0|1
# -DMANDIR=<man dir under the prefix> -DWITH_MANUAL_PAGES=0|1 (help2man found).
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

# run(), and its output must match `expected`.
function(run_expecting what expected)
  run("${what}" ${ARGN})
  if(NOT last_output MATCHES "${expected}")
    message(FATAL_ERROR "unexpected output of ${what} (expected '${expected}'):\n${last_output}")
  endif()
endfunction()

run("cmake --install" ${CMAKE_COMMAND} --install ${BUILD} --prefix ${WORK}/first-prefix)
file(RENAME ${WORK}/first-prefix ${prefix})

# Each installed library and tool finds what it links by its RUNPATH.
file(GLOB installed ${prefix}/${LIBDIR}/libselfsched_*.so ${prefix}/bin/selfsched-chunks)
foreach(file ${installed})
  run("readelf -d ${file}" readelf -d ${file})
  if(NOT last_output MATCHES "RUNPATH[^\n]*[$]ORIGIN")
    message(FATAL_ERROR "${file} has no RUNPATH with $ORIGIN:\n${last_output}")
  endif()
endforeach()
# libselfsched, preloaded into every process of a job, links only system
# libraries: no RUNPATH for the loader to search (omp_ext/CMakeLists.txt).
# A sanitizer build links every binary with the sanitizer runtime's
# directory as its RUNPATH (cmake/sanitizers.cmake): that one path is
# allowed there, and nothing else.
set(sanitizer_runpath "")
foreach(flag ${SANITIZER_LINK_FLAGS})
  if(flag MATCHES "^-Wl,-rpath,(.+)$")
    set(sanitizer_runpath "${CMAKE_MATCH_1}")
  endif()
endforeach()
run("readelf -d libselfsched.so" readelf -d ${prefix}/${LIBDIR}/libselfsched.so)
if(last_output MATCHES "R(UN)?PATH\\)[^[]*\\[([^]\n]*)\\]" AND NOT CMAKE_MATCH_2 STREQUAL sanitizer_runpath)
  message(FATAL_ERROR "libselfsched.so has a search path the loader would search at every start:\n${last_output}")
endif()
# Each installed tool has its manual page, made from its own --help.
if(WITH_MANUAL_PAGES)
  file(GLOB tools ${prefix}/bin/selfsched-*)
  foreach(tool ${tools})
    get_filename_component(name ${tool} NAME)
    set(page ${prefix}/${MANDIR}/man1/${name}.1)
    if(NOT EXISTS ${page})
      message(FATAL_ERROR "${name} is installed without its manual page ${page}")
    endif()
    file(READ ${page} text)
    string(TOUPPER ${name} title)
    if(NOT text MATCHES "[.]TH ${title} " OR NOT text MATCHES "help")
      message(FATAL_ERROR "${page} is not ${name}'s manual page (no .TH line or no --help in it)")
    endif()
  endforeach()
endif()
run("the moved prefix's selfsched-chunks" ${prefix}/bin/selfsched-chunks --technique gss --n 100 --p 2 --sizes)

# Each CMake consumer, by each compiler (clang; gcc, whose programs run on
# libgomp) and, for C++, as C++17 and C++20: a project of any of these finds
# and uses every component.
set(cxx_compilers ${CXX})
set(c_compilers ${CC})
if(GCC AND GXX)
  list(APPEND cxx_compilers ${GXX})
  list(APPEND c_compilers ${GCC})
endif()
set(compiler_flags "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_EXE_LINKER_FLAGS=${sanitizer_link_flags}")

function(consumer name source compiler_variable compiler)
  get_filename_component(compiler_name ${compiler} NAME)
  set(dir ${WORK}/${name}-${compiler_name})
  set(extra)
  if(ARGN)
    set(dir ${dir}-c++${ARGN})
    set(extra -DCMAKE_CXX_STANDARD=${ARGN})
  endif()
  run("configuring ${name} (${compiler_name} ${ARGN})" ${CMAKE_COMMAND} -S ${SOURCE}/${source} -B ${dir} -G Ninja
      -D${compiler_variable}=${compiler} ${compiler_flags} ${extra}
      "-DCMAKE_CXX_FLAGS=${sanitizer_flags}" "-DCMAKE_C_FLAGS=${sanitizer_flags}")
  run("building ${name} (${compiler_name} ${ARGN})" ${CMAKE_COMMAND} --build ${dir})
  set(consumer_dir ${dir} PARENT_SCOPE)
endfunction()

foreach(cxx ${cxx_compilers})
  foreach(standard 17 20)
    consumer(consumer consumer CMAKE_CXX_COMPILER ${cxx} ${standard})
    run_expecting("running the find_package consumer (${cxx}, C++${standard})" "consumer ok: w-fss, gss,3"
                  ${consumer_dir}/consumer)
    if(WITH_MPI)
      # The MPI bridge's C++ API (selfsched::mpi raises C++17 to C++20 for
      # targets that include selfsched/mpi.hpp), on two ranks by the
      # installed selfsched-mpirun.
      consumer(consumer_mpi consumer_mpi CMAKE_CXX_COMPILER ${cxx} ${standard})
      run_expecting("running the MPI consumer (${cxx}, C++${standard}) on 2 ranks" "MPI consumer ok: 0 rows wrong"
                    ${prefix}/bin/selfsched-mpirun --threads 1 -np 2 ${consumer_dir}/mpi_consumer)
    endif()
  endforeach()
endforeach()

# A C-only project (no C++ enabled): the C API, and the MPI bridge's.
foreach(cc ${c_compilers})
  consumer(consumer_c consumer_c CMAKE_C_COMPILER ${cc})
  run_expecting("running the C consumer (${cc})" "pkg-config consumer ok: tss" ${consumer_dir}/c_consumer)
  if(WITH_MPI)
    run_expecting("running the C MPI consumer (${cc}) on 2 ranks" "MPI consumer ok: 0 rows wrong"
                  ${prefix}/bin/selfsched-mpirun --threads 1 -np 2 ${consumer_dir}/c_mpi_consumer)
  endif()
endforeach()

find_program(PKG_CONFIG pkg-config REQUIRED)
set(ENV{PKG_CONFIG_PATH} ${prefix}/${LIBDIR}/pkgconfig)
run("pkg-config selfsched" ${PKG_CONFIG} --cflags --libs selfsched)
string(STRIP "${last_output}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
run("compiling with pkg-config's flags" ${CC} ${SOURCE}/consumer/pkgconfig_consumer.c ${flags} ${SANITIZER_FLAGS} ${SANITIZER_LINK_FLAGS}
    -Wl,-rpath,${prefix}/${LIBDIR} -o ${WORK}/pkgconfig_consumer)
run_expecting("running the pkg-config consumer" "pkg-config consumer ok: tss" ${WORK}/pkgconfig_consumer)
# The same program from gcc (libgomp), where the build has a gcc to try.
if(GCC)
  run("compiling with gcc and pkg-config's flags" ${GCC} ${SOURCE}/consumer/pkgconfig_consumer.c ${flags}
      -Wl,-rpath,${prefix}/${LIBDIR} -o ${WORK}/pkgconfig_consumer_gcc)
  run_expecting("running the gcc pkg-config consumer" "pkg-config consumer ok: tss" ${WORK}/pkgconfig_consumer_gcc)
endif()
run("pkg-config selfsched-core" ${PKG_CONFIG} --libs selfsched-core)
if(WITH_MPI)
  run("pkg-config selfsched-mpi" ${PKG_CONFIG} --cflags --libs selfsched-mpi)
  string(STRIP "${last_output}" flags)
  separate_arguments(flags UNIX_COMMAND "${flags}")
  run("compiling the C MPI consumer with pkg-config's flags" ${CC} ${SOURCE}/consumer_c/c_mpi_consumer.c ${flags}
      ${SANITIZER_FLAGS} ${SANITIZER_LINK_FLAGS} -o ${WORK}/pkgconfig_mpi_consumer)
endif()
message(STATUS "installed selfsched found by find_package and pkg-config")
