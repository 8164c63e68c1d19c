# golden: the later stages of a dozen small programs, as golden files
# (tests/golden/SOURCES lists each NAME and its source): the program's
# --dump=fused is tests/golden/NAME.fused, its --dump=c NAME.c and its
# --dump=cuda NAME.cu, byte for byte.  Tests golden/NAME.fused,
# golden/NAME.c, golden/NAME.cu.  After a change to fusion or code
# generation, tests/golden/update.sh (or `make golden`) writes them
# again: read the diff.
. tests/suites/lib.sh
grep -v '^#' tests/golden/SOURCES | while read -r n src; do
  [ -n "$n" ] && echo "$n $src"
done > "$OUT/sources"
while read -r n src; do
  for stage in fused c cuda; do
    ext=$stage; [ $stage = cuda ] && ext=cu
    want=tests/golden/$n.$ext
    if ! "$NESSIE" --dump=$stage "$src" > "$OUT/$n.$ext" 2> "$OUT/$n.$ext.err"; then
      fail "golden/$n.$ext" "--dump=$stage $src failed: $(head -5 "$OUT/$n.$ext.err")"
    elif [ ! -f "$want" ]; then
      fail "golden/$n.$ext" "no $want (tests/golden/update.sh writes it)"
    elif ! cmp -s "$OUT/$n.$ext" "$want"; then
      fail "golden/$n.$ext" "the dump differs (tests/golden/update.sh writes it again): $(diff "$want" "$OUT/$n.$ext")"
    else pass "golden/$n.$ext"; fi
  done
done < "$OUT/sources"
finish
