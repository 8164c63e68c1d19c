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
  int errors_before; /* diag_count() when the lexer started */
  bool incomplete;   /* the first error: the input ended inside a string,
                        a comment or a character literal */
} Lexer;

void lexer_init(Lexer *lx, const Source *src, bool library);

/* ---- parser.y ---- */

/* Parses a whole source file.  Syntax errors are reported through diag and
   counted; the parser recovers at the next `;` or `$` so that several
   independent errors may be reported.  Statements with errors are left out
   of the returned program.  'library' admits the `__` names and `__prim`
   bodies of lib-nesl. */
Program *parse_program(const Source *src, bool library);

/* For the REPL: true if the first syntax error in 'src' is that the input
   ends inside a statement, a string or a comment (`function f(x) =`,
   `let a = 1;`), so that another line should be read before the
   statements run.  Nothing is reported (the diagnostics are muted) and
   diag_count() is left as it was.  An input without an error, or with
   one before its end, is complete. */
bool parse_input_incomplete(const Source *src);

/* Brackets ( [ { nested deeper than this are rejected with "expression
   nested too deeply (limit N)"; operators, tuples and calls are limited
   by AST_MAX_DEPTH (ast.h). */
enum { PARSER_MAX_DEPTH = 100000 };

/* Token names as Bison knows them, e.g. "'+'" or "name". */
const char *parser_token_name(int token);

#endif
