/*
 * frontend.h: the NESL front end: lexer (lexer.re), parser (parser.y) and
 * the entry points the driver calls.  The AST is declared in ast.h, types
 * in types.h, the checker in typecheck.h.
 */
#ifndef NESSIE_FRONTEND_H
#define NESSIE_FRONTEND_H

#include "../common/common.h"
#include "ast.h"

/* ---- lexer.re ---- */

typedef struct Lexer {
  const Source *src;
  const char *cur, *tok, *limit;
  int line, col;  /* of 'tok' once a token is read */
  bool library;   /* reading the basis library: `__` names allowed */
  int errors;     /* lexical errors reported */
  int last_token; /* the token before this one */
} Lexer;

void lexer_init(Lexer *lx, const Source *src, bool library);

/* ---- parser.y ---- */

/* Parses a whole source file.  Syntax errors are reported through diag and
   counted; the parser recovers at the next `;` or `$` so that several
   independent errors may be reported.  Statements with errors are left out
   of the returned program.  'library' admits the `__` names and `__prim`
   bodies of lib-nesl. */
Program *parse_program(const Source *src, bool library);

/* Token names as Bison knows them, e.g. "'+'" or "name". */
const char *parser_token_name(int token);

#endif
