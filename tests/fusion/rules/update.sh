#!/bin/sh
# tests/fusion/rules/update.sh [NESSIE]: writes tests/fusion/rules/NAME.fused,
# what `nessie --check-ir --dump=fused` prints of each hand-written case
# NAME.lcu.  Run it from the repository's root (`make golden` does) after
# a change to fusion, and read the diff: each case's header says what its
# fused text must show (a rule applied, or two kernels kept), and
# tests/suites/fusion-rules.sh compares the dumps with these files.
set -eu
NESSIE=${1:-build/nessie}
for f in tests/fusion/rules/*.lcu; do
  "$NESSIE" --check-ir --dump=fused "$f" > "${f%.lcu}.fused"
done
