# selfsched-chunks --sizes reproduces the seed papers' chunk tables, and bad
# input gets exit code 2 with a message naming it.
function(expect_sizes expected)
  execute_process(COMMAND ${CHUNKS} ${ARGN} --sizes OUTPUT_VARIABLE out RESULT_VARIABLE rc
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0 OR NOT out STREQUAL expected)
    message(FATAL_ERROR "selfsched-chunks ${ARGN}\n  expected: ${expected}\n  got (rc ${rc}): ${out}")
  endif()
endfunction()

function(expect_error needle)
  execute_process(COMMAND ${CHUNKS} ${ARGN} ERROR_VARIABLE err RESULT_VARIABLE rc)
  string(FIND "${err}" "${needle}" at)
  if(NOT rc EQUAL 2 OR at EQUAL -1)
    message(FATAL_ERROR "selfsched-chunks ${ARGN}\n  expected exit 2 and '${needle}'\n  got (rc ${rc}): ${err}")
  endif()
endfunction()

# Seed 002, Table 1 (N = 1000, p = 4): the table lists prefixes.
expect_sizes("125 125 125 125 125 125 125 125" --technique css,125 --n 1000 --p 4)
set(seed003 --n 2048 --p 5 --weights 200,200,233,533,1500 --order 4,3,2,0,1)
# Seed 003, Table 1 (I = 2048, p = 5, clocks 200/200/233/533/1500 MHz, fastest first).
expect_sizes("410 328 262 210 168 134 108 86 69 55 44 35 28 23 18 14 12 9 7 6 5 4 3 2 2 2 1 1 1 1" --technique gss ${seed003})
expect_sizes("923 328 144 123 121 82 66 53 42 34 27 21 17 14 11 9 7 6 4 4 3 2 2 1 1 1 1 1" --technique gss-80 ${seed003})
# The paper's FSS list has one 3 too many (it would sum to 2051); the formula gives five.
expect_sizes("205 205 205 205 205 103 103 103 103 103 51 51 51 51 51 26 26 26 26 26 13 13 13 13 13 6 6 6 6 6 3 3 3 3 3 2 2 2 2 2 1 1 1" --technique fss ${seed003})
expect_sizes("923 328 144 123 121 41 41 41 41 41 21 21 21 21 21 10 10 10 10 10 5 5 5 5 5 3 3 3 3 3 1 1 1 1 1 1 1 1 1" --technique fss-80 ${seed003})
expect_sizes("204 194 184 174 164 154 144 134 124 114 104 94 84 74 64 38" --technique tss ${seed003})
expect_sizes("923 328 144 123 121 40 38 36 34 32 30 28 26 24 22 20 18 16 14 12 10 8 1" --technique tss-80 ${seed003})
# Seed 000, Table 2, W-CSS row: request order P1 P3 P4 P2 P3 P2 P4 P1 P3 P4 P1.
expect_sizes("1250 1250 500 500 1250 500 500 1250 1250 500 1250" --technique w-css,1250 --n 10000 --p 4
             --weights 1,0.8,1,0.8 --queue 1,2,1,2 --order 0,2,3,1,2,1,3,0,2,3,0)

expect_error("unknown technique 'bogus'; valid: static, ss/pss," --technique bogus --n 10 --p 2)
expect_error("--n 'ten' is not an integer" --technique gss --n ten --p 2)
expect_error("weight 1 is nan" --technique w-gss --n 10 --p 2 --weights 1,nan)
expect_error("weight 0 is 0.000000" --technique w-gss --n 10 --p 2 --weights 0,1)
expect_error("3 weights given for 2 workers" --technique w-gss --n 10 --p 2 --weights 1,1,1)
expect_error("chunk 'x'" --technique gss,x --n 10 --p 2)
# Bounds are checked before anything is allocated (p = 10^8 once took gigabytes).
expect_error("--p '100000000' is not an integer in [1, 4096]" --technique ss --n 1000 --p 100000000)
expect_error("--instances '1000000' is not an integer in [1, 100000]" --technique ss --n 10 --p 2 --instances 1000000)
expect_error("'w-w-gss' names more than one mechanism prefix" --technique w-w-gss --n 10 --p 2)
string(REPEAT "0," 4999 long_order)
expect_error("--order has 5000 values; at most 4096" --technique ss --n 10 --p 2 --order ${long_order}0)
expect_error("--order '4096' is not an integer in [0, 4095]" --technique ss --n 10 --p 2 --order 0,4096)

# awf learns between instances (one history across --instances): worker 1 is
# twice as slow, so from the second instance on worker 0's chunks are twice
# worker 1's in each batch (1000 / (1 + 1/2) / 2 = 333.3 -> 334, then 167).
execute_process(COMMAND ${CHUNKS} --technique awf --n 1000 --p 2 --times 1,2 --instances 3 --sizes
                OUTPUT_VARIABLE out RESULT_VARIABLE rc)
string(REPLACE "\n" ";" lines "${out}")
list(GET lines 0 first)
list(GET lines 2 third)
if(NOT rc EQUAL 0 OR NOT first MATCHES "^250 250 125 125 " OR NOT third MATCHES "^334 167 167 84 83 ")
  message(FATAL_ERROR "awf --instances 3: expected equal first batches, then 2:1\n${out}")
endif()
