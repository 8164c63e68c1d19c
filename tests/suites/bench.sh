# bench: what of the benchmark suite (tests/bench) can be checked where no
# GPU is.  The benchmarks themselves run on a GPU machine (make bench);
# their hand-written CUDA baselines and the JAX and CuPy peers cannot run
# here, but:
#
# - bench/quickhull-host: the CUDA baseline of quickhull (cuda/quickhull.cu,
#   CUB calls and kernels of the programmer's own) built as host C++
#   against tests/bench/cuda/host/, which runs CUB's device-wide calls and
#   each kernel's threads one after the other, the threads in a scrambled
#   order (bench.cuh's for_each).  Its check values (the hull's size, the
#   sums of its x and y, its first vertex) must equal those of nessie's CPU
#   executable of quickhull.nesl at every size below, from the degenerate
#   hulls of 1 to 5 points to 10^6 points;
#   run twice at each size, so that a call that reads what the one before
#   left behind shows.  The harness compares the same values on the GPU.
# - bench/scripts-parse: harness.py and peers/peers.py are valid Python
#   (CI has neither JAX nor CuPy to run the peers).
# - bench/harness-report: harness.py's report of a made-up GPU run
#   (tests/bench/report_test.py): the ratios against the peers, by call
#   and by device time, in results.tsv and ratios.dat, a peer whose check
#   is a MISMATCH in none.
. tests/suites/lib.sh
SIZES="1 2 3 4 5 7 10 100 1000 10000 100000 1000000"
CXX=${CXX:-c++}

# nessie's check values, one line a size: quickhull.nesl without its size,
# then check(run_once(input(N))) for each, as the harness ends it
{ sed '/^n = /d' tests/bench/quickhull.nesl
  for k in $SIZES; do echo "check(run_once(input($k)));"; done; } > "$OUT/quickhull.nesl"
detail=""
if ! "$NESSIE" --target=cpu -o "$OUT/quickhull" "$OUT/quickhull.nesl" > "$OUT/quickhull.build" 2>&1; then
  detail="nessie --target=cpu failed: $(head -5 "$OUT/quickhull.build")"
elif ! "$OUT/quickhull" > "$OUT/quickhull.out" 2> "$OUT/quickhull.err"; then
  detail="nessie's quickhull failed: $(head -5 "$OUT/quickhull.err")"
elif ! "$CXX" -std=c++17 -O2 -Wall -Wextra -Werror -DBENCH_HOST -Itests/bench/cuda/host -x c++ \
    -o "$OUT/quickhull_host" tests/bench/cuda/quickhull.cu > "$OUT/quickhull_host.build" 2>&1; then
  detail="$CXX -DBENCH_HOST failed on cuda/quickhull.cu: $(head -8 "$OUT/quickhull_host.build")"
else
  sed -n 's/^it = \[\(.*\)\] : \[float\]$/\1/p' "$OUT/quickhull.out" | tr -d ',' > "$OUT/nessie.check"
  : > "$OUT/host.check"
  for k in $SIZES; do
    if ! "$OUT/quickhull_host" "$k" 1 > "$OUT/host.$k.out" 2>&1; then
      detail="$detail
the baseline at n = $k failed: $(head -3 "$OUT/host.$k.out")"
      echo "(failed)" >> "$OUT/host.check"
    else
      sed -n 's/^check: //p' "$OUT/host.$k.out" >> "$OUT/host.check"
    fi
  done
  # compared as numbers (nessie prints 2.0, the baseline 2): the values
  # are integers and halves, exact in both
  detail="$detail$(echo "$SIZES" | tr ' ' '\n' | paste - "$OUT/nessie.check" "$OUT/host.check" | awk -F '\t' '
    { n = split($2, a, " "); m = split($3, b, " "); same = n == m && n > 0
      for (i = 1; same && i <= n; i++) same = a[i] + 0 == b[i] + 0
      if (!same) printf "\nn = %s: nessie %s, the baseline %s", $1, $2, $3 }')"
fi
if [ -z "$detail" ]; then pass bench/quickhull-host
else fail bench/quickhull-host "$(printf '%s\n' "$detail" | sed '/^$/d')"; fi

if err=$(python3 -c 'import sys
for f in sys.argv[1:]:
    compile(open(f).read(), f, "exec")' tests/bench/harness.py tests/bench/peers/peers.py 2>&1); then
  pass bench/scripts-parse
else
  fail bench/scripts-parse "$err"
fi

if err=$(python3 tests/bench/report_test.py "$OUT/report" 2>&1); then
  pass bench/harness-report
else
  fail bench/harness-report "$err"
fi
finish
