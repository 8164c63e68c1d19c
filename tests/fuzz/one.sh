#!/bin/sh
# tests/fuzz/one.sh BUILD OUTDIR SEED REF BACKEND...: one program of the
# differential test (tests/fuzz/diff.sh runs many, in parallel).
# tests/fuzz/gen_nesl.py writes the program of SEED; REF (oracle: CMU
# NESL 3.1, ../shared/oracle; or one of nessie's backends) runs it, and so
# does each BACKEND.  SEED may instead name a file, F.nesl: that program
# is run (NESL programs from elsewhere, by the same comparison), and the
# `= fn :` lines of the backends that print them (eval, flat, lcu,
# lcu-O0) are compared too; the lines below name it F.  BACKEND is:
#   eval flat lcu        nessie --interp=BACKEND
#   lcu-O0               nessie --interp=lcu -O0 (no fusion)
#   lcu-text             nessie --dump=lcu, then --interp=lcu of that text
#                        (λcu's printer and reader)
#   cpu cpu1             the CPU executable, with 4 threads, with 1
#   cuda                 the CUDA executable (on a GPU machine)
# BUILD/nesl_compare compares each transcript with REF's (floats to 1e-9,
# an error line with any error line; the `= fn :` lines are left out).
# Prints one line: `pass SEED`, `reject SEED` (REF or nessie's front end
# rejects the program, or REF runs out of time: the generator's fault,
# not a difference; for a file, `reject F: WHO: the first error line`), or
# `fail SEED: BACKEND...: the first difference`; a failing program is
# kept as OUTDIR/SEED.nesl with each transcript beside it.
# FUZZ_STATEMENTS: statements a program (8); FUZZ_TIMEOUT: the seconds a
# backend may take (20).
set -u
BUILD=$1
OUT=$2
SEED=$3
REF=$4
shift 4
NESSIE=$BUILD/nessie
ORACLE=${ORACLE:-$(cd "$(dirname "$0")/../../.." && pwd)/shared/oracle/run.sh}
limit=${FUZZ_TIMEOUT:-20}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
types=no
case $SEED in
*.nesl)
  name=$(basename "$SEED" .nesl)
  p=$work/$name.nesl
  cp "$SEED" "$p"
  types=yes
  SEED=$name ;;
*)
  p=$work/p$SEED.nesl
  # (run from the repository's root: without its program a seed would
  # pass, every backend printing nothing)
  python3 tests/fuzz/gen_nesl.py "$SEED" "${FUZZ_STATEMENTS:-8}" > "$p" && [ -s "$p" ] || {
    echo "fail $SEED: tests/fuzz/gen_nesl.py wrote no program (run from the repository's root)"
    exit 1
  } ;;
esac

# run BACKEND FILE: BACKEND's transcript of the program into FILE (its
# stderr into FILE.err); status 124 or 137 when it ran out of time
run() {
  case $1 in
  oracle) timeout 60 sh "$ORACLE" "$p" > "$2" 2> "$2.err" ;;
  eval | flat | lcu) timeout "$limit" "$NESSIE" --interp="$1" "$p" > "$2" 2> "$2.err" ;;
  lcu-O0) timeout "$limit" "$NESSIE" --interp=lcu -O0 "$p" > "$2" 2> "$2.err" ;;
  lcu-text)
    if ! timeout "$limit" "$NESSIE" --dump=lcu "$p" > "$work/p.lcu" 2> "$2.err"; then
      echo "--dump=lcu failed" > "$2"; return 0
    fi
    timeout "$limit" "$NESSIE" --interp=lcu "$work/p.lcu" > "$2" 2> "$2.err" ;;
  cpu | cpu1 | cuda)
    target=${1%1}
    threads=4
    [ "$1" = cpu1 ] && threads=1
    if ! "$NESSIE" --target="$target" -o "$work/exe" "$p" > "$2" 2> "$2.err"; then
      echo "the build failed" >> "$2"; return 0
    fi
    OMP_NUM_THREADS=$threads timeout "$limit" "$work/exe" > "$2" 2> "$2.err" ;;
  *) echo "unknown backend $1" > "$2"; return 0 ;;
  esac
}

# the front end must take the program, and the oracle must not reject it
if ! "$NESSIE" --dump=typed "$p" > /dev/null 2> "$work/front.err"; then
  cp "$p" "$OUT/reject-$SEED.nesl"
  if [ $types = yes ]; then echo "reject $SEED: nessie: $(head -1 "$work/front.err")"; else echo "reject $SEED"; fi
  exit 0
fi
run "$REF" "$work/ref"
rc=$?
# a reference that runs out of time gives nothing to compare against: the
# program is the generator's fault (it must end quickly), not a difference
if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
  cp "$p" "$OUT/reject-$SEED.nesl"
  echo "reject $SEED: $REF: ran out of time (${limit} s)"
  exit 0
fi
grep -av ' = fn : ' "$work/ref" > "$work/ref.cmp"
rejected='error: Error (at top level|in Function definition)\..*(type|symbol|undefined|Bad|parse|Syntax)'
if [ "$REF" = oracle ] && grep -q -E "$rejected" "$work/ref.cmp"; then
  cp "$p" "$OUT/reject-$SEED.nesl"; cp "$work/ref" "$OUT/reject-$SEED.ref"
  if [ $types = yes ]; then echo "reject $SEED: $REF: $(grep -m1 -E "$rejected" "$work/ref.cmp")"; else echo "reject $SEED"; fi
  exit 0
fi
bad=""
why=""
for b in "$@"; do
  run "$b" "$work/out.$b"
  rc=$?
  ref=$work/ref.cmp
  case $types,$b in
  yes,eval | yes,flat | yes,lcu | yes,lcu-O0) cp "$work/out.$b" "$work/cmp.$b"; ref=$work/ref ;;
  *) grep -av ' = fn : ' "$work/out.$b" > "$work/cmp.$b" ;;
  esac
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    bad="$bad $b(timeout)"
  elif grep -q -E 'AddressSanitizer|runtime error:|internal error|Segmentation fault|core dumped' "$work/out.$b" "$work/out.$b.err" ||
       [ $rc -gt 128 ]; then
    bad="$bad $b(crash)"
    [ -n "$why" ] || why=$(grep -h -E 'AddressSanitizer|runtime error:|internal error|Segmentation|core' "$work/out.$b" "$work/out.$b.err" | head -1)
  elif ! d=$("$BUILD/nesl_compare" "$work/cmp.$b" "$ref" 2>&1); then
    bad="$bad $b"
    [ -n "$why" ] || why=$(printf '%s\n' "$d" | head -3 | tr '\n' ' ')
  fi
done
if [ -z "$bad" ]; then echo "pass $SEED"; exit 0; fi
cp "$p" "$OUT/$SEED.nesl"
cp "$work/ref" "$OUT/$SEED.$REF.out"
for b in "$@"; do cp "$work/out.$b" "$OUT/$SEED.$b.out"; cp "$work/out.$b.err" "$OUT/$SEED.$b.err"; done
echo "fail $SEED:$bad: $why"
