# --types, --dump=typed and --help print what README.md promises.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'function sqr(x) = x * x;\ndatatype point(float, float);\np = point(1.0, 2.0);\n(sqr(3), t);\n' > "$tmp/p.nesl"
"$NESSIE" --types "$tmp/p.nesl" > "$tmp/types"
printf 'sqr = fn : a -> a :: (a in number)\npoint = fn : (float, float) -> point\n' > "$tmp/types.want"
cmp -s "$tmp/types" "$tmp/types.want" || { echo "--types:"; diff "$tmp/types.want" "$tmp/types"; exit 1; }
"$NESSIE" --dump=typed "$tmp/p.nesl" > "$tmp/typed"
cat > "$tmp/typed.want" <<'WANT'
function sqr(x) = x * x;
  % sqr : a -> a :: (a in number) %
datatype point(float, float);
  % point : (float, float) -> point %
p = point(1.0, 2.0);
  % : point %
(sqr(3), t);
  % : int, bool %
WANT
cmp -s "$tmp/typed" "$tmp/typed.want" || { echo "--dump=typed:"; diff "$tmp/typed.want" "$tmp/typed"; exit 1; }
# the typed dump is itself a NESL program with the same types
"$NESSIE" --types "$tmp/typed" > /dev/null 2>&1 || true
cp "$tmp/typed" "$tmp/typed.nesl"
"$NESSIE" --types "$tmp/typed.nesl" | cmp -s - "$tmp/types.want" || { echo "typed dump does not re-check"; exit 1; }
"$NESSIE" --help | grep -q '^usage: nessie' || { echo "--help has no usage line"; exit 1; }
# --help and :help list the stages of the pipeline's table, in its order,
# and every stage listed is one --dump and the REPL's :STAGE accept
stages=$("$NESSIE" --help | sed -n '/^  --dump=STAGE/,/^  --interp/p' | sed -n 's/^                     \([a-z][a-z]*\) .*/\1/p' | tr '\n' ' ')
[ "$stages" = "ast typed mono flat lcu pdg ilp fused c cuda " ] || { echo "--help lists the stages: '$stages'"; exit 1; }
repl_stages=$(echo ':help' | "$NESSIE" | sed -n '/^  :STAGE/,/^  :set/p' | sed -n 's/^                     \([a-z][a-z]*\) .*/\1/p' | tr '\n' ' ')
[ "$repl_stages" = "$stages" ] || { echo ":help lists the stages: '$repl_stages'"; exit 1; }
for st in $stages; do
  "$NESSIE" --dump=$st "$tmp/p.nesl" > "$tmp/dump.$st" 2>&1 || { echo "--dump=$st fails"; exit 1; }
  printf ':%s sqr(2)\n' "$st" | "$NESSIE" > "$tmp/repl.$st" 2>&1 && [ -s "$tmp/repl.$st" ] &&
    ! grep -q 'unknown command' "$tmp/repl.$st" || { echo ":$st fails: $(cat "$tmp/repl.$st")"; exit 1; }
done
engines=$("$NESSIE" --help | sed -n '/^  --interp/,/^$/p' | sed -n 's/^                     \([a-z][a-z]*\) .*/\1/p' | tr '\n' ' ')
[ "$engines" = "eval flat lcu " ] || { echo "--help lists the interpreters: '$engines'"; exit 1; }
for e in $engines; do
  printf ':set interp %s\n1 + 2;\n' "$e" | "$NESSIE" | grep -q '^it = 3 : int$' || { echo ":set interp $e"; exit 1; }
done
# :set stats on agrees with :help: counts after each statement, not totals
out=$(printf ':set stats on\nsum({1 : i in [0:10]});\nsum({1 : i in [0:10]});\n' | "$NESSIE")
[ "$(printf '%s\n' "$out" | grep -c '^stats: 2 calls, 1 primitive calls$')" -eq 2 ] || { echo ":set stats on: $out"; exit 1; }
echo ':help' | "$NESSIE" | grep -q ':set stats on    after each statement' || { echo ":help on stats"; exit 1; }
"$NESSIE" --version | grep -q '^nessie [0-9]' || { echo "--version"; exit 1; }
"$NESSIE" --frobnicate 2>&1 | grep -q "unknown option '--frobnicate'" || { echo "unknown option message"; exit 1; }
exit 0
