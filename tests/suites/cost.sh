# cost: issue 43, NESL's cost model (docs/cost.md) as --cost measures it.
# The evaluator is the reference; the interpreters of the flattened
# program ($MEASURING below) must measure the same.
#
# - cost/sum, cost/scan, cost/nested: sum(index(n)), plus_scan(index(n))
#   and a nested apply-to-each at several sizes measure, under every
#   interpreter, the W and D of the formulas docs/cost.md derives (2n + 1
#   and 3; 3n^2 + 3n + 1 and 7)
# - cost/quicksort, cost/primes: examples/quicksort.nesl on [0:n] and
#   examples/primes.nesl measure, under every interpreter, what
#   tests/cost/quicksort.awk and tests/cost/primes.awk compute,
#   recurrences derived from the rules term by term (eval's
#   --cost=functions: quicksort's calls, work and depth)
# - cost/corpus: flat and lcu print eval's transcript, cost lines
#   included (the same work and depth on every statement), on the corpus
#   and the examples (the slowest left out, and lcu-O0 too, but with
#   NESSIE_COST_ALL=1)
# - cost/edges: the same on tests/cost/edges.nesl, the constructs
#   flattening computes differently (closed code over no elements,
#   invariant sequences, lifted ifs, tuple-valued functions)
# - cost/random: the same cost lines on the random programs of
#   tests/fuzz/gen_nesl.py's seeds 1 to 12
# - cost/lcu-text: `--cost --dump=lcu` reads back as it is, and λcu's
#   interpreter run from that text measures what eval does
# - cost/golden: tests/cost/golden.nesl under --cost=functions prints
#   golden.cost (each statement's derivation in its comments)
# - cost/deterministic: every example under --cost twice gives the same
#   bytes, and without its cost lines, the example's .expected
# - cost/sweep: tools/cost-sweep.py's table and exact fits of
#   sum(index(n)), an n^2 fit of a nested apply-to-each, and a PNG
#   where gnuplot is found
# - cost/usage: --cost without --interp or --dump, --cost=functions
#   without --interp=eval, or a bad value is a usage error (exit 2)
# About 25 s on two cores, most of it cost/corpus; with NESSIE_COST_ALL=1
# about four minutes.
. tests/suites/lib.sh

# the interpreters that measure the model from the flattened program,
# each compared with the evaluator: flat's, λcu's (fused) and λcu's as
# lowered (lcu-O0)
MEASURING="flat lcu lcu-O0"
# interp ENGINE: the options that run ENGINE
interp() { case $1 in lcu-O0) echo "--interp=lcu -O0" ;; *) echo "--interp=$1" ;; esac; }

# cost_of ENGINE NAME NESL...: the last cost line of the program made of
# the arguments (one statement each), in OUT/NAME.nesl, under --interp=ENGINE
cost_of() {
  engine=$1; name=$2; shift 2
  printf '%s\n' "$@" > "$OUT/$name.nesl"
  # shellcheck disable=SC2046 # the options split on purpose
  "$NESSIE" $(interp "$engine") --cost "$OUT/$name.nesl" 2>&1 | grep '^cost: ' | tail -1
}

# formula TEST GOT WANT: one comparison of the test, failures collected
# in $bad
formula() {
  [ "$2" = "$3" ] || bad="$bad
$1: measured '$2', the formula '$3'"
}

bad=""
for n in 1 2 10 1000 100000; do
  for engine in eval $MEASURING; do
    formula "$engine: sum(index($n))" "$(cost_of $engine sum_$n "sum(index($n));")" "cost: work $((2 * n + 1)), depth 3"
  done
done
[ -z "$bad" ] && pass cost/sum || fail cost/sum "$bad"

bad=""
for n in 1 3 64 5000; do
  for engine in eval $MEASURING; do
    formula "$engine: plus_scan(index($n))" "$(cost_of $engine scan_$n "plus_scan(index($n));")" \
      "cost: work $((2 * n + 1)), depth 3"
  done
done
[ -z "$bad" ] && pass cost/scan || fail cost/scan "$bad"

