# A program of more than 40 kernels (lib_permute's make five) is
# compiled as several translation units (docs/codegen.md, "Building"):
# --keep keeps each one, the
# executable prints what one unit's would, NESSIE_JOBS limits the
# compilers at once, and a failing compiler fails the build.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prog=tests/programs/lib_permute.nesl
units=$("$NESSIE" --dump=c "$prog" | grep -c '^/\* translation unit [0-9]* of ')
[ "$units" -gt 1 ] || { echo "$prog: $units translation units in --dump=c, expected several"; exit 1; }
export NESSIE_CFLAGS=-O0
NESSIE_JOBS=1 "$NESSIE" --target=cpu --keep -o "$tmp/m" "$prog" || { echo "the split build failed"; exit 1; }
kept=$(ls "$tmp" | grep -c '^m\(_[0-9]*\)\{0,1\}\.c$')
[ "$kept" = "$units" ] || { echo "--keep kept $kept sources, expected $units: $(ls "$tmp")"; exit 1; }
"$NESSIE" --dump=c "$prog" > "$tmp/dump.c"
cat "$tmp/m.c" > "$tmp/kept.c"
i=2
while [ "$i" -le "$units" ]; do printf '\n' >> "$tmp/kept.c"; cat "$tmp/m_$i.c" >> "$tmp/kept.c"; i=$((i + 1)); done
cmp -s "$tmp/dump.c" "$tmp/kept.c" || { echo "the kept sources are not --dump=c's units"; exit 1; }
"$tmp/m" > "$tmp/out" 2>&1
grep -v ' = fn : ' tests/programs/lib_permute.expected > "$tmp/expected"
cmp -s "$tmp/out" "$tmp/expected" || { echo "the executable prints:"; diff "$tmp/out" "$tmp/expected" | head -5; exit 1; }
# a bad NESSIE_JOBS is said and ignored
err=$(NESSIE_JOBS=lots "$NESSIE" --target=cpu -o "$tmp/m2" "$prog" 2>&1) || { echo "NESSIE_JOBS=lots: $err"; exit 1; }
printf '%s' "$err" | grep -q "NESSIE_JOBS=lots is not a number" || { echo "NESSIE_JOBS=lots: no warning: $err"; exit 1; }
# a compiler that fails: status 1 and one message, no executable
rm -f "$tmp/m3"
err=$(NESSIE_CC=false "$NESSIE" --target=cpu -o "$tmp/m3" "$prog" 2>&1); rc=$?
[ "$rc" = 1 ] || { echo "NESSIE_CC=false: exit $rc, expected 1"; exit 1; }
[ "$(printf '%s\n' "$err" | grep -c 'error: the C compiler (false) failed')" = 1 ] ||
  { echo "NESSIE_CC=false: $err"; exit 1; }
[ ! -e "$tmp/m3" ] || { echo "NESSIE_CC=false left an executable"; exit 1; }
exit 0
