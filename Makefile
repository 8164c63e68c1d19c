# nessie: the NESL to CUDA compiler.  `make` builds build/nessie;
# `make setup` installs what the build needs; `make test` runs every test.

CC ?= gcc
ifeq ($(origin CC),default)
CC := gcc
endif
BUILD ?= build
CSTD := -std=c17
WARN := -Wall -Wextra
ifdef CI
WARN += -Werror
endif
OPT ?= -O2 -g
SAN ?=
CPPFLAGS += -D_POSIX_C_SOURCE=200809L -I. -I$(BUILD)/frontend -Ifrontend
CFLAGS += $(CSTD) $(WARN) $(OPT) $(SAN)
LDLIBS += -lgc -lglpk -ledit -lnettle -lm -lpthread
LDFLAGS += $(SAN)

VERSION := 0.1.0
# the commit built from, for `nessie --version`: `git describe` where the
# source is a git checkout (a release tarball may set COMMIT=... on make's
# command line); only [A-Za-z0-9._+-] kept, since it becomes a C string
COMMIT ?= $(shell { test -e .git && git describe --always --dirty 2>/dev/null; } | tr -cd 'A-Za-z0-9._+-')

COMMON := common/alloc.c common/diag.c common/map.c common/liveness.c common/unionfind.c common/ops.c \
          common/syntax.c common/ircheck.c
FRONTEND := frontend/ast.c frontend/ast_print.c frontend/types.c \
            frontend/typecheck.c frontend/builtins.c frontend/invariant.c
GENERATED := $(BUILD)/frontend/lexer.c $(BUILD)/frontend/parser.c \
             $(BUILD)/lib-nesl/library_text.c
EVAL := eval/value.c eval/eval.c eval/prims.c eval/io.c
# the runtime: shared by the interpreters and linked into every executable
RT := rt/value.c rt/error.c rt/ops.c rt/vector.c rt/layout.c rt/structured.c \
      rt/print.c rt/host.c rt/rand.c rt/blocks.c rt/lib.c
DRIVER := driver/main.c driver/repl.c driver/pipeline.c driver/store.c driver/version.c driver/export.c
# code generation: λcu to C and CUDA, and the driver of cc/nvcc
CODEGEN := codegen/emit.c codegen/thunk.c codegen/copyrun.c codegen/scalarfn.c codegen/cpu.c codegen/cuda.c codegen/library.c codegen/devcheck.c codegen/host.c codegen/export.c codegen/build.c codegen/cache.c
# flattening: the passes from the typed AST to the flat IR
FLATTEN := flatten/mono.c flatten/bounds.c flatten/flatten.c flatten/share.c flatten/shape.c flatten/layout.c flatten/describe.c
# the flat IR itself: constructors, layouts, printer, checker, interpreter
FLAT := flat/flat.c flat/flat_print.c flat/flat_check.c \
        flat/flat_exec.c flat/flat_interp.c
# lowering: the flat IR to λcu
LOWER := lower/lower.c
# λcu: constructors, builder, rewrite toolkit, printer, reader, checker, interpreter
LCU := lcu/lcu.c lcu/build.c lcu/known.c lcu/rewrite.c lcu/lcu_print.c lcu/lcu_read.c lcu/lcu_check.c lcu/lcu_interp.c
# fusion: simplification, the PDG, the ILP scheduler (GLPK), merging, the rules
FUSION := fusion/facts.c fusion/simplify.c fusion/pdg.c fusion/candidates.c fusion/schedule.c fusion/ilp.c \
          fusion/merge.c fusion/rules.c fusion/fuse.c fusion/dot.c fusion/canon.c fusion/segmap.c \
          fusion/delay.c fusion/devscalar.c fusion/guard.c fusion/join.c
CORE_SRCS := $(COMMON) $(FRONTEND) $(EVAL) $(RT) $(FLATTEN) $(FLAT) $(LOWER) $(LCU) $(FUSION) $(CODEGEN)
CORE_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(CORE_SRCS)) \
             $(patsubst %.c,%.o,$(GENERATED))

.PHONY: all install uninstall deb setup test test-asan golden fuzz fuzz-diff clean unit sync-corpus random-fusion gpu-test gpu-segtest bench bench-targets bench-cpu bench-chart examples
.DEFAULT_GOAL := all

