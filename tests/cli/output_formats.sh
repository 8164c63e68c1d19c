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
"$NESSIE" --version | grep -q '^nessie [0-9]' || { echo "--version"; exit 1; }
"$NESSIE" --frobnicate 2>&1 | grep -q "unknown option '--frobnicate'" || { echo "unknown option message"; exit 1; }
exit 0
