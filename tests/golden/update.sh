#!/bin/sh
# tests/golden/update.sh [NESSIE]: writes the golden dumps of the later
# stages, for each program NAME of tests/golden/SOURCES:
# tests/golden/NAME.fused (--dump=fused), NAME.c (--dump=c, the CPU
# target) and NAME.cu (--dump=cuda, the GPU target).  Run it from the
# repository's root (`make golden` does) after a change to fusion or to
# code generation, and read the diff: tests/suites/golden.sh compares
# every dump with its golden file.
set -eu
NESSIE=${1:-build/nessie}
grep -v '^#' tests/golden/SOURCES | while read -r n src; do
  [ -n "$n" ] || continue
  "$NESSIE" --dump=fused "$src" > "tests/golden/$n.fused"
  "$NESSIE" --dump=c "$src" > "tests/golden/$n.c"
  "$NESSIE" --dump=cuda "$src" > "tests/golden/$n.cu"
done
