# `nessie < prog.nesl` prints what `nessie --interp prog.nesl` prints: a
# statement ends where the parser says, so a let over several lines (its
# bindings end in ';') is read whole.  These corpus programs have such
# lets; each failed through a pipe before the REPL asked the parser.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for n in lang_let_scoping alg_norm2 alg_rle alg_quicksort alg_primes alg_segscan alg_spmv; do
  f=tests/programs/$n.nesl
  [ -f "$f" ] || { echo "missing $f"; exit 1; }
  grep -q 'let .*;[ ]*$' "$f" || { echo "$f has no let over several lines: choose another"; exit 1; }
  "$NESSIE" --interp "$f" > "$tmp/file" 2> /dev/null
  "$NESSIE" < "$f" > "$tmp/pipe" 2> "$tmp/pipe.err"
  cmp -s "$tmp/file" "$tmp/pipe" || { echo "$n differs through a pipe:"; diff "$tmp/file" "$tmp/pipe" | head; cat "$tmp/pipe.err" | head; exit 1; }
  [ ! -s "$tmp/pipe.err" ] || { echo "$n: messages through a pipe: $(head -3 "$tmp/pipe.err")"; exit 1; }
done
# the same through the flat and λcu interpreters (:set interp), which
# compile each statement alone and share the values of the earlier ones
# through the evaluator's store
for n in lang_let_scoping alg_rle alg_norm2; do
  f=tests/programs/$n.nesl
  for e in flat lcu; do
    "$NESSIE" --interp=$e "$f" > "$tmp/file" 2> /dev/null
    { echo ":set interp $e"; cat "$f"; } | "$NESSIE" 2> "$tmp/pipe.err" | sed 1d > "$tmp/pipe"
    cmp -s "$tmp/file" "$tmp/pipe" || { echo "$n under $e differs through a pipe:"; diff "$tmp/file" "$tmp/pipe" | head; exit 1; }
    [ ! -s "$tmp/pipe.err" ] || { echo "$n under $e: $(head -3 "$tmp/pipe.err")"; exit 1; }
  done
done
exit 0
