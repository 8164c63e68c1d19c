# The ILP of every region of every corpus program is solved by GLPK, not
# by the greedy fallback, and in under 500 ms (--stats prints each
# region's time).  The design's budget is 50 ms a region, which a quiet
# machine meets (docs/fusion.md); the test's bound is ten times that, so
# that it catches a solve that blows up and not a shared machine's noise:
# at 50 ms it failed on a busy 2-core AMD machine at the base commit too
# (alg_strsearch's refine^ 62-66 ms, whole_append 50-60 ms, 2026-12-07).
set -u
bad=""
for f in tests/programs/*.nesl tests/flat/*.nesl; do
  out=$("$NESSIE" --interp=lcu --stats "$f" 2>&1 >/dev/null)
  slow=$(printf '%s\n' "$out" | grep '^stats: fusion: .*ms)' |
         awk -v n="$(basename "$f")" '{ for (i = 1; i <= NF; i++) if ($i ~ /ms\),?$/ && $(i-1) + 0 >= 500) print n ": " $0 }')
  greedy=$(printf '%s\n' "$out" | grep '^stats: fusion: .*greedy' | sed "s|^|$(basename "$f"): |")
  bad="$bad$slow$greedy"
done
[ -z "$bad" ] || { printf '%s\n' "$bad" | head -10; exit 1; }
exit 0
