#!/bin/sh
# embed.sh NAME FILE: writes a C file defining `const char NAME[]`, the
# contents of FILE, so that nessie needs no files at run time.
name=$1
file=$2
echo "/* generated from $file by tools/embed.sh; do not edit */"
echo "const char $name[] ="
sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/  "/' -e 's/$/\\n"/' "$file"
echo "  ;"