bad=""
for n in 1 4 30 200; do
  for engine in eval $MEASURING; do
    formula "$engine: nested $n" "$(cost_of $engine nested_$n "{{i * j : j in index($n)} : i in index($n)};")" \
      "cost: work $((3 * n * n + 3 * n + 1)), depth 7"
  done
done
[ -z "$bad" ] && pass cost/nested || fail cost/nested "$bad"

# the function of the example itself, its driver left out
sed -n '/^function quicksort(s)/,/^$/p' examples/quicksort.nesl > "$OUT/quicksort.nesl"
bad=""
for n in 0 1 2 7 100 1000 4095; do
  cp "$OUT/quicksort.nesl" "$OUT/quicksort_$n.nesl"
  echo "quicksort([0:$n]);" >> "$OUT/quicksort_$n.nesl"
  got=$("$NESSIE" --interp=eval --cost=functions "$OUT/quicksort_$n.nesl" 2>&1 | grep '^cost: ')
  want=$(awk -v N=$n -f tests/cost/quicksort.awk)
  formula "quicksort([0:$n])" "$got" "$want"
  for engine in $MEASURING; do
    # shellcheck disable=SC2046
    got=$("$NESSIE" $(interp $engine) --cost "$OUT/quicksort_$n.nesl" 2>&1 | grep '^cost: ')
    formula "$engine: quicksort([0:$n])" "$got" "$(echo "$want" | head -1)"
  done
done
[ -z "$bad" ] && pass cost/quicksort || fail cost/quicksort "$bad"

sed -n '/^function primes(n)/,/^$/p' examples/primes.nesl > "$OUT/primes.nesl"
bad=""
for n in 0 2 3 10 30 100 1000 10000 100000; do
  cp "$OUT/primes.nesl" "$OUT/primes_$n.nesl"
  echo "primes($n);" >> "$OUT/primes_$n.nesl"
  got=$("$NESSIE" --interp=eval --cost "$OUT/primes_$n.nesl" 2>&1 | grep '^cost: ')
  formula "primes($n)" "$got" "$(awk -v N=$n -f tests/cost/primes.awk)"
  for engine in $MEASURING; do
    # shellcheck disable=SC2046
    got=$("$NESSIE" $(interp $engine) --cost "$OUT/primes_$n.nesl" 2>&1 | grep '^cost: ')
    formula "$engine: primes($n)" "$got" "$(awk -v N=$n -f tests/cost/primes.awk)"
  done
done
[ -z "$bad" ] && pass cost/primes || fail cost/primes "$bad"

"$NESSIE" --interp=eval --cost=functions tests/cost/golden.nesl > "$OUT/golden.cost" 2> "$OUT/golden.err"
if d=$(diff tests/cost/golden.cost "$OUT/golden.cost"); then pass cost/golden
else fail cost/golden "$d"; fi

