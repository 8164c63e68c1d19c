#!/bin/sh
# tools/deb-control.sh ROOT VERSION ARCH MAINTAINER: writes ROOT/DEBIAN/control
# for `make deb`, ROOT being an install of nessie with PREFIX=/usr.
#
# Depends is what nessie itself needs and what its builds run:
# - the shared libraries of ROOT/usr/bin/nessie (Boehm GC, GLPK, libedit,
#   nettle, libc), by dpkg-shlibdeps where dpkg-dev is installed, with the
#   lowest versions their symbols need; else each library the binary
#   names (objdump's NEEDED) mapped to the package that holds it (dpkg -S),
#   without versions;
# - gcc, the `cc` the CPU target compiles with (its libgcc-N-dev brings
#   OpenMP, omp.h and libgomp), and libc6-dev, whose headers and libm the
#   generated C includes and links, which gcc only recommends.
# The CUDA target needs nvcc, which Debian ships as nvidia-cuda-toolkit
# (non-free): a Suggests, since the CPU target works without it.
set -eu
ROOT=$1 VERSION=$2 ARCH=$3 MAINTAINER=$4
BIN=$ROOT/usr/bin/nessie
[ -x "$BIN" ] || { echo "deb-control.sh: no $BIN: install into $ROOT with PREFIX=/usr first" >&2; exit 1; }

libs=""
if command -v dpkg-shlibdeps > /dev/null 2>&1; then
  # dpkg-shlibdeps reads the source package's debian/control: a minimal
  # one in a directory of its own
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  mkdir "$work/debian"
  printf 'Source: nessie\n\nPackage: nessie\nArchitecture: any\n' > "$work/debian/control"
  bin=$(cd "$(dirname "$BIN")" && pwd)/nessie
  libs=$(cd "$work" && dpkg-shlibdeps -O -e "$bin" 2> /dev/null | sed -n 's/^shlibs:Depends=//p')
fi
if [ -z "$libs" ]; then
  for lib in $(objdump -p "$BIN" | awk '$1 == "NEEDED" { print $2 }'); do
    path=$(ldconfig -p | awk -v l="$lib" '$1 == l { print $NF; exit }')
    [ -n "$path" ] || { echo "deb-control.sh: $lib not found by ldconfig" >&2; exit 1; }
    # dpkg -S knows the path the package installed, /lib or /usr/lib
    pkg=$(dpkg -S "$path" 2> /dev/null || dpkg -S "$(readlink -f "$path")" 2> /dev/null ||
          dpkg -S "/usr$path" 2> /dev/null) || { echo "deb-control.sh: no package holds $path" >&2; exit 1; }
    pkg=${pkg%%:*}
    case ", $libs, " in *", $pkg, "*) ;; *) libs=${libs:+$libs, }$pkg ;; esac
  done
fi

size=$(du -sk --exclude=DEBIAN "$ROOT" | cut -f1)
mkdir -p "$ROOT/DEBIAN"
cat > "$ROOT/DEBIAN/control" <<EOF
Package: nessie
Version: $VERSION
Architecture: $ARCH
Maintainer: $MAINTAINER
Installed-Size: $size
Depends: $libs, gcc, libc6-dev
Suggests: nvidia-cuda-toolkit
Section: devel
Priority: optional
Description: compiler from NESL, the nested data-parallel language, to CUDA and C
 nessie compiles NESL programs, Guy Blelloch's nested data-parallel
 language, to executables that run on an NVIDIA GPU (CUDA) or on every
 core of the CPU (C with OpenMP), flattening nested parallelism into
 flat segmented operations and fusing the kernels.  It also runs NESL in
 a REPL and in interpreters, and shows the program after each stage of
 the compiler.
 .
 The CPU target needs only gcc.  The GPU target needs nvcc, the CUDA
 toolkit (nvidia-cuda-toolkit, or NVIDIA's own in /usr/local/cuda), of a
 release that can link the CUDA runtime library this package was built
 with.
EOF
