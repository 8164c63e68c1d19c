# Issue 40 item 2: the build cache (codegen/cache.c).  A second build of
# an unchanged program runs no compiler, only the linker (-v shows no
# `-c` command); --no-cache compiles; a damaged entry (cut short, or a
# byte changed) is found out and compiled again; two builds at once both
# succeed; the least recently used entries go past NESSIE_CACHE_SIZE;
# and a cache directory that cannot be used safely (a file in its place,
# a link or a directory of another user, a directory others may write)
# gives one warning and a build without it.  The cache is this test's
# own, under its temporary directory.
set -u
case $NESSIE in /*) ;; *) NESSIE=$PWD/$NESSIE ;; esac
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
export NESSIE_CFLAGS=-O0 # the compiler's speed is not what is tested
export NESSIE_CACHE_DIR="$tmp/cache"
unset NESSIE_CACHE_SIZE
prog=tests/programs/lib_permute.nesl # several units (split_build.sh)
grep -v ' = fn : ' tests/programs/lib_permute.expected > "$tmp/expected"

# build NAME [OPTION...]: builds $prog into $tmp/NAME with -v (into
# $tmp/NAME.log) and checks what the executable prints
build() {
  name=$1; shift
  "$NESSIE" -v --target=cpu "$@" -o "$tmp/$name" "$prog" > "$tmp/$name.log" 2>&1 ||
    { echo "build $name failed: $(tail -5 "$tmp/$name.log")"; exit 1; }
  "$tmp/$name" > "$tmp/$name.out" 2>&1
  cmp -s "$tmp/$name.out" "$tmp/expected" || { echo "$name prints: $(diff "$tmp/$name.out" "$tmp/expected" | head -5)"; exit 1; }
}
compiles() { grep -c ' -c ' "$tmp/$1.log"; }
entries() { find "$tmp/cache" -type f -name '????????????????????????????????????????????????????????????????' | wc -l; }

build cold
units=$(compiles cold)
[ "$units" -gt 1 ] || { echo "the first build compiled $units units, expected several: $(cat "$tmp/cold.log")"; exit 1; }
[ "$(entries)" = "$units" ] || { echo "the cache holds $(entries) entries after $units units"; exit 1; }
build warm
[ "$(compiles warm)" = 0 ] || { echo "the second build compiled again: $(grep ' -c ' "$tmp/warm.log")"; exit 1; }
[ "$(grep -c 'from the cache' "$tmp/warm.log")" = "$units" ] || { echo "-v does not say where the objects came from: $(cat "$tmp/warm.log")"; exit 1; }

# --no-cache compiles every unit, and leaves the cache as it is
before=$(ls -lR "$tmp/cache")
build nocache --no-cache
[ "$(compiles nocache)" = "$units" ] || { echo "--no-cache compiled $(compiles nocache) units of $units"; exit 1; }
[ "$(ls -lR "$tmp/cache")" = "$before" ] || { echo "--no-cache changed the cache"; exit 1; }

# damaged entries: one cut to half, one with a byte changed; both are
# compiled again and replaced
set -- $(find "$tmp/cache" -type f | sort)
size=$(wc -c < "$1")
truncate -s $((size / 2)) "$1"
printf 'X' | dd of="$2" bs=1 seek=200 conv=notrunc 2>/dev/null
build damaged
[ "$(compiles damaged)" = 2 ] || { echo "after two damaged entries, $(compiles damaged) units compiled, expected 2"; exit 1; }
build repaired
[ "$(compiles repaired)" = 0 ] || { echo "the damaged entries were not replaced"; exit 1; }

# two builds of one program at once, from an empty cache
rm -rf "$tmp/cache"
"$NESSIE" --target=cpu -o "$tmp/a" "$prog" > "$tmp/a.log" 2>&1 & pa=$!
"$NESSIE" --target=cpu -o "$tmp/b" "$prog" > "$tmp/b.log" 2>&1 & pb=$!
wait $pa || { echo "the first of two builds at once failed: $(cat "$tmp/a.log")"; exit 1; }
wait $pb || { echo "the second of two builds at once failed: $(cat "$tmp/b.log")"; exit 1; }
for x in a b; do
  "$tmp/$x" > "$tmp/$x.out" 2>&1
  cmp -s "$tmp/$x.out" "$tmp/expected" || { echo "build $x of two at once prints something else"; exit 1; }
  [ ! -s "$tmp/$x.log" ] || { echo "build $x of two at once said: $(cat "$tmp/$x.log")"; exit 1; }
done
[ -z "$(find "$tmp/cache" -name 'tmp-*')" ] || { echo "temporary entries left: $(find "$tmp/cache" -name 'tmp-*')"; exit 1; }
build after
[ "$(compiles after)" = 0 ] || { echo "after two builds at once, a third compiled again"; exit 1; }

# the bound: a cache of one byte keeps nothing; 0 turns it off
rm -rf "$tmp/cache"
NESSIE_CACHE_SIZE=1 build tiny
[ "$(entries)" = 0 ] || { echo "NESSIE_CACHE_SIZE=1 kept $(entries) entries"; exit 1; }
rm -rf "$tmp/cache"
NESSIE_CACHE_SIZE=0 build off
[ ! -e "$tmp/cache" ] || { echo "NESSIE_CACHE_SIZE=0 made the cache"; exit 1; }
# least recently used first: sqr built, then lib_permute, then sqr again
# (a use: its entry is now the most recent); a new program past the
# bound evicts lib_permute's entries, not sqr's older one
rm -rf "$tmp/cache"
printf 'function sqr(x) = x * x;\nsqr(3);\n' > "$tmp/sqr.nesl"
printf 'function cube(x) = x * x * x;\ncube(3);\n' > "$tmp/cube.nesl"
small() { # small NAME [ENV...]: builds $tmp/NAME.nesl with -v into $tmp/NAME.log
  name=$1; shift
  env "$@" "$NESSIE" -v --target=cpu -o "$tmp/$name" "$tmp/$name.nesl" > "$tmp/$name.log" 2>&1 ||
    { echo "build of $name failed: $(cat "$tmp/$name.log")"; exit 1; }
}
small sqr
sqr_size=$(find "$tmp/cache" -type f | xargs cat | wc -c)
sleep 0.05; build lru1
sleep 0.05; small sqr
[ "$(compiles sqr)" = 0 ] || { echo "sqr was compiled again"; exit 1; }
sleep 0.05; small cube NESSIE_CACHE_SIZE=$((3 * sqr_size))
small sqr
[ "$(compiles sqr)" = 0 ] || { echo "the entry used last (sqr's) was evicted"; exit 1; }
build lru2
[ "$(compiles lru2)" = "$units" ] || { echo "the entries used least recently (lib_permute's) were kept"; exit 1; }

# caches that cannot be used: one warning, and the build goes on
hostile() { # hostile WHAT DIR: builds with NESSIE_CACHE_DIR=DIR
  what=$1
  NESSIE_CACHE_DIR=$2 "$NESSIE" --target=cpu -o "$tmp/h" "$prog" > "$tmp/h.log" 2>&1 ||
    { echo "$what: the build failed: $(cat "$tmp/h.log")"; exit 1; }
  "$tmp/h" > "$tmp/h.out" 2>&1
  cmp -s "$tmp/h.out" "$tmp/expected" || { echo "$what: the executable prints something else"; exit 1; }
  [ "$(grep -c 'warning: the build cache' "$tmp/h.log")" = 1 ] && [ "$(wc -l < "$tmp/h.log")" = 1 ] ||
    { echo "$what: expected one warning, got: $(cat "$tmp/h.log")"; exit 1; }
}
echo data > "$tmp/file"
hostile "a file in its place" "$tmp/file"
hostile "a file in its path" "$tmp/file/cache"
mkdir -m 777 "$tmp/open"
hostile "a directory others may write" "$tmp/open"
[ -z "$(ls "$tmp/open")" ] || { echo "a directory others may write was written: $(ls "$tmp/open")"; exit 1; }
if [ "$(id -u)" = 0 ]; then
  # another user's link to a directory of ours, and another user's directory
  mkdir -m 700 "$tmp/mine"
  ln -s "$tmp/mine" "$tmp/planted"
  chown -h nobody "$tmp/planted"
  hostile "a link of another user" "$tmp/planted"
  [ -z "$(ls "$tmp/mine")" ] || { echo "the planted link was followed: $(ls "$tmp/mine")"; exit 1; }
  mkdir -m 700 "$tmp/theirs"
  chown nobody "$tmp/theirs"
  hostile "a directory of another user" "$tmp/theirs"
else
  # no permission (root has every permission: not tested as root)
  mkdir -m 500 "$tmp/readonly"
  hostile "a directory without permission to write" "$tmp/readonly"
fi
exit 0
