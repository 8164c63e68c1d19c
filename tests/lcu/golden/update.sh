#!/bin/sh
# tests/lcu/golden/update.sh [NESSIE]: writes tests/lcu/golden/NAME.lcu, the
# λcu that `nessie --dump=lcu` prints for each golden program NAME (listed
# below, from tests/programs or tests/lcu).  Run it from the repository's
# root after a change to lowering or to the printer, and read the diff:
# tests/run.sh compares every dump with its golden file, reads each golden
# file back (it must print the same) and runs it.
#
# The programs cover every SOAC lowering makes: MAP, PERMUTE, REDUCE,
# SCAN, FILTER, PARTITION, ONCE, SEG_REDUCE, SEG_SCAN, SEG_FILTER and the
# library kernels (ranks, segment descriptors, name/eql, rand).
set -eu
NESSIE=${1:-build/nessie}
PROGRAMS="norm2 alg_norm2 lib_rand_time lang_bits alg_quicksort alg_spmv alg_segscan alg_radixsort
          alg_primes lib_scans alg_wordcount lib_sets"
for n in $PROGRAMS; do
  src=tests/programs/$n.nesl
  [ -f "$src" ] || src=tests/lcu/$n.nesl
  "$NESSIE" --check-ir --dump=lcu "$src" > "tests/lcu/golden/$n.lcu"
done
