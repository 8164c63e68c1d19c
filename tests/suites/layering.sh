# layering: the IRs stand apart from the front end (tests/README.md,
# "The layering check"; docs/design.md draws the rule).  The back half
# of the compiler -- fusion/, codegen/, lcu/ and flat/ -- must include
# nothing of frontend/ or flatten/ directly, so that it can be built and
# tested from λcu (or the flat IR) alone.  Each #include line
# of their .c and .h files is checked: one that names frontend/ or
# flatten/, or a quoted header that resolves into them as the compiler
# resolves it (beside the file, then the Makefile's -I. -IBUILD/frontend
# -Ifrontend: a bare "types.h" is frontend/types.h).  Headers included
# through another header are that header's business, not counted here.
# One test per directory, layering/DIR; a failure lists the lines.
. tests/suites/lib.sh
roots="$(realpath -m frontend) $(realpath -m flatten) $(realpath -m "$BUILD/frontend")"
for dir in fusion codegen lcu flat; do
  bad=""
  for file in "$dir"/*.c "$dir"/*.h; do
    [ -f "$file" ] || continue
    grep -n '^[[:space:]]*#[[:space:]]*include' "$file" > "$OUT/includes"
    while IFS= read -r line; do
      hit=false
      case $line in *frontend/* | *flatten/*) hit=true ;; esac
      case $line in
      *'"'*'"'*)
        p=$(printf '%s\n' "$line" | sed 's/^[^"]*"\([^"]*\)".*/\1/')
        for cand in "$(dirname "$file")/$p" "$p" "$BUILD/frontend/$p" "frontend/$p"; do
          [ -f "$cand" ] || continue
          r=$(realpath -m "$cand")
          for root in $roots; do
            case $r in "$root"/*) hit=true ;; esac
          done
          break
        done ;;
      esac
      $hit && bad="$bad
$file:$line"
    done < "$OUT/includes"
  done
  if [ -z "$bad" ]; then pass "layering/$dir"
  else fail "layering/$dir" "includes of frontend/ or flatten/:$bad"; fi
done
finish