# ---- the runtime that executables link: headers and a library next to
# the nessie binary (build/lib/nessie), as `make install` puts them under
# PREFIX/lib/nessie; built with OpenMP for the CPU target ----
RT_HEADERS := rt/rt.h rt/scalar.h rt/kernel.h rt/ops.def rt/host.def rt/lib.py
RUNTIME_DIR := $(BUILD)/lib/nessie
RUNTIME := $(RUNTIME_DIR)/libnessie_rt.a $(patsubst rt/%,$(RUNTIME_DIR)/include/%,$(RT_HEADERS))
RT_LIB_OBJS := $(patsubst rt/%.c,$(BUILD)/rt-lib/%.o,$(RT))

$(BUILD)/rt-lib/%.o: rt/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CSTD) $(WARN) -O2 -g -fopenmp -fPIC -MMD -MP -c -o $@ $<

$(RUNTIME_DIR)/libnessie_rt.a: $(RT_LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(RUNTIME_DIR)/include/%: rt/%
	@mkdir -p $(dir $@)
	cp $< $@

# The CUDA runtime, where nvcc is found: rt/gpu.cu (nvcc) with the same C
# objects, for the GPU target (--target=cuda).  CUDA_ARCHS are the GPU
# architectures it is built for (sm_80: A100; sm_90: H100, H200), with
# PTX for the newest so that later GPUs run it too.
NVCC ?= $(shell command -v nvcc 2>/dev/null || { test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc; })
CUDA_ARCHS ?= 80 90
NVCC_GENCODE := $(foreach a,$(CUDA_ARCHS),-gencode arch=compute_$(a),code=sm_$(a)) \
                -gencode arch=compute_$(lastword $(CUDA_ARCHS)),code=compute_$(lastword $(CUDA_ARCHS))
GPU_HEADERS := rt/gpu.h rt/gpu.cuh
ifneq ($(NVCC),)
RUNTIME += $(RUNTIME_DIR)/libnessie_rt_cuda.a $(patsubst rt/%,$(RUNTIME_DIR)/include/%,$(GPU_HEADERS))
endif

$(BUILD)/rt-gpu/gpu.o: rt/gpu.cu $(GPU_HEADERS) rt/rt.h rt/kernel.h rt/scalar.h rt/blocks.h
	@mkdir -p $(dir $@)
	$(NVCC) -std=c++17 -O3 $(NVCC_GENCODE) -Xcompiler -Wall,-fPIC -c -o $@ $<

$(RUNTIME_DIR)/libnessie_rt_cuda.a: $(RT_LIB_OBJS) $(BUILD)/rt-gpu/gpu.o
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

all: $(BUILD)/nessie $(RUNTIME)

$(BUILD)/nessie: $(CORE_OBJS) $(patsubst %.c,$(BUILD)/%.o,$(DRIVER))
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# BUILD/version.h, written again only when what it says changes, so that
# only driver/version.c is compiled again after a commit.  Where git
# cannot say (no checkout; `sudo make install`, whose git refuses a
# checkout another user owns), the commit the header names stays, and
# is "unknown" in a new one.
.PHONY: FORCE
VERSION_H = \#define NESSIE_VERSION "$(VERSION)"\n\#define NESSIE_COMMIT "$(1)"\n
$(BUILD)/version.h: FORCE
	@mkdir -p $(dir $@)
	@if [ -z '$(COMMIT)' ]; then [ -f $@ ] || printf '$(call VERSION_H,unknown)' > $@; \
	elif [ "$$(printf '$(call VERSION_H,$(COMMIT))')" != "$$(cat $@ 2>/dev/null)" ]; then \
	  printf '$(call VERSION_H,$(COMMIT))' > $@; fi

$(BUILD)/driver/version.o: $(BUILD)/version.h
$(BUILD)/driver/version.o: CPPFLAGS += -I$(BUILD)

$(BUILD)/frontend/parser.c $(BUILD)/frontend/parser.h: frontend/parser.y
	@mkdir -p $(dir $@)
	bison -Wall -Werror --header=$(BUILD)/frontend/parser.h -o $(BUILD)/frontend/parser.c $<

$(BUILD)/frontend/lexer.c: frontend/lexer.re
	@mkdir -p $(dir $@)
	re2c -W --no-generation-date -o $@ $<

$(BUILD)/lib-nesl/library_text.c: lib-nesl/builtins.nesl tools/embed.sh
	@mkdir -p $(dir $@)
	sh tools/embed.sh nesl_library_text $< > $@

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/frontend/%.o: $(BUILD)/frontend/%.c
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/lib-nesl/%.o: $(BUILD)/lib-nesl/%.c
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

# every object may include the generated parser header
$(patsubst %.c,$(BUILD)/%.o,$(CORE_SRCS) $(DRIVER)) $(BUILD)/frontend/lexer.o: $(BUILD)/frontend/parser.h

# ---- tests ----

UNIT_TESTS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(wildcard tests/unit/test_*.c))

