/*
 * capture.h: what the unit tests share: diagnostics (and any other stream)
 * captured in memory through open_memstream, so that a test can compare
 * the `file:line:col: error:` text a compiler stage printed.
 */
#ifndef NESSIE_TESTS_CAPTURE_H
#define NESSIE_TESTS_CAPTURE_H

#include <stdio.h>
#include <stdlib.h>

#include "common/common.h"

typedef struct Capture {
  FILE *file;
  char *text;
  size_t size;
} Capture;

static inline void capture_open(Capture *c) {
  c->text = NULL;
  c->size = 0;
  c->file = open_memstream(&c->text, &c->size);
  if (!c->file)
    abort();
}

static inline void capture_close(Capture *c) {
  if (c->file)
    fclose(c->file);
  free(c->text);
  c->file = NULL;
  c->text = NULL;
}

/* Everything written so far. */
static inline const char *capture_text(Capture *c) {
  fflush(c->file);
  return c->text ? c->text : "";
}

/* Diagnostics, redirected by each test's setup and restored by its
   teardown. */
static Capture diag_capture;

static inline void diag_capture_start(void) {
  capture_open(&diag_capture);
  diag_set_stream(diag_capture.file);
}

static inline void diag_capture_stop(void) {
  diag_set_stream(NULL);
  capture_close(&diag_capture);
}

static inline const char *diags(void) { return capture_text(&diag_capture); }

/* A cmocka setup and teardown for the tests that check diagnostics: a
   clean count, and the messages captured in memory
   (diag_capture_start above). */
static inline int capture_diag_setup(void **state) {
  (void)state;
  diag_reset();
  diag_capture_start();
  return 0;
}

static inline int capture_diag_teardown(void **state) {
  (void)state;
  diag_capture_stop();
  diag_reset();
  return 0;
}

#endif
