# Issue 38, item 3: :pdg replaces no file.  It once opened
# nessie-pdg-N.dot (and had dot write nessie-pdg-N.png) following links
# and replacing what was there, N starting at 1 in every session, so a
# second session wrote over the first one's graphs, and a link planted
# under that name made it write wherever the link pointed.  Now each
# file is made new (O_EXCL, no link followed, dot's picture written to a
# file nessie made), and a name that is taken is passed over.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nessie=$(cd "$(dirname "$NESSIE")" && pwd)/$(basename "$NESSIE")
cd "$tmp" || exit 1
echo precious > victim
ln -s victim nessie-pdg-1.dot       # a link to a file of the user's
echo mine > nessie-pdg-2.dot        # a file of the user's
ln -s victim nessie-pdg-3.png       # the picture's name taken, by a link
ln -s nowhere nessie-pdg-4.dot      # a dangling link: O_CREAT would follow it
stmt=':pdg sum({x * 2 : x in [1, 2, 3]});'
printf '%s\n' "$stmt" | "$nessie" > one.out 2> one.err
[ ! -s one.err ] || { echo ":pdg: $(cat one.err)"; exit 1; }
grep -qx 'wrote nessie-pdg-5.dot' one.out || { echo "the first session's :pdg printed: $(cat one.out)"; ls -l; exit 1; }
[ "$(cat victim)" = precious ] || { echo "the link's target was written"; exit 1; }
[ "$(cat nessie-pdg-2.dot)" = mine ] || { echo "the user's nessie-pdg-2.dot was replaced"; exit 1; }
[ -L nessie-pdg-1.dot ] && [ -L nessie-pdg-3.png ] && [ -L nessie-pdg-4.dot ] || { echo "a link was replaced"; ls -l; exit 1; }
[ ! -e nowhere ] || { echo "the dangling link was followed"; exit 1; }
[ ! -e nessie-pdg-3.dot ] || { echo "nessie-pdg-3.dot was made though nessie-pdg-3.png was taken"; exit 1; }
grep -q 'subgraph cluster_region_1' nessie-pdg-5.dot || { echo "nessie-pdg-5.dot holds no graph"; exit 1; }
# a second session does not write over the first one's graph
cp nessie-pdg-5.dot first.dot
printf '%s\n%s\n' "$stmt" "$stmt" | "$nessie" > two.out 2> two.err
[ ! -s two.err ] || { echo "second session: $(cat two.err)"; exit 1; }
grep -qx 'wrote nessie-pdg-6.dot' two.out && grep -qx 'wrote nessie-pdg-7.dot' two.out ||
  { echo "the second session's :pdg printed: $(cat two.out)"; exit 1; }
cmp -s first.dot nessie-pdg-5.dot || { echo "the second session changed the first one's graph"; exit 1; }
# without dot the picture's name is not left behind as an empty file
printf '%s\n' "$stmt" | PATH=/nonexistent "$nessie" > nodot.out 2>&1
grep -qx 'wrote nessie-pdg-8.dot' nodot.out && [ ! -e nessie-pdg-8.png ] || { echo "without dot: $(cat nodot.out)"; ls; exit 1; }
exit 0
