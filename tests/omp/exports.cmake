# libselfsched exports only what omp_ext/exports.map allows: the interposed
# libomp and libgomp entry points, the OMPT tool entry, the C API and the MPI
# layer's seam (selfsched::omp::bridge, install_outer_source); no other
# internal function of the library. Run with -DLIB=<libselfsched.so> -DNM=<nm>.
include(${CMAKE_CURRENT_LIST_DIR}/../exported_symbols.cmake)
set(c_api "selfsched_(set_schedule|get_schedule|write_profile|wavefront_(prepare|work|finish|error)|task_pool_(create|destroy|put|stop|last_completed_level|error|begin|work|end))")
# outer_source's type information too, where a build emits it (UBSan's vptr check).
set(seam "_ZN9selfsched3omp6bridge|_ZN9selfsched3omp20install_outer_source|_ZT[ISV]N9selfsched3omp12outer_sourceE$")
check_exported_symbols(${LIB} ${NM} "^(__kmpc_|GOMP_|omp_|ompt_start_tool$|${c_api}$|${seam})" 20
  omp_ext/exports.map)