bad=""
for f in examples/*.nesl; do
  n=$(basename "$f" .nesl)
  "$NESSIE" --interp=eval --cost=functions "$f" > "$OUT/$n.1" 2>&1
  "$NESSIE" --interp=eval --cost=functions "$f" > "$OUT/$n.2" 2>&1
  cmp -s "$OUT/$n.1" "$OUT/$n.2" || bad="$bad
$n: two runs differ"
  grep -q '^cost: work ' "$OUT/$n.1" || bad="$bad
$n: no cost line"
  grep -v '^cost: ' "$OUT/$n.1" | cmp -s - "examples/$n.expected" || bad="$bad
$n: without its cost lines, not $n.expected"
done
[ -z "$bad" ] && pass cost/deterministic || fail cost/deterministic "$bad"

# the flattened interpreters against eval on the corpus and the
# examples: the same transcript, cost lines included (the same work and
# depth on every statement).  The slowest programs (over a second for
# the interpreters here, about three minutes in all), and λcu as lowered
# (whose statements are those fusion starts from), are compared under
# NESSIE_COST_ALL=1 alone.
SLOW=" alg_mandelbrot alg_mergesort alg_bitonic alg_radixsort lang_large alg_blackscholes alg_quicksort alg_wordcount
       alg_strsearch alg_bfs alg_closestpair alg_nbody alg_muladd alg_median "
CORPUS_MEASURING="flat lcu"
[ "${NESSIE_COST_ALL:-}" = 1 ] && SLOW="" && CORPUS_MEASURING=$MEASURING
for f in tests/programs/*.nesl examples/*.nesl; do
  n=$(basename "$f" .nesl)
  case "$SLOW" in *" $n "*) continue ;; esac
  echo "$f"
done | xargs -P "$JOBS" -I{} sh -c 'n=$(basename {} .nesl); "$1" --interp=eval --cost {} > "$2/corpus-$n.eval" 2> /dev/null
  for e in $3; do o=--interp=$e; [ $e = lcu-O0 ] && o="--interp=lcu -O0"
    "$1" $o --cost --check-ir {} > "$2/corpus-$n.$e" 2> "$2/corpus-$n.$e.err"; done' sh "$NESSIE" "$OUT" "$CORPUS_MEASURING"
bad=""
compared=0
for e in "$OUT"/corpus-*.eval; do
  n=$(basename "$e" .eval); n=${n#corpus-}
  compared=$((compared + 1))
  for engine in $CORPUS_MEASURING; do
    got="$OUT/corpus-$n.$engine"
    cmp -s "$e" "$got" || bad="$bad
$n: $engine differs from eval (<):
$(diff "$e" "$got" | head -4)"
  done
done
[ "$compared" -gt 50 ] || bad="$bad
only $compared programs compared"
[ -z "$bad" ] && pass cost/corpus || fail cost/corpus "$bad"

# the edge cases: the same work and depth on each statement
"$NESSIE" --interp=eval --cost tests/cost/edges.nesl 2>&1 | grep '^cost: ' > "$OUT/edges.eval"
bad=""
if [ "$(wc -l < "$OUT/edges.eval")" -lt 10 ]; then bad="too few cost lines: $(cat "$OUT/edges.eval")"; fi
for engine in $MEASURING; do
  # shellcheck disable=SC2046
  "$NESSIE" $(interp $engine) --cost --check-ir tests/cost/edges.nesl 2>&1 | grep '^cost: ' > "$OUT/edges.$engine"
  d=$(diff "$OUT/edges.eval" "$OUT/edges.$engine") || bad="$bad
eval (<) and $engine (>):
$d"
done
[ -z "$bad" ] && pass cost/edges || fail cost/edges "$bad"

# random programs (tests/fuzz/gen_nesl.py, seeds 1 to 12): the same work
# and depth on every statement
bad=""
for seed in 1 2 3 4 5 6 7 8 9 10 11 12; do
  python3 tests/fuzz/gen_nesl.py $seed > "$OUT/random_$seed.nesl" 2> /dev/null || { bad="$bad
seed $seed: gen_nesl.py failed"; continue; }
  "$NESSIE" --interp=eval --cost "$OUT/random_$seed.nesl" 2> /dev/null | grep '^cost: ' > "$OUT/random_$seed.eval"
  [ -s "$OUT/random_$seed.eval" ] || bad="$bad
seed $seed: no cost line"
  for engine in $MEASURING; do
    # shellcheck disable=SC2046
    "$NESSIE" $(interp $engine) --cost "$OUT/random_$seed.nesl" 2> /dev/null | grep '^cost: ' > "$OUT/random_$seed.$engine"
    cmp -s "$OUT/random_$seed.eval" "$OUT/random_$seed.$engine" || bad="$bad
seed $seed: eval | $engine: $(paste -d'|' "$OUT/random_$seed.eval" "$OUT/random_$seed.$engine" | awk -F'|' '$1 != $2' | head -3 | tr '\n' ';')"
  done
done
[ -z "$bad" ] && pass cost/random || fail cost/random "$bad"

# λcu's text keeps the cost statements: `--cost --dump=lcu` reads back
# as it is, and run from the text they measure what eval does
bad=""
for f in tests/cost/edges.nesl examples/quicksort.nesl; do
  n=$(basename "$f" .nesl)
  "$NESSIE" --cost --dump=lcu "$f" > "$OUT/text-$n.lcu" 2>&1 || bad="$bad
$n: --cost --dump=lcu: $(head -3 "$OUT/text-$n.lcu")"
  grep -q '^ *cost each ' "$OUT/text-$n.lcu" || bad="$bad
$n: no cost statement in the dump"
  "$NESSIE" --cost --check-ir --dump=lcu "$OUT/text-$n.lcu" > "$OUT/text-$n.2.lcu" 2>&1
  cmp -s "$OUT/text-$n.lcu" "$OUT/text-$n.2.lcu" || bad="$bad
$n: the dump read back prints otherwise: $(diff "$OUT/text-$n.lcu" "$OUT/text-$n.2.lcu" | head -4)"
  "$NESSIE" --interp=eval --cost "$f" 2> /dev/null | grep '^cost: ' > "$OUT/text-$n.eval"
  "$NESSIE" --interp=lcu --cost "$OUT/text-$n.lcu" 2> /dev/null | grep '^cost: ' > "$OUT/text-$n.lcu-cost"
  [ -s "$OUT/text-$n.eval" ] && cmp -s "$OUT/text-$n.eval" "$OUT/text-$n.lcu-cost" || bad="$bad
$n: eval (<) and λcu run from its text (>): $(diff "$OUT/text-$n.eval" "$OUT/text-$n.lcu-cost" | head -4)"
done
[ -z "$bad" ] && pass cost/lcu-text || fail cost/lcu-text "$bad"

# tools/cost-sweep.py: the table, the fits of a known cost, the picture
bad=""
python3 tools/cost-sweep.py 'sum(index(n))' --from 1 --to 4096 --nessie "$NESSIE" > "$OUT/sweep.out" 2>&1 || bad="exit $?"
[ "$(sed -n 2p "$OUT/sweep.out" | tr -s ' ')" = " 1 3 3" ] || bad="$bad; first row: $(sed -n 2p "$OUT/sweep.out")"
[ "$(sed -n 14p "$OUT/sweep.out" | tr -s ' ')" = " 4096 8193 3" ] || bad="$bad; last row: $(sed -n 14p "$OUT/sweep.out")"
grep -qx 'work ~ 2 \* n + 1 (exact)' "$OUT/sweep.out" || bad="$bad; no exact fit of work"
grep -qx 'depth ~ 3 (constant; exact)' "$OUT/sweep.out" || bad="$bad; no exact fit of depth"
python3 tools/cost-sweep.py '{{i : i in index(n)} : j in index(n)}' --from 2 --to 256 --nessie "$NESSIE" > "$OUT/sweep2.out" 2>&1
grep -q '^work ~ .* \* n^2' "$OUT/sweep2.out" || bad="$bad; a nested apply-to-each does not fit n^2: $(tail -2 "$OUT/sweep2.out")"
if command -v gnuplot > /dev/null 2>&1; then
  python3 tools/cost-sweep.py 'plus_scan(index(n))' --from 1 --to 64 --nessie "$NESSIE" --png "$OUT/sweep.png" > /dev/null 2>&1
  [ "$(head -c 4 "$OUT/sweep.png" 2> /dev/null | tail -c 3)" = PNG ] || bad="$bad; --png wrote no PNG"
else
  echo "cost/sweep: the picture not checked: gnuplot not found"
fi
[ -z "$bad" ] && pass cost/sweep || fail cost/sweep "$bad
$(cat "$OUT/sweep.out")"

bad=""
for args in "--cost examples/sqr.nesl" "--cost=functions --interp=flat examples/sqr.nesl" "--cost=functions --interp=lcu examples/sqr.nesl" \
            "--cost=work --interp examples/sqr.nesl" "--cost=functions --dump=flat examples/sqr.nesl"; do
  # shellcheck disable=SC2086 # the options split on purpose
  "$NESSIE" $args > "$OUT/usage.out" 2> "$OUT/usage.err"
  rc=$?
  [ $rc -eq 2 ] && grep -q -- '--cost' "$OUT/usage.err" || bad="$bad
nessie $args: exit $rc, $(head -1 "$OUT/usage.err")"
done
[ -z "$bad" ] && pass cost/usage || fail cost/usage "$bad"
finish
