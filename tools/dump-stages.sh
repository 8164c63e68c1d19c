#!/bin/sh
# tools/dump-stages.sh NESSIE OUTDIR: writes what `NESSIE --dump=STAGE`
# prints (stdout, stderr and exit status) for every stage of every NESL
# program and λcu text under tests/ and examples/, one file a program and
# stage, so
# that two compilers' dumps can be compared with `diff -r`.  A refactor
# that must change no behaviour is checked this way:
#
#   sh tools/dump-stages.sh old/build/nessie /tmp/before
#   sh tools/dump-stages.sh build/nessie /tmp/after
#   diff -r /tmp/before /tmp/after
#
# DUMP_STAGES (DUMP_LCU_STAGES for λcu text) overrides the stage list;
# the -O0 fused dump and the C of both levels are included, since fusion
# and codegen are what a refactor of the IRs can break.
set -u
NESSIE=${1:?usage: dump-stages.sh NESSIE OUTDIR}
OUT=${2:?usage: dump-stages.sh NESSIE OUTDIR}
STAGES=${DUMP_STAGES:-"ast typed mono flat lcu pdg ilp fused fused:-O0 c c:-O0 cuda"}
mkdir -p "$OUT"
# λcu text (tests/lcu) has the stages from lcu on
LCU_STAGES=${DUMP_LCU_STAGES:-"lcu fused fused:-O0 c c:-O0 cuda"}
find tests examples -name '*.nesl' -o -name '*.lcu' | LC_ALL=C sort | while read -r f; do
  d="$OUT/$(dirname "$f")"
  mkdir -p "$d"
  n=$(basename "$f")
  stages=$STAGES
  case $f in *.lcu) stages=$LCU_STAGES ;; esac
  for s in $stages; do
    stage=${s%%:*}
    opt=
    [ "$stage" != "$s" ] && opt=${s#*:}
    o="$d/$n.${stage}${opt}"
    # --dump=c and --dump=cuda choose their target themselves
    # shellcheck disable=SC2086
    timeout 60 "$NESSIE" $opt --dump="$stage" "$f" > "$o" 2>&1 < /dev/null
    echo "exit $?" >> "$o"
  done
done
