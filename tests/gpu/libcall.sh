#!/bin/sh
# tests/gpu/libcall.sh BUILD OUTDIR [N]: on a machine with an NVIDIA GPU,
# the fixed cost of a call into a library of the CUDA target: C and
# Python, each beside a baseline in the same run (tests/library/libcall.sh
# with cuda; docs/library.md, "The cost of a call", has a place for the
# figures).  Run from the repository's root after `make`:
#
#     sh tests/gpu/libcall.sh build build/gpu-libcall
exec sh tests/library/libcall.sh "${1:?usage: sh $0 BUILD OUTDIR [N]}" "${2:?usage: sh $0 BUILD OUTDIR [N]}" cuda "${3:-100000}"
