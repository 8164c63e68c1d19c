#!/bin/sh
# tests/exec/check.sh TARGET BUILD OUTDIR: the executables of target
# TARGET (cpu or cuda) for the corpus, the run-time error programs, our
# own cases (tests/exec/*.nesl: errors only an executable meets, headed as
# tests/errors' are) and the teaching examples (examples/*.nesl), built in parallel by BUILD/nessie (tests/cpu/build_all.sh),
# run, and compared as the interpreters' transcripts are (without the
# `= fn :` lines on either side, floats to 1e-9 by BUILD/nesl_compare); a program that
# stops a statement with a run-time error must exit with status 1 and
# report it on the line its header names.  Prints `[PASS] TARGET/NAME
# (MS ms)` or `[FAIL] TARGET/NAME` with the reason indented, then `N passed,
# M failed`.  EXEC_TIMEOUT (seconds, default 300) bounds each run.
# tests/run.sh runs it for cpu; tests/gpu/run.sh for cuda, on a GPU.
set -u
TARGET=$1
BUILD=$2
OUT=$3
NESSIE=$BUILD/nessie
mkdir -p "$OUT"
progs=""
for f in tests/programs/*.nesl tests/flat/*.nesl tests/lcu/*.nesl tests/syntax/*.nesl examples/*.nesl; do
  [ -f "$f" ] && progs="$progs $f"
done
for f in tests/errors/*.nesl tests/exec/*.nesl; do
  set -- $(head -1 "$f")
  case $3 in runtime|none) progs="$progs $f" ;; esac
done
# On the CPU the corpus and the examples build at build_all.sh's -O1, the
# compiler's own cases (tests/flat, lcu, syntax, errors, exec: how
# flattening, fusion and the runtime handle a construct, not how gcc
# optimizes the code) at -O0, about half the compile time, where `make
# test` must stay within 20 minutes on CI.
if [ "$TARGET" = cpu ]; then
  corpus="" own=""
  for f in $progs; do
    case $f in tests/programs/*|examples/*) corpus="$corpus $f" ;; *) own="$own $f" ;; esac
  done
  TARGET=cpu sh tests/cpu/build_all.sh "$NESSIE" "$OUT" $corpus
  TARGET=cpu NESSIE_CFLAGS=${NESSIE_CFLAGS:--O0} sh tests/cpu/build_all.sh "$NESSIE" "$OUT" $own
else
  TARGET=$TARGET sh tests/cpu/build_all.sh "$NESSIE" "$OUT" $progs
fi
passed=0
failed=0
fail() {
  failed=$((failed + 1))
  echo "[FAIL] $TARGET/$1"
  printf '%s\n' "$2" | sed 's/^/    /' | head -20
}
for f in $progs; do
  n=$(basename "$f" .nesl); dir=$(dirname "$f")
  if [ ! -x "$OUT/$n" ]; then fail "$n" "the build failed: $(head -5 "$OUT/$n.build")"; continue; fi
  t0=$(date +%s%N)
  timeout "${EXEC_TIMEOUT:-300}" "$OUT/$n" > "$OUT/$n.out" 2> "$OUT/$n.err"
  rc=$?
  ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  # (-a: an expected line may hold a character of code 0, which makes
  # grep call the file binary and print none of it)
  grep -av ' = fn : ' "$dir/$n.expected" > "$OUT/$n.exp"
  # (an executable prints no function definition's line, but it prints a
  # binding of a function value, `g = fn : int -> int`, as NESL does:
  # those lines are left out of both)
  grep -av ' = fn : ' "$OUT/$n.out" > "$OUT/$n.out.nofn"; mv "$OUT/$n.out.nofn" "$OUT/$n.out"
  # an expected line ending in " ..." stands for any line it begins (the
  # size an allocation asked for depends on the backend); the expected
  # lines are the first file's, even when it is empty (NR == FNR would
  # read the output as them, and print none of it)
  awk 'FILENAME == ARGV[1] { want[FNR] = $0; next }
       { w = want[FNR]; if (w ~ / \.\.\.$/ && index($0, substr(w, 1, length(w) - 3)) == 1) print w; else print }' \
    "$OUT/$n.exp" "$OUT/$n.out" > "$OUT/$n.out.matched" && mv "$OUT/$n.out.matched" "$OUT/$n.out"
  want_rc=0
  grep -q '^error:' "$OUT/$n.exp" && want_rc=1
  if [ $rc -eq 124 ]; then fail "$n" "stopped after ${EXEC_TIMEOUT:-300} s"
  elif ! d=$("$BUILD/nesl_compare" "$OUT/$n.out" "$OUT/$n.exp" 2>&1); then fail "$n" "$d$(head -3 "$OUT/$n.err")"
  elif [ $rc -ne $want_rc ]; then fail "$n" "exit status $rc, expected $want_rc: $(head -3 "$OUT/$n.err")"
  elif [ "$dir" != tests/programs ] && set -- $(head -1 "$f") && [ "$3" = runtime ] &&
       ! grep -q "^error: [^:]*:$4:" "$OUT/$n.out"; then
    fail "$n" "the error is not reported on line $4: $(grep '^error:' "$OUT/$n.out" | head -1)"
  else
    passed=$((passed + 1))
    echo "[PASS] $TARGET/$n ($ms ms)"
  fi
done
echo "$passed passed, $failed failed"