$(BUILD)/tests/%: tests/unit/%.c tests/unit/capture.h $(CORE_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $(filter-out %.h,$^) $(LDLIBS) -lcmocka

unit: $(UNIT_TESTS)

$(BUILD)/nesl_compare: tests/nesl_compare.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -D_POSIX_C_SOURCE=200809L -o $@ $< -lm

# random well-typed λcu programs, for the differential test of fusion
$(BUILD)/gen_lcu: tests/fusion/gen_lcu.c
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -O2 -o $@ $<


# the differential test of fusion on many random programs (make test runs
# 300): `make random-fusion RANDOM_COUNT=5000`
RANDOM_COUNT ?= 5000
random-fusion: $(BUILD)/nessie $(BUILD)/gen_lcu
	sh tests/fusion/random.sh $(BUILD)/nessie $(BUILD)/gen_lcu $(BUILD)/random-fusion $(RANDOM_COUNT)
# the differential test of random NESL programs (tests/fuzz/diff.sh):
# FUZZ_SECONDS of programs from seed FUZZ_FIRST (default: the clock, so
# that each run tries new ones), in parallel, against CMU NESL where
# ../shared/oracle is built (else against eval), over FUZZ_BACKENDS
FUZZ_BACKENDS ?= eval flat lcu lcu-O0 lcu-text cpu
fuzz-diff: export FUZZ_SECONDS ?= 600
fuzz-diff: $(BUILD)/nessie $(RUNTIME) $(BUILD)/nesl_compare
	sh tests/fuzz/diff.sh $(BUILD) $(BUILD)/fuzz-diff $(or $(FUZZ_FIRST),$$(date +%s)) 2000000000 $(FUZZ_BACKENDS)
test: $(BUILD)/nessie $(RUNTIME) $(UNIT_TESTS) $(BUILD)/nesl_compare $(BUILD)/gen_lcu
	@sh tests/run.sh $(BUILD)

# every golden file written again from what the compiler prints now: the
# later stages' dumps (tests/golden), the λcu dumps (tests/lcu/golden)
# and the fused fusion cases (tests/fusion/rules).  Read the diff before
# committing it.
golden: $(BUILD)/nessie
	sh tests/golden/update.sh $(BUILD)/nessie
	sh tests/lcu/golden/update.sh $(BUILD)/nessie
	sh tests/fusion/rules/update.sh $(BUILD)/nessie

# ---- the teaching examples: `make examples` compiles each
# examples/NAME.nesl to BUILD/examples/cpu/NAME (C with OpenMP) and, where
# nvcc is found, to BUILD/examples/cuda/NAME (a GPU executable); each
# prints examples/NAME.expected (examples/README.md) ----
EXAMPLES := $(wildcard examples/*.nesl)
EXAMPLE_BINS := $(patsubst examples/%.nesl,$(BUILD)/examples/cpu/%,$(EXAMPLES))
ifneq ($(NVCC),)
EXAMPLE_BINS += $(patsubst examples/%.nesl,$(BUILD)/examples/cuda/%,$(EXAMPLES))
endif

examples: $(EXAMPLE_BINS)

$(BUILD)/examples/cpu/%: examples/%.nesl $(BUILD)/nessie $(RUNTIME)
	@mkdir -p $(dir $@)
	$(BUILD)/nessie --target=cpu $< -o $@

$(BUILD)/examples/cuda/%: examples/%.nesl $(BUILD)/nessie $(RUNTIME)
	@mkdir -p $(dir $@)
	$(BUILD)/nessie --target=cuda $< -o $@

# On a machine with an NVIDIA GPU: the CUDA executables of every test
# program, compared with their .expected, then under compute-sanitizer's
# tools (SANITIZE= to skip them).  tools/gpu-bundle.sh packs a build for a
# GPU machine that lacks the build's dependencies.
SANITIZE ?= memcheck racecheck initcheck synccheck
gpu-test: $(BUILD)/nessie $(RUNTIME) $(BUILD)/nesl_compare
	sh tests/gpu/run.sh $(BUILD) $(BUILD)/gpu-test "$(SANITIZE)"

# On a machine with an NVIDIA GPU: the runtime's segment descriptors and
# segmented skeletons against a CPU reference (tests/gpu/segtest.cu; ends
# `N passed, M failed`).  SEGTEST_FLAGS=--quick: fewer layouts, no timing.
# SEGTEST_NVCCFLAGS: the skeletons' compile-time settings to test
# (-DNESSIE_JOINED_COUNTS=1; docs/codegen.md); a change of them alone
# does not rebuild the self-test (remove it first).
SEGTEST_FLAGS ?=
SEGTEST_NVCCFLAGS ?=
$(BUILD)/gpu-tests/segtest: tests/gpu/segtest.cu $(GPU_HEADERS) rt/rt.h rt/kernel.h $(RUNTIME_DIR)/libnessie_rt_cuda.a
	@mkdir -p $(dir $@)
	$(NVCC) -std=c++17 -O3 $(SEGTEST_NVCCFLAGS) $(NVCC_GENCODE) -Xcompiler -Wall -Irt -o $@ $< $(RUNTIME_DIR)/libnessie_rt_cuda.a \
	    -Xcompiler -fopenmp -lm -lpthread

gpu-segtest: $(BUILD)/gpu-tests/segtest
	$(BUILD)/gpu-tests/segtest $(SEGTEST_FLAGS)

# ---- benchmarks (tests/bench/README.md) ----
# On a machine with an NVIDIA GPU: every benchmark of tests/bench/benchmarks.conf
# and its hand-written CUDA baseline, with and without fusion, and the JAX
# and CuPy peers; writes tests/bench/RESULTS.md, ratios.dat and, where
# gnuplot is found, ratios.png (README.md shows it).  BENCH_FLAGS go to
# tests/bench/harness.py (e.g. --only sum,dotp --runs 20).  bench-cpu: the
# same programs on the CPU target against C with OpenMP, at a small
# machine's sizes (tests/bench/RESULTS-cpu.md).  bench-chart: the charts
# from the data files (a GPU run's ratios.dat copied here from a machine
# without gnuplot).
BENCH_FLAGS ?=
bench: $(BUILD)/nessie $(RUNTIME)
	sh tests/bench/run.sh $(BUILD) $(BUILD)/bench $(BENCH_FLAGS)
	cp $(BUILD)/bench/RESULTS.md $(BUILD)/bench/ratios.dat tests/bench/
	if [ -f $(BUILD)/bench/ratios.png ]; then cp $(BUILD)/bench/ratios.png tests/bench/; fi

# issue 15's targets at the issue's sizes, in one run (tests/bench/targets.sh):
# writes $(BUILD)/bench-targets/targets.md, a line a target, met or missed.
bench-targets: $(BUILD)/nessie $(RUNTIME)
	sh tests/bench/targets.sh $(BUILD) $(BUILD)/bench-targets

bench-cpu: $(BUILD)/nessie $(RUNTIME)
	sh tests/bench/run-cpu.sh $(BUILD) $(BUILD)/bench-cpu $(BENCH_FLAGS)
	cp $(BUILD)/bench-cpu/RESULTS.md tests/bench/RESULTS-cpu.md
	cp $(BUILD)/bench-cpu/ratios.dat tests/bench/ratios-cpu.dat
	if [ -f $(BUILD)/bench-cpu/ratios.png ]; then cp $(BUILD)/bench-cpu/ratios.png tests/bench/ratios-cpu.png; fi

bench-chart:
	@command -v gnuplot > /dev/null || { echo "bench-chart: gnuplot is needed (make setup installs it)"; exit 1; }
	for d in ratios ratios-cpu; do \
	  if [ -f tests/bench/$$d.dat ]; then \
	    gnuplot -e "datafile='tests/bench/$$d.dat'; outfile='tests/bench/$$d.png'" tests/bench/chart.gp && echo "tests/bench/$$d.png"; \
	  fi; \
	done

# Sanitizer reports exit with a status no test expects, and the runner
# also fails on any report left in its output files.  An allocation too
# large for ASan's allocator returns NULL, as malloc does, so that
# tests/exec/rt_out_of_memory reports it as NESL does.  The executables of
# the CPU target are built with the sanitizers too (NESSIE_CFLAGS).
test-asan:
	ASAN_OPTIONS=exitcode=86:detect_leaks=0:allocator_may_return_null=1 UBSAN_OPTIONS=halt_on_error=1:exitcode=87:print_stacktrace=1 \
	NESSIE_CFLAGS="-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all" \
	$(MAKE) BUILD=build-asan OPT="-O1 -g -fno-omit-frame-pointer" \
	  SAN="-fsanitize=address,undefined -fno-sanitize-recover=all" test

# ---- fuzzing: libFuzzer over lexer + parser + type checker ----
# `make fuzz FUZZ_SECONDS=N` fuzzes for N seconds; FUZZ_FLAGS adds libFuzzer
# options (e.g. FUZZ_FLAGS="-fork=1 -ignore_crashes=1" to go on past a
# crash).  Crash, timeout and leak inputs are written to build-fuzz/artifacts/;
# replay one with `build-fuzz/fuzz_frontend FILE` (NESSIE_FUZZ_VERBOSE=1
# shows the diagnostics).  Leak detection is off: memory is Boehm GC's.
# -fno-sanitize-recover makes every UBSan report a crash the fuzzer stops on.

FUZZ_SECONDS ?= 60
FUZZ_FLAGS ?=
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_OBJS := $(patsubst %.c,build-fuzz/%.o,$(CORE_SRCS)) build-fuzz/frontend/lexer.o \
             build-fuzz/frontend/parser.o build-fuzz/lib-nesl/library_text.o
# the corpus seeds: the tests' programs (or the shared corpus where the
# tests have none yet) and tests/fuzz/seeds, which reach corners of the
# checker the fuzzer does not find alone (datatype arguments, patterns)
FUZZ_SEEDS := $(or $(wildcard tests/programs/*.nesl tests/errors/*.nesl), \
                   $(wildcard /work/shared/corpus/*.nesl /work/shared/corpus/errors/*.nesl)) \
              $(wildcard tests/fuzz/seeds/*.nesl)

fuzz:
	$(MAKE) BUILD=build-fuzz CC=clang OPT="-O1 -g -fno-omit-frame-pointer" \
	  SAN="-fsanitize=fuzzer-no-link $(FUZZ_SAN)" $(FUZZ_OBJS)
	clang -std=c17 -Wall -Wextra -D_POSIX_C_SOURCE=200809L -I. -Ibuild-fuzz/frontend -Ifrontend \
	  -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer $(FUZZ_SAN) \
	  -o build-fuzz/fuzz_frontend tests/fuzz/fuzz_frontend.c $(FUZZ_OBJS) $(LDLIBS)
	mkdir -p build-fuzz/corpus build-fuzz/artifacts
	$(if $(strip $(FUZZ_SEEDS)),cp $(FUZZ_SEEDS) build-fuzz/corpus/)
	build-fuzz/fuzz_frontend -max_total_time=$(FUZZ_SECONDS) -max_len=4096 \
	  -timeout=10 -detect_leaks=0 -print_final_stats=1 \
	  -artifact_prefix=build-fuzz/artifacts/ -dict=tests/fuzz/nesl.dict \
	  $(FUZZ_FLAGS) build-fuzz/corpus

# ---- installing: `make install` (PREFIX, default /usr/local; DESTDIR
# for a staged install, as GNU's conventions have it) puts the binary in
# PREFIX/bin, the runtime (headers and libraries of both targets, as
# BUILD/lib/nessie has them) in PREFIX/lib/nessie, where the binary looks
# for it (PREFIX/bin/../lib/nessie: codegen/build.c, cg_runtime_dir), the
# man page in PREFIX/share/man/man1, the documentation and the examples
# in PREFIX/share/doc/nessie, and the editors' files where Vim and Emacs
# look (PREFIX/share/vim/vimfiles, PREFIX/share/emacs/site-lisp).  The
# installed tree may be moved as a whole: nothing in it names PREFIX.
# `make uninstall` with the same PREFIX and DESTDIR removes all of it. ----
PREFIX ?= /usr/local
INSTALL ?= install
I_BIN = $(DESTDIR)$(PREFIX)/bin
I_RT = $(DESTDIR)$(PREFIX)/lib/nessie
I_MAN = $(DESTDIR)$(PREFIX)/share/man/man1
I_DOC = $(DESTDIR)$(PREFIX)/share/doc/nessie
I_VIM = $(DESTDIR)$(PREFIX)/share/vim/vimfiles
I_EMACS = $(DESTDIR)$(PREFIX)/share/emacs/site-lisp
DOC_FILES := README.md $(filter-out docs/nessie.1,$(wildcard docs/*))
EXAMPLE_FILES := $(wildcard examples/*.nesl examples/*.expected examples/*.md)

install: all
	$(INSTALL) -d '$(I_BIN)' '$(I_RT)/include' '$(I_MAN)' '$(I_DOC)/docs' '$(I_DOC)/examples' \
	  '$(I_VIM)/syntax' '$(I_VIM)/ftdetect' '$(I_EMACS)'
	$(INSTALL) -m 755 $(BUILD)/nessie '$(I_BIN)/nessie'
	$(INSTALL) -m 644 $(filter %.a,$(RUNTIME)) '$(I_RT)'
	$(INSTALL) -m 644 $(filter $(RUNTIME_DIR)/include/%,$(RUNTIME)) '$(I_RT)/include'
	$(INSTALL) -m 644 docs/nessie.1 '$(I_MAN)/nessie.1'
	$(INSTALL) -m 644 README.md '$(I_DOC)'
	$(INSTALL) -m 644 $(filter docs/%,$(DOC_FILES)) '$(I_DOC)/docs'
	$(INSTALL) -m 644 $(EXAMPLE_FILES) '$(I_DOC)/examples'
	$(INSTALL) -m 644 editors/vim/syntax/nesl.vim '$(I_VIM)/syntax/nesl.vim'
	$(INSTALL) -m 644 editors/vim/ftdetect/nesl.vim '$(I_VIM)/ftdetect/nesl.vim'
	$(INSTALL) -m 644 editors/emacs/nesl-mode.el '$(I_EMACS)/nesl-mode.el'

# what install made; of the directories, only nessie's own (bin and
# share/man may hold others' files, even when empty now)
uninstall:
	rm -f '$(I_BIN)/nessie' '$(I_MAN)/nessie.1' '$(I_VIM)/syntax/nesl.vim' '$(I_VIM)/ftdetect/nesl.vim' \
	  '$(I_EMACS)/nesl-mode.el'
	rm -rf '$(I_RT)' '$(I_DOC)'

# `make deb`: BUILD/nessie_VERSION_ARCH.deb, by dpkg-deb from an install
# into DEB_ROOT with PREFIX=/usr, the man page compressed as Debian's
# policy has it; tools/deb-control.sh writes the package's control
# file (Depends computed from the binary's libraries, the C compiler the
# CPU target runs; the CUDA toolkit as Suggests).
DEB_ARCH ?= $(shell dpkg --print-architecture 2>/dev/null || echo amd64)
DEB_ROOT ?= $(BUILD)/deb/root
DEB_FILE ?= $(BUILD)/nessie_$(VERSION)_$(DEB_ARCH).deb
DEB_MAINTAINER ?= nessie developers <nessie@invalid>

deb: all
	@command -v dpkg-deb > /dev/null || { echo "deb: dpkg-deb is needed (Debian's dpkg)"; exit 1; }
	rm -rf '$(DEB_ROOT)'
	$(MAKE) --no-print-directory install DESTDIR='$(abspath $(DEB_ROOT))' PREFIX=/usr
	gzip -9n '$(DEB_ROOT)/usr/share/man/man1/nessie.1'
	sh tools/deb-control.sh '$(DEB_ROOT)' '$(VERSION)' '$(DEB_ARCH)' '$(DEB_MAINTAINER)'
	dpkg-deb --root-owner-group -Zxz --build '$(DEB_ROOT)' '$(DEB_FILE)'

# ---- set-up ----

setup:
	sh tools/setup.sh

# refresh the corpus copy from ../shared/corpus (never edit the copies)
sync-corpus:
	cp ../shared/corpus/*.nesl ../shared/corpus/*.expected ../shared/corpus/README.md tests/programs/
	cp ../shared/corpus/errors/* tests/errors/

clean:
	rm -rf build build-asan build-fuzz

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
