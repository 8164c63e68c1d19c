# docs: the dumps that docs/tour.md and examples/*.md quote are what the
# compiler prints, and the Graphviz pictures beside them are current
# (tests/docs/check.sh: one test per file).
. tests/suites/lib.sh
sh tests/docs/check.sh "$BUILD" docs/tour.md examples/*.md > "$OUT/docs.log" 2>&1
relay < "$OUT/docs.log"
finish
