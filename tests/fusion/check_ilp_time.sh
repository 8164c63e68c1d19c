# The ILP of every region of every corpus program is solved in under
# 50 ms (--stats prints each region's time), and by GLPK, not by the
# greedy fallback.
set -u
bad=""
for f in tests/programs/*.nesl tests/flat/*.nesl; do
  out=$("$NESSIE" --interp=lcu --stats "$f" 2>&1 >/dev/null)
  slow=$(printf '%s\n' "$out" | grep '^stats: fusion: .*ms)' |
         awk -v n="$(basename "$f")" '{ for (i = 1; i <= NF; i++) if ($i ~ /ms\),?$/ && $(i-1) + 0 >= 50) print n ": " $0 }')
  greedy=$(printf '%s\n' "$out" | grep '^stats: fusion: .*greedy' | sed "s|^|$(basename "$f"): |")
  bad="$bad$slow$greedy"
done
[ -z "$bad" ] || { printf '%s\n' "$bad" | head -10; exit 1; }
exit 0
