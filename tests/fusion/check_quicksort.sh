# Quicksort of 100 000 keys (tests/flat/quicksort_100k.nesl) under λcu's
# interpreter, with fusion and without (--stats gives both): the kernel
# runs per level of its recursion and the elements processed both fall,
# by at least what fusion reaches today (docs/fusion.md has the numbers).
set -u
f=tests/flat/quicksort_100k.nesl
stats=$("$NESSIE" --interp=lcu --stats "$f" 2>&1 >/dev/null) || { echo "the run failed: $stats"; exit 1; }
depth=$("$NESSIE" --interp=flat --stats "$f" 2>&1 >/dev/null | sed -n 's/.*recursion depth \([0-9]*\).*/\1/p')
after=$(printf '%s\n' "$stats" | sed -n '1s/^stats: [0-9]* kernels, \([0-9]*\) runs, \([0-9]*\) elements.*/\1 \2/p')
before=$(printf '%s\n' "$stats" | sed -n 's/^stats: before fusion: [0-9]* kernels, \([0-9]*\) runs, \([0-9]*\) elements.*/\1 \2/p')
set -- $after $before
[ $# -eq 4 ] && [ -n "$depth" ] || { echo "no counts in: $stats"; exit 1; }
runs=$1 elements=$2 runs0=$3 elements0=$4
per_level=$((runs / depth))
# 42 since segment ids are found in the MAPs that read them (SEG_MAP,
# fusion/segmap.c): 1387 runs over 33 levels; 36 since the appends are
# computed where their gathers read them (MAP-gather): 1199 runs; 35
# since the else branch's pack moves into it: 1167 runs; 34 since that
# pack gives the ids its filters read (segmap.c's giver): 1135 runs; 32
# since result[0] ++ equal ++ result[1] is one append: 1073 runs; 30
# since that append reads result[0] and result[1] in place: 1011 runs;
# 25 since thunks read segment lengths and offsets themselves: 851 runs;
# 22 since a view's lengths need no segdes and #v of lengths is #sd: 757;
# 21 since the segdes of segments each taken once cannot fail: 695; 19
# since the base case's `a` is merged where it is (flatten.c,
# combine_values): 649; 16 since the MAP that makes a segdes's ranges or
# lengths shares its kernel (docs/fusion.md, "A segdes beside its MAP"):
# 515; 13 since a lifted subscript's gather is guarded and so computed
# where it is read (docs/flatten.md): 422; 10 since a SPLIT gives its
# offsets and appends check only where they can fail: 327; 9 since the
# guarded checks compute what they read themselves (guard.c) and the
# append's lengths ride on their segdes: 296 (issue 36: <= 300)
[ "$per_level" -le 9 ] || { echo "$runs runs over $depth levels: $per_level per level, expected at most 9"; exit 1; }
[ "$runs" -le 300 ] || { echo "$runs runs, expected at most 300"; exit 1; }
[ $((elements * 2)) -le "$elements0" ] ||
  { echo "$elements elements processed, expected at most half of the $elements0 without fusion"; exit 1; }
# 12,053,197 elements since the three filters and their counts are one
# SPLIT (rules.c rule_split, rule_split_counts): 17,803,908 before;
# 10,202,960 since the SPLIT reads the else branch's elements where they
# are, its pull given each element's segment (segmap.c) and the pivot
# read from the source (flatten.c, a view's subscript)
[ "$elements" -le 10250000 ] ||
  { echo "$elements elements processed, expected at most 10,250,000 (one SPLIT a level, reading in place)"; exit 1; }
[ "$runs" -lt "$runs0" ] || { echo "runs did not fall: $runs0 -> $runs"; exit 1; }
exit 0
