# tests/suites/lib.sh: what every runner in tests/suites shares.  A
# runner begins with `. tests/suites/lib.sh` and is run from the
# repository's root as
#
#     sh tests/suites/NAME.sh BUILD [OUT]
#
# BUILD is the build directory; the compiler is $NESSIE (BUILD/nessie).
# OUT is the suite's own output directory, emptied here (by default
# BUILD/test-out/NAME; tests/run.sh passes that).  A runner prints one
# `[PASS] TEST` or `[FAIL] TEST` line per test, a failure's details
# indented below it, and exits 1 if any test failed (`finish`).
# tests/run.sh counts those lines.
set -u
BUILD=${1:?"usage: sh $0 BUILD [OUT]"}
NESSIE=$BUILD/nessie
OUT=${2:-$BUILD/test-out/$(basename "$0" .sh)}
rm -rf "$OUT"
mkdir -p "$OUT"
# the build cache (codegen/cache.c): the suite's own, emptied with OUT,
# never the user's ~/.cache; a test of the cache sets its own
NESSIE_CACHE_DIR=$(cd "$OUT" && pwd)/.nessie-cache
export NESSIE_CACHE_DIR
passed=0
failed=0

pass() { passed=$((passed + 1)); echo "[PASS] $1"; }
# fail TEST [DETAILS]: the details, at most 20 lines, indented
fail() {
  failed=$((failed + 1)); echo "[FAIL] $1"
  [ $# -gt 1 ] && printf '%s\n' "$2" | sed 's/^/    /' | head -20
  return 0
}
# relay: the [PASS] and [FAIL] lines of a script that prints them itself
# (read on standard input), counted as this runner's; its other lines
# (a failure's details) are passed on, its own summary is dropped
relay() {
  while IFS= read -r line; do
    case $line in
    "[PASS] "*) passed=$((passed + 1)); printf '%s\n' "$line" ;;
    "[FAIL] "*) failed=$((failed + 1)); printf '%s\n' "$line" ;;
    [0-9]*" passed, "[0-9]*" failed") ;;
    *) printf '%s\n' "$line" ;;
    esac
  done
}
finish() { [ "$failed" -eq 0 ]; exit; }

# JOBS: how many programs a runner runs at once, one a processor (the
# interpreters use one core each, and CI's machine has two)
JOBS=$(nproc 2>/dev/null || echo 2)

# corpus_run TEST OPTION...: `nessie OPTION... FILE` on every corpus
# program (tests/programs) prints its .expected, as BUILD/nesl_compare
# compares them (the runners eval, flat, lcu and lcu-O0).  The programs
# run $JOBS at a time, each into its own files (OUT/NAME.out, .err and
# .rc, its exit status); the results are then read in the programs'
# order, so that the output is the same as one at a time.
corpus_run() {
  test=$1; shift
  # alg_mergesort first: under lcu and lcu-O0 it alone takes 46 of the
  # suite's 65 s of processor time, and started last it would run alone
  { echo tests/programs/alg_mergesort.nesl
    for f in tests/programs/*.nesl; do [ "$f" = tests/programs/alg_mergesort.nesl ] || echo "$f"; done; } |
    OUT=$OUT xargs -n 1 -P "$JOBS" sh -c '
    for f; do :; done
    n=${f##*/}; n=${n%.nesl}
    "$0" "$@" > "$OUT/$n.out" 2> "$OUT/$n.err"
    echo $? > "$OUT/$n.rc"' "$NESSIE" "$@"
  for f in tests/programs/*.nesl; do
    n=$(basename "$f" .nesl)
    d=
    if [ "$(cat "$OUT/$n.rc" 2>/dev/null)" = 0 ] &&
       d=$("$BUILD/nesl_compare" "$OUT/$n.out" "tests/programs/$n.expected" 2>&1); then
      pass "$test/$n"
    else
      fail "$test/$n" "$d$(head -5 "$OUT/$n.err")"
    fi
  done
}
