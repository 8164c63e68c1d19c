/*
 * test_diag.c: unit tests for common/diag.c: the source line and caret
 * (escaped bytes, windows of long lines, UTF-8), quoted tokens, the limit
 * of 20 errors, muting, run-time errors, the line index (a line far into
 * a big file), unreadable files, and the interrupt flag.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "capture.h"
#include <gc.h>

#include "common/common.h"

/* each test's diagnostics captured (capture.h) */
static int setup(void **state) { return capture_diag_setup(state); }
static int teardown(void **state) { return capture_diag_teardown(state); }

/* diag_show_source of 'text' at line:col, as a string. */
static const char *shown(const char *text, int line, int col) {
  Capture c;
  capture_open(&c);
  Source *src = source_from_string("t.nesl", text);
  diag_show_source(c.file, (Loc){.src = src, .line = line, .col = col});
  char *r = xstrdup(capture_text(&c));
  capture_close(&c);
  return r;
}

static void test_caret_under_column(void **state) {
  (void)state;
  assert_string_equal(shown("x = 1 +;\ny = 2;\n", 2, 5), "  y = 2;\n      ^\n");
  /* a tab before the column is copied so that the caret lines up */
  assert_string_equal(shown("\tx = t;\n", 1, 6), "  \tx = t;\n  \t    ^\n");
  /* the end of the last line, which has no newline */
  assert_string_equal(shown("1 +", 1, 4), "  1 +\n     ^\n");
  /* no source, or a line beyond the file: nothing */
  assert_string_equal(shown("x;\n", 9, 1), "");
}

static void test_bytes_escaped(void **state) {
  (void)state;
  /* a control byte and an invalid UTF-8 byte as \xNN; the caret counts
     the four columns of each escape */
  assert_string_equal(shown("a\x01\xff b", 1, 5), "  a\\x01\\xff b\n            ^\n");
  /* a well-formed UTF-8 character is shown as it is, one column */
  assert_string_equal(shown("% λ % x", 1, 8), "  % λ % x\n        ^\n");
  /* a C1 control encoded in UTF-8 is escaped: a terminal obeys it */
  assert_string_equal(shown("\xc2\x9b x", 1, 4), "  \\xc2\\x9b x\n           ^\n");
}

static void test_long_line_window(void **state) {
  (void)state;
  Buf b = {0};
  for (int i = 0; i < 1000; i++)
    buf_putc(&b, (char)('a' + i % 26));
  const char *s = shown(buf_str(&b), 1, 500);
  /* a window of about 100 columns around the caret, "..." at both ends */
  assert_true(strncmp(s, "  ...", 5) == 0);
  const char *nl = strchr(s, '\n');
  assert_true(nl - s < 120);
  assert_true(strstr(nl, "...\n") == NULL);
  assert_true(strncmp(nl - 3, "...", 3) == 0);
  const char *caret = strchr(nl + 1, '^');
  /* the caret is under column 500's character */
  assert_int_equal(s[caret - (nl + 1)], 'a' + 499 % 26);
  /* a line of escapes is cut by its shown width, not its bytes */
  Buf bin = {0};
  for (int i = 0; i < 1000; i++)
    buf_putc(&bin, (char)1);
  s = shown(buf_str(&bin), 1, 500);
  assert_true(strchr(s, '\n') - s < 200);
}

/* The line shown of a line far into a big file: the index finds it. */
static void test_line_index(void **state) {
  (void)state;
  Buf b = {0};
  for (int i = 1; i <= 200000; i++)
    buf_printf(&b, "x%d = %d;\n", i, i);
  Source *src = source_from_string("big.nesl", buf_str(&b));
  Capture c;
  capture_open(&c);
  for (int i = 0; i < 1000; i++) /* a rescan per call would take minutes */
    diag_show_source(c.file, (Loc){.src = src, .line = 199999, .col = 1});
  assert_true(strncmp(capture_text(&c), "  x199999 = 199999;\n  ^\n", 24) == 0);
  capture_close(&c);
  assert_int_equal(src->nlines, 200001);
}

static void test_quote(void **state) {
  (void)state;
  assert_string_equal(diag_quote("abc", 3), "abc");
  assert_string_equal(diag_quote("a\x01" "b", 3), "a\\x01b");
  assert_string_equal(diag_quote("a\tb", 3), "a\\tb");
  assert_string_equal(diag_quote("a\0b", 3), "a\\x00b");
  char digits[1000];
  memset(digits, '9', sizeof digits);
  const char *q = diag_quote(digits, sizeof digits);
  assert_int_equal(strlen(q), 43); /* 40 characters and "..." */
  assert_string_equal(q + 40, "...");
}

