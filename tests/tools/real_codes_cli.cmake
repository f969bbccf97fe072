# benchmarks/real_codes/gapbs.py refuses bad input with exit 2 and one
# message naming the value and the choices (its measurements need a GAPBS
# checkout, which the tests do not have).
#   cmake -DPYTHON=python3 -DSCRIPT=gapbs.py -DBUILD=build -DWORK=dir -P real_codes_cli.cmake
include(${CMAKE_CURRENT_LIST_DIR}/expect_refused.cmake)
set(gapbs "${PYTHON}" "${SCRIPT}" --build "${BUILD}" --work "${WORK}")

expect_refused("no src/bfs.cc there" ${gapbs} --gapbs "${WORK}/no-such-checkout")
expect_refused("unknown bfz; choose from bfs, pr, cc, bc, sssp, tc" ${gapbs} --gapbs "${WORK}" --kernels bfz)
expect_refused("--pairs 0: at least 1" ${gapbs} --gapbs "${WORK}" --pairs 0)
expect_refused("no such library" ${gapbs} --gapbs "${WORK}" --lib "${WORK}/libnothing.so")
