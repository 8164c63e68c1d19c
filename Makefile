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
LDLIBS += -lgc -ledit -lm
LDFLAGS += $(SAN)

VERSION := 0.1.0

COMMON := common/alloc.c common/diag.c common/map.c
FRONTEND := frontend/ast.c frontend/ast_print.c frontend/types.c \
            frontend/typecheck.c frontend/builtins.c
GENERATED := $(BUILD)/frontend/lexer.c $(BUILD)/frontend/parser.c \
             $(BUILD)/lib-nesl/library_text.c
DRIVER := driver/main.c
CORE_SRCS := $(COMMON) $(FRONTEND)
CORE_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(CORE_SRCS)) \
             $(patsubst %.c,%.o,$(GENERATED))

.PHONY: all setup test test-asan fuzz clean unit

all: $(BUILD)/nessie

$(BUILD)/nessie: $(CORE_OBJS) $(BUILD)/driver/main.o
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

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

$(BUILD)/tests/%: tests/unit/%.c $(CORE_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $^ $(LDLIBS) -lcmocka

unit: $(UNIT_TESTS)

test: $(BUILD)/nessie $(UNIT_TESTS)
	@sh tests/run.sh $(BUILD)

test-asan:
	$(MAKE) BUILD=build-asan OPT="-O1 -g -fno-omit-frame-pointer" \
	  SAN="-fsanitize=address,undefined -fno-sanitize-recover=all" test

# ---- fuzzing: libFuzzer over lexer + parser + type checker ----

FUZZ_SECONDS ?= 60
fuzz:
	$(MAKE) BUILD=build-fuzz CC=clang OPT="-O1 -g" \
	  SAN="-fsanitize=fuzzer-no-link,address,undefined" $(patsubst %.c,build-fuzz/%.o,$(CORE_SRCS)) \
	  build-fuzz/frontend/lexer.o build-fuzz/frontend/parser.o build-fuzz/lib-nesl/library_text.o
	clang $(CPPFLAGS) -Ibuild-fuzz/frontend -O1 -g -fsanitize=fuzzer,address,undefined \
	  -o build-fuzz/fuzz_frontend tests/fuzz/fuzz_frontend.c \
	  $(patsubst %.c,build-fuzz/%.o,$(CORE_SRCS)) build-fuzz/frontend/lexer.o \
	  build-fuzz/frontend/parser.o build-fuzz/lib-nesl/library_text.o $(LDLIBS)
	mkdir -p build-fuzz/corpus
	cp tests/programs/*.nesl tests/errors/*.nesl build-fuzz/corpus/ 2>/dev/null || true
	build-fuzz/fuzz_frontend -max_total_time=$(FUZZ_SECONDS) -max_len=4096 \
	  -dict=tests/fuzz/nesl.dict build-fuzz/corpus

# ---- set-up ----

setup:
	sh tools/setup.sh

clean:
	rm -rf build build-asan build-fuzz

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
