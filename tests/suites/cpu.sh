# cpu: the executables of the CPU target: the corpus, the run-time error
# programs, our own cases (tests/exec) and the teaching examples, built
# in parallel, run, and compared as the interpreters' transcripts are
# (tests/exec/check.sh: tests cpu/NAME); then each corpus executable
# prints the same on one thread as on two (omp-threads/NAME): the
# reductions and scans cut the work into fixed chunks, not per thread.
. tests/suites/lib.sh
sh tests/exec/check.sh cpu "$BUILD" "$OUT/cpu" > "$OUT/cpu.log" 2>&1
relay < "$OUT/cpu.log"
for f in tests/programs/*.nesl; do
  n=$(basename "$f" .nesl)
  [ -x "$OUT/cpu/$n" ] || continue
  OMP_NUM_THREADS=1 timeout 300 "$OUT/cpu/$n" > "$OUT/cpu/$n.omp1" 2>&1
  OMP_NUM_THREADS=2 timeout 300 "$OUT/cpu/$n" > "$OUT/cpu/$n.omp2" 2>&1
  if cmp -s "$OUT/cpu/$n.omp1" "$OUT/cpu/$n.omp2"; then pass "omp-threads/$n"
  else fail "omp-threads/$n" "$(diff "$OUT/cpu/$n.omp1" "$OUT/cpu/$n.omp2" | head -6)"; fi
done
finish
