# The ILP of every region of every corpus program is solved by GLPK, not
# by the greedy fallback, and in under 500 ms (--stats prints each
# region's time).  The design's budget is 50 ms a region, which a quiet
# machine meets (docs/fusion.md); the test's bound is ten times that, so
# that it catches a solve that blows up and not a shared machine's noise:
# at 50 ms it failed on a busy 2-core AMD machine at the base commit too
# (alg_strsearch's refine^ 62-66 ms, whole_append 50-60 ms, 2026-12-07).
# --stats comes with a run of the program (--interp=lcu), most of this
# test's time: the programs run one a processor at a time (107 -> 65 s
# on the 2-core machine), each solve still on one processor.
set -u
if [ "${1:-}" = --one ]; then
  f=$2
  out=$("$NESSIE" --interp=lcu --stats "$f" 2>&1 >/dev/null)
  printf '%s\n' "$out" | grep '^stats: fusion: .*ms)' |
    awk -v n="$(basename "$f")" '{ for (i = 1; i <= NF; i++) if ($i ~ /ms\),?$/ && $(i-1) + 0 >= 500) print n ": " $0 }'
  printf '%s\n' "$out" | grep '^stats: fusion: .*greedy' | sed "s|^|$(basename "$f"): |"
  exit 0
fi
export NESSIE
bad=$(ls tests/programs/*.nesl tests/flat/*.nesl |
      xargs -n 1 -P "$(nproc 2>/dev/null || echo 2)" sh "$0" --one | sort)
[ -z "$bad" ] || { printf '%s\n' "$bad" | head -10; exit 1; }
exit 0
