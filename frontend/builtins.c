/*
 * builtins.c: loads the basis library (lib-nesl/builtins.nesl, embedded
 * into the binary at build time) into a type environment.  The library is
 * NESL source, parsed and checked by the same front end as user programs;
 * an error in it is a bug in nessie.
 */
#include "frontend.h"
#include "typecheck.h"

extern const char nesl_library_text[];

void tc_load_library(TypeEnv *env) {
  Source *src = source_from_string("<lib-nesl/builtins.nesl>", nesl_library_text);
  int before = diag_count();
  Program *lib = parse_program(src, true);
  tc_set_library_mode(env, true);
  tc_check_program(env, lib);
  tc_set_library_mode(env, false);
  tc_set_library_program(env, lib);
  if (diag_count() != before)
    die("the basis library does not compile");
}
