# libselfsched_mpi exports only what mpi_bridge/exports.map allows: the C
# API of selfsched_mpi.h and selfsched_mpi_tasks.h, the members of the
# public classes selfsched::mpi::region, options and task_pool,
# detail::run_wavefront (which the public wavefront template calls), and the
# type information of the exceptions it throws; nothing of
# selfsched::mpi::detail besides, of the core or of the standard library.
# Run with -DLIB=<libselfsched_mpi.so> -DNM=<nm>.
include(${CMAKE_CURRENT_LIST_DIR}/../exported_symbols.cmake)
set(c_api "selfsched_mpi_(options_new|options_free|gather_rows|gather_variable_rows|reduce|after_loop|merge_writes|track_writes|set_schedule|set_transport|region_begin|region_end|wavefront|task_pool_(create|destroy|put|stop|run|error))")
set(classes "_ZNK?9selfsched3mpi(6region|7options|9task_pool)|_ZN9selfsched3mpi6detail13run_wavefrontE")
set(exceptions "_ZT[ISV]N9selfsched(15task_pool_error|15wavefront_error)E$")
check_exported_symbols(${LIB} ${NM} "^(${c_api}$|${classes}|${exceptions})" 19 mpi_bridge/exports.map)