static void test_error_limit(void **state) {
  (void)state;
  Source *src = source_from_string("t.nesl", "x;\n");
  for (int i = 0; i < 25; i++) {
    diag_error((Loc){.src = src, .line = 1, .col = 1}, "error number %d", i + 1);
    diag_note((Loc){.src = src, .line = 1, .col = 1}, "note %d", i + 1);
  }
  assert_int_equal(diag_count(), 25);
  assert_true(diag_stopped());
  const char *text = diags();
  assert_non_null(strstr(text, "error number 20\n"));
  assert_non_null(strstr(text, "note 20\n"));
  assert_null(strstr(text, "error number 21"));
  assert_null(strstr(text, "note 21"));
  assert_non_null(strstr(text, "nessie: too many errors (more than 20), stopping\n"));
  diag_reset();
  assert_false(diag_stopped());
}

static void test_muted(void **state) {
  (void)state;
  diag_error(no_loc, "shown");
  diag_set_muted(true);
  diag_error(no_loc, "hidden");
  assert_int_equal(diag_count(), 2); /* counted while muted */
  diag_set_muted(false);
  assert_int_equal(diag_count(), 1); /* and the count put back */
  assert_string_equal(diags(), "nessie: error: shown\n");
}

static void test_runtime_error(void **state) {
  (void)state;
  Capture transcript;
  capture_open(&transcript);
  Source *src = source_from_string("t.nesl", "x = 1;\ny = [1][3];\n");
  long before = diag_runtime_errors();
  diag_runtime_error(transcript.file, (Loc){.src = src, .line = 2, .col = 8}, "subscript 3 is out of range");
  diag_runtime_error(transcript.file, no_loc, "somewhere");
  /* one line each on the transcript, the source line on the diagnostics */
  assert_string_equal(capture_text(&transcript), "error: t.nesl:2:8: subscript 3 is out of range\nerror: somewhere\n");
  assert_string_equal(diags(), "  y = [1][3];\n         ^\n");
  assert_int_equal(diag_runtime_errors(), before + 2);
  assert_int_equal(diag_count(), 0); /* not compile errors */
  capture_close(&transcript);
}

static void test_unreadable_file(void **state) {
  (void)state;
  errno = 0;
  assert_null(source_from_file("/nonexistent/dir/x.nesl"));
  assert_int_equal(errno, ENOENT);
  errno = 0;
  assert_null(source_from_file("/"));
  assert_int_equal(errno, EISDIR);
}

static void test_interrupt_flag(void **state) {
  (void)state;
  interrupt_clear();
  assert_false(interrupt_pending());
  interrupt_request();
  assert_true(interrupt_pending());
  interrupt_clear();
  assert_false(interrupt_pending());
}

/* alloc_set_oom_handler: a failed allocation calls the handler, which
   leaves by longjmp; the handler is then removed. */
static jmp_buf oom_jump;
static size_t oom_size;

static void on_oom(void *ctx, size_t size) {
  (void)ctx;
  oom_size = size;
  longjmp(oom_jump, 1);
}

static void test_out_of_memory_handler(void **state) {
  (void)state;
  if (!setjmp(oom_jump)) {
    alloc_set_oom_handler(on_oom, NULL);
    xmalloc_atomic((size_t)1 << 62); /* more than any machine has */
    fail_msg("the allocation succeeded");
  }
  assert_int_equal(oom_size, (size_t)1 << 62);
  /* without a handler, with a diagnostics handler: diag_out_of_memory */
  jmp_buf jb;
  if (!setjmp(jb)) {
    diag_push_handler(&jb);
    xmalloc_atomic((size_t)1 << 62);
    fail_msg("the allocation succeeded");
  }
  assert_non_null(strstr(diags(), "out of memory (could not allocate 4611686018427387904 bytes)"));
}

int main(void) {
  GC_INIT();
  alloc_init(); /* the collector's "Out of Memory!" warnings, silenced */
  const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
      T(test_caret_under_column), T(test_bytes_escaped), T(test_long_line_window), T(test_line_index),
      T(test_quote),              T(test_error_limit),  T(test_muted),           T(test_runtime_error),
      T(test_unreadable_file),    T(test_interrupt_flag), T(test_out_of_memory_handler),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
