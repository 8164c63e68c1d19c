/*
 * parser.y: the NESL grammar (NESL.md, "Grammar"), for Bison.
 *
 * A pure parser with locations.  Expressions use one nonterminal 'exp' and
 * Bison precedence declarations that follow the binding powers of the
 * reference parser.  These places need care:
 *
 *  - The comma is an operator (binding power 4 on the left, 3 on the
 *    right: right-associative) that builds a pair, but inside [ ] it
 *    separates the elements of a sequence literal.  We parse [ exp ] and
 *    split the unparenthesized right spine of tuples into elements, which
 *    is what the reference does (so `[1, if c then 2 else 3, 4]` has two
 *    elements, the second an `if` whose else branch is the tuple `3, 4`,
 *    as NESL reads it).  The parser's stack may grow as long as the
 *    longest literal (YYMAXDEPTH), and splitting is linear.
 *  - Patterns are read as expressions and converted (exp_to_pattern), as
 *    CMU NESL's parser does: the left side of a top-level or let binding,
 *    the pattern of a generator, of a filter-only apply-to-each {p in e}.
 *    So tuple patterns need no parentheses: `let a, b = f(x) in ...`,
 *    `{x + y : x, y in pairs}`.  Only a function's parameters are a
 *    pattern of their own.
 *  - `if`, `let` and `else` bodies extend as far to the right as they can,
 *    across commas (precedence LOWEST).
 *  - Application: `e(x)` calls, `e[i]` subscripts, and a primary
 *    expression after another applies the first to it (juxtaposition:
 *    `sqrt 4.0`, `(float) n`), all at binding power 30, left to right.
 *    A juxtaposed argument is a name, a literal, an apply-to-each in
 *    { }, or `#`/`@` and their operand; it cannot begin with ( or [
 *    (those call and subscript) or - (that subtracts), as in CMU NESL.
 *
 * On a syntax error the parser reports the unexpected token and what it
 * expected, skips to the next `;` or `$`, and goes on.
 */
%code requires {
#include "frontend.h"
typedef struct Parser Parser;
}

%code provides {
int yylex(YYSTYPE *val, YYLTYPE *loc, Parser *p);
int lexer_next(Lexer *lx, YYSTYPE *val, YYLTYPE *loc);
}

%code {
#include <string.h>
#include <gc.h>

/* An open bracket not yet closed, for the note "to match this '('". */
typedef struct OpenBracket {
  int token; /* '(', '[' or '{' */
  Loc loc;
} OpenBracket;

enum { MAX_OPEN = 256 };

struct Parser {
  Lexer lx;
  Program *prog;
  OpenBracket open[MAX_OPEN];
  int depth; /* may exceed MAX_OPEN; only the first MAX_OPEN are kept */
  int history[3]; /* the last three tokens read, newest first */
  bool broken;     /* the statement being read had a syntax error */
  int ntokens;     /* tokens read so far */
  /* the last juxtaposition read (`f x`), for the note that an operator
     or `in` may be missing before its argument */
  bool juxt_seen;  /* one was read in this statement */
  Loc juxt_loc;    /* its argument */
  int juxt_token;  /* 'ntokens' when it was read */
  int let_token;   /* 'ntokens' at the last `let` */
  int end_line, end_col; /* just after the last token read: where an
                            unexpected end of file is reported */
  bool incomplete; /* the first error is an unexpected end of file */
};

/* A sequence literal may be long (NESL programs that carry their data):
   the right spine of its commas is on the parser's stack while it is
   read.  Bison's stacks grow by doubling, so this costs linear time. */
#define YYMAXDEPTH 50000000

/* Bison's stacks grow through these, so that the collector sees the AST
   pointers on them (STYLE.md, "Memory with Boehm GC"). */
#define YYMALLOC GC_MALLOC
#define YYFREE(p) ((void)(p))

static Loc L(Parser *p, YYLTYPE l) {
  Loc loc = {.src = p->lx.src, .line = l.first_line, .col = l.first_column};
  return loc;
}
#define LOC(l) L(p, l)

/* Bison's own messages: only "memory exhausted" reaches here (syntax
   errors go through yyreport_syntax_error), when the stack would grow
   past YYMAXDEPTH: brackets are limited before (yylex), so only an
   expression of tens of millions of operators gets here. */
static void yyerror(YYLTYPE *loc, Parser *p, const char *msg) {
  if (strcmp(msg, "memory exhausted") == 0)
    diag_error(L(p, *loc), "expression too long: the parser's stack is full (%d states)", YYMAXDEPTH);
  else
    diag_error(L(p, *loc), "%s", msg);
}


static Pattern *exp_to_pattern(Parser *p, Expr *e);
static Expr *application(Parser *p, Expr *fn, Expr *arg, bool juxtaposed);
static Generator *bare_generator(Parser *p, Expr *e);
static void split_elems(Vec *out, Expr *e);
static void add_top(Parser *p, TopLevel *t);
static void end_statement(Parser *p, TopLevel *t);
static Expr *new_seq(Parser *p, YYLTYPE loc, Expr *e);
}

%define api.pure full
%define api.prefix {yy}
%define parse.error custom
%locations
%param {Parser *p}
%expect 0

%union {
  int32_t ival;
  double fval;
  bool bval;
  char cval;
  struct { const char *chars; size_t len; } str;
  const char *name;
  Expr *exp;
  Pattern *pat;
  TypeExpr *texp;
  Signature *sig;
  TopLevel *top;
  Binding *bind;
  Generator *gen;
  ContextItem *ctx;
  Vec *vec;
}

%token TOK_EOF 0 "end of file"
%token TOK_LEXERROR "invalid token"
%token <ival> TOK_INT "integer"
%token <fval> TOK_FLOAT "float"
%token <bval> TOK_BOOL "boolean"
%token <cval> TOK_CHAR "character"
%token <str> TOK_STRING "string"
%token <name> TOK_NAME "name"
%token TOK_FUNCTION "'function'" TOK_DATATYPE "'datatype'" TOK_LET "'let'"
%token TOK_IN "'in'" TOK_IF "'if'" TOK_THEN "'then'" TOK_ELSE "'else'"
%token TOK_TIME "'time'" TOK_AND "'and'" TOK_OR "'or'" TOK_XOR "'xor'"
%token TOK_NAND "'nand'" TOK_NOR "'nor'" TOK_UNDERSCORE "'_'"
%token TOK_EQ "'=='" TOK_NE "'/='" TOK_LE "'<='" TOK_GE "'>='"
%token TOK_LARROW "'<-'" TOK_RARROW "'->'" TOK_APPEND "'++'" TOK_PAD "'||'"
%token TOK_DCOLON "'::'"

%type <exp> exp atom primary juxt_arg
%type <pat> pattern pattern_tuple
%type <texp> type type_tuple type_fn type_fn_tuple sig_result
%type <sig> signature bare_signature sig_type
%type <top> toplevel toplevel_dollar
%type <bind> binding
%type <gen> generator
%type <ctx> context_item
%type <vec> bindings generators more_generators type_list context context_items bare_context
%type <exp> filter
%type <str> doc

/* lowest first */
%precedence LOWEST
%right ','
%left TOK_OR TOK_NOR TOK_XOR
%left TOK_AND TOK_NAND
%left TOK_EQ TOK_NE '<' '>' TOK_LE TOK_GE
%left '+' '-' TOK_APPEND
%left '*' '/' TOK_PAD
%left '^'
%left TOK_LARROW
%right TOK_RARROW
%precedence UNARY
/* Application binds tightest: subscript a[i], call f(x), juxtaposition
   f x (binding power 30 in CMU NESL).  The tokens that can begin a
   juxtaposed argument carry this precedence, so that `-f x` is -(f x)
   and `a + f x` is a + (f x).  (Application is left to right, `f x y`
   being (f x) y, by the grammar alone: a juxtaposed name or literal is
   never itself applied to what follows.) */
%precedence '[' '(' TOK_NAME TOK_INT TOK_FLOAT TOK_BOOL TOK_CHAR TOK_STRING '{' '#' '@'

%%

program
  : %empty
  | program statement
  ;

statement
  : toplevel terminator      { end_statement(p, $1); }
  | toplevel_dollar '$'      { end_statement(p, $1); }
  | error terminator         { yyerrok; p->depth = 0; p->broken = false; p->juxt_seen = false; }
  ;

terminator : ';' | '$' ;

toplevel
  : TOK_FUNCTION TOK_NAME pattern signature doc '=' exp
      {
        $$ = ast_top(TOP_FUNCTION, @1.first_line ? LOC(@1) : LOC(@2));
        $$->name = $2; $$->param = $3; $$->sig = $4; $$->body = $7;
        $$->doc = $5.chars; $$->doc_len = $5.len;
        if ($7->kind == EX_VAR && strcmp($7->u.ref.name, "__prim") == 0)
          $$->is_primitive = true;
      }
  | TOK_FUNCTION TOK_NAME pattern bare_signature doc '=' exp
      {
        $$ = ast_top(TOP_FUNCTION, @1.first_line ? LOC(@1) : LOC(@2));
        $$->name = $2; $$->param = $3; $$->sig = $4; $$->body = $7;
        $$->doc = $5.chars; $$->doc_len = $5.len;
      }
  | TOK_FUNCTION TOK_NAME pattern doc '=' exp
      {
        $$ = ast_top(TOP_FUNCTION, LOC(@1));
        $$->name = $2; $$->param = $3; $$->body = $6;
        $$->doc = $4.chars; $$->doc_len = $4.len;
        if ($6->kind == EX_VAR && strcmp($6->u.ref.name, "__prim") == 0)
          $$->is_primitive = true;
      }
  | TOK_FUNCTION TOK_NAME pattern signature doc
      {
        /* a declaration: the function is defined by a later statement
           (forward declarations, mutual recursion) */
        $$ = ast_top(TOP_FUNCTION, LOC(@1));
        $$->name = $2; $$->param = $3; $$->sig = $4;
        $$->doc = $5.chars; $$->doc_len = $5.len;
      }
  | TOK_DATATYPE TOK_NAME '(' type_tuple ')'
      {
        $$ = ast_top(TOP_DATATYPE, LOC(@1));
        $$->name = $2; $$->fields = $4;
      }
  | TOK_DATATYPE TOK_NAME '(' type_tuple ')' TOK_DCOLON context
      {
        $$ = ast_top(TOP_DATATYPE, LOC(@1));
        $$->name = $2; $$->fields = $4; $$->context = *$7;
      }
  | exp '=' exp
      {
        $$ = ast_top(TOP_BIND, $1->loc);
        $$->pat = exp_to_pattern(p, $1); $$->body = $3;
        if (!$$->pat) YYERROR;
      }
  | exp
      {
        $$ = ast_top(TOP_EXPR, $1->loc);
        $$->body = $1;
      }
  ;

/* A context without parentheses, as CMU NESL reads it: `;` separates its
   items, so that a declaration or a datatype that ends with one can end
   only with `$` (NESL reads `datatype d(a) :: a in any; d(1);` as a
   context going on into `d(1)`, an error; the parser does the same).
   A function's definition ends its context at `=`. */
toplevel_dollar
  : TOK_FUNCTION TOK_NAME pattern bare_signature doc
      {
        $$ = ast_top(TOP_FUNCTION, LOC(@1));
        $$->name = $2; $$->param = $3; $$->sig = $4;
        $$->doc = $5.chars; $$->doc_len = $5.len;
      }
  | TOK_DATATYPE TOK_NAME '(' type_tuple ')' TOK_DCOLON bare_context
      {
        $$ = ast_top(TOP_DATATYPE, LOC(@1));
        $$->name = $2; $$->fields = $4; $$->context = *$7;
      }
  ;

/* A function's documentation string, between its parameters (or its
   signature) and `=` (CMU NESL's `describe` shows it). */
doc
  : %empty                   { $$.chars = NULL; $$.len = 0; }
  | TOK_STRING               { $$ = $1; }
  ;

signature
  : sig_type                         { $$ = $1; }
  | sig_type TOK_DCOLON context      { $$ = $1; $$->context = *$3; }
  ;

bare_signature
  : sig_type TOK_DCOLON bare_context { $$ = $1; $$->context = *$3; }
  ;

sig_type
  : ':' type_tuple TOK_RARROW sig_result
      { $$ = NEW(Signature); $$->loc = LOC(@1); $$->arg = $2; $$->result = $4; }
  ;

/* a function may return a function: `: int -> int -> int` */
sig_result
  : type_tuple                          { $$ = $1; }
  | type_tuple TOK_RARROW sig_result    { $$ = ast_type_fun(LOC(@2), $1, $3); }
  ;

context
  : '(' context_items ')'    { $$ = $2; }
  ;

bare_context
  : context_item                     { $$ = NEW(Vec); vec_push($$, $1); }
  | bare_context ';' context_item    { $$ = $1; vec_push($$, $3); }
  ;

context_items
  : context_item                     { $$ = NEW(Vec); vec_push($$, $1); }
  | context_items ';' context_item   { $$ = $1; vec_push($$, $3); }
  | context_items ',' context_item   { $$ = $1; vec_push($$, $3); }
  ;

context_item
  : TOK_NAME TOK_IN TOK_NAME
      {
        $$ = NEW(ContextItem); $$->loc = LOC(@1); $$->var = $1; $$->klass = $3;
        if (strcmp($3, "number") && strcmp($3, "ordinal") && strcmp($3, "logical") && strcmp($3, "any")) {
          diag_error(LOC(@3), "unknown type class '%s' (expected number, ordinal, logical or any)", $3);
          YYERROR;
        }
      }
  ;

type_tuple
  : type                     { $$ = $1; }
  | type ',' type_tuple      { $$ = ast_type_pair(LOC(@1), $1, $3); }
  ;

type
  : TOK_NAME %prec LOWEST       { $$ = ast_type_name(LOC(@1), $1); }
  | TOK_NAME '(' type_list ')'   { $$ = ast_type_name(LOC(@1), $1); $$->args = *$3; }
  | '[' type_fn ']'              { $$ = ast_type_seq(LOC(@1), $2); }
  | '(' type_fn_tuple ')'        { $$ = $2; }
  ;

/* Inside ( ) and [ ], a type may be a function type: `(a -> b, a)` is a
   function and an `a`, as CMU NESL reads it (`->` binds tighter than `,`
   there); at the top of a signature `,` binds tighter, as nessie has
   always read `int, int -> int`. */
type_fn
  : type                         { $$ = $1; }
  | type TOK_RARROW type_fn      { $$ = ast_type_fun(LOC(@2), $1, $3); }
  ;

type_fn_tuple
  : type_fn                      { $$ = $1; }
  | type_fn ',' type_fn_tuple    { $$ = ast_type_pair(LOC(@1), $1, $3); }
  ;

type_list
  : type                     { $$ = NEW(Vec); vec_push($$, $1); }
  | type_list ',' type       { $$ = $1; vec_push($$, $3); }
  ;

pattern
  : TOK_NAME                       { $$ = ast_pat_var(LOC(@1), $1); }
  | TOK_UNDERSCORE                 { $$ = ast_pat_wild(LOC(@1)); }
  | TOK_NAME '(' pattern_tuple ')' { $$ = ast_pat_con(LOC(@1), $1, $3); }
  | '(' pattern_tuple ')'          { $$ = $2; }
  | TOK_BOOL
      {
        diag_error(LOC(@1), "'%s' is the constant %s and cannot be used as a variable",
                   $1 ? "t" : "f", $1 ? "true" : "false");
        YYERROR;
      }
  ;

pattern_tuple
  : pattern                        { $$ = $1; }
  | pattern ',' pattern_tuple      { $$ = ast_pat_pair(LOC(@1), $1, $3); }
  ;

exp
  : TOK_IF exp TOK_THEN exp TOK_ELSE exp %prec LOWEST
      { $$ = ast_if(LOC(@1), $2, $4, $6); }
  | TOK_LET bindings TOK_IN exp %prec LOWEST
      { $$ = ast_expr(EX_LET, LOC(@1)); $$->u.let.binds = *$2; $$->u.let.body = $4; }
  | TOK_LET bindings ';' TOK_IN exp %prec LOWEST
      { $$ = ast_expr(EX_LET, LOC(@1)); $$->u.let.binds = *$2; $$->u.let.body = $5; }
  | exp ',' exp              { $$ = ast_pair($1->loc, $1, $3); }
  | exp TOK_OR exp           { $$ = ast_binop(LOC(@2), BIN_OR, $1, $3); }
  | exp TOK_NOR exp          { $$ = ast_binop(LOC(@2), BIN_NOR, $1, $3); }
  | exp TOK_XOR exp          { $$ = ast_binop(LOC(@2), BIN_XOR, $1, $3); }
  | exp TOK_AND exp          { $$ = ast_binop(LOC(@2), BIN_AND, $1, $3); }
  | exp TOK_NAND exp         { $$ = ast_binop(LOC(@2), BIN_NAND, $1, $3); }
  | exp TOK_EQ exp           { $$ = ast_binop(LOC(@2), BIN_EQ, $1, $3); }
  | exp TOK_NE exp           { $$ = ast_binop(LOC(@2), BIN_NE, $1, $3); }
  | exp '<' exp              { $$ = ast_binop(LOC(@2), BIN_LT, $1, $3); }
  | exp '>' exp              { $$ = ast_binop(LOC(@2), BIN_GT, $1, $3); }
  | exp TOK_LE exp           { $$ = ast_binop(LOC(@2), BIN_LE, $1, $3); }
  | exp TOK_GE exp           { $$ = ast_binop(LOC(@2), BIN_GE, $1, $3); }
  | exp '+' exp              { $$ = ast_binop(LOC(@2), BIN_ADD, $1, $3); }
  | exp '-' exp              { $$ = ast_binop(LOC(@2), BIN_SUB, $1, $3); }
  | exp TOK_APPEND exp       { $$ = ast_binop(LOC(@2), BIN_APPEND, $1, $3); }
  | exp '*' exp              { $$ = ast_binop(LOC(@2), BIN_MUL, $1, $3); }
  | exp '/' exp              { $$ = ast_binop(LOC(@2), BIN_DIV, $1, $3); }
  | exp TOK_PAD exp          { $$ = ast_binop(LOC(@2), BIN_PAD, $1, $3); }
  | exp '^' exp              { $$ = ast_binop(LOC(@2), BIN_POW, $1, $3); }
  | exp TOK_LARROW exp       { $$ = ast_binop(LOC(@2), BIN_WRITE, $1, $3); }
  | exp TOK_RARROW exp       { $$ = ast_binop(LOC(@2), BIN_READ, $1, $3); }
  | '#' exp %prec UNARY      { $$ = ast_unop(LOC(@1), UN_LENGTH, $2); }
  | '@' exp %prec UNARY      { $$ = ast_unop(LOC(@1), UN_TO_STRING, $2); }
  | '-' exp %prec UNARY      { $$ = ast_unop(LOC(@1), UN_NEG, $2); }
  | exp '[' exp ']'          { $$ = ast_index(LOC(@2), $1, $3); }
  | exp '(' exp ')'          { $$ = application(p, $1, $3, false); }
  | exp juxt_arg
      {
        $$ = application(p, $1, $2, true);
        p->juxt_seen = true;
        p->juxt_loc = $2->loc;
        p->juxt_token = p->ntokens;
      }
  | atom                     { $$ = $1; }
  ;

/* What may follow an expression to be applied to it by juxtaposition. */
juxt_arg
  : primary                  { $$ = $1; }
  | '#' exp %prec UNARY      { $$ = ast_unop(LOC(@1), UN_LENGTH, $2); }
  | '@' exp %prec UNARY      { $$ = ast_unop(LOC(@1), UN_TO_STRING, $2); }
  ;

atom
  : primary                  { $$ = $1; }
  | TOK_UNDERSCORE           { $$ = ast_var(LOC(@1), "_"); }
  | TOK_TIME '(' exp ')'     { $$ = ast_time(LOC(@1), $3); }
  | '(' exp ')'
      {
        $$ = $2;
        /* remember the parentheses: (a, b) inside [ ] is one element */
        if ($$->kind == EX_PAIR) { Expr *c = NEW(Expr); *c = *$$; c->parenthesized = true; $$ = c; }
      }
  | '[' exp ']'              { $$ = new_seq(p, @1, $2); }
  | '[' ']' type             { $$ = ast_expr(EX_EMPTY, LOC(@1)); $$->u.elem_type = $3; }
  | '[' exp ':' exp ']'
      { $$ = ast_expr(EX_RANGE, LOC(@1)); $$->u.range.start = $2; $$->u.range.end = $4; }
  | '[' exp ':' exp ':' exp ']'
      {
        $$ = ast_expr(EX_RANGE, LOC(@1));
        $$->u.range.start = $2; $$->u.range.end = $4; $$->u.range.stride = $6;
      }
  ;

primary
  : TOK_INT                  { $$ = ast_int(LOC(@1), $1); }
  | TOK_FLOAT                { $$ = ast_float(LOC(@1), $1); }
  | TOK_BOOL                 { $$ = ast_bool(LOC(@1), $1); }
  | TOK_CHAR                 { $$ = ast_char(LOC(@1), $1); }
  | TOK_STRING               { $$ = ast_string(LOC(@1), $1.chars, $1.len); }
  | TOK_NAME                 { $$ = ast_var(LOC(@1), $1); }
  | '{' exp ':' generators filter '}'
      {
        $$ = ast_expr(EX_APPLY, LOC(@1));
        $$->u.apply.body = $2; $$->u.apply.gens = *$4; $$->u.apply.filter = $5;
      }
  | '{' exp TOK_IN exp more_generators filter '}'
      {
        /* {p in e; ... | c}: the values of p for which c holds */
        $$ = ast_expr(EX_APPLY, LOC(@1));
        Generator *g = NEW(Generator);
        g->loc = $2->loc; g->pat = exp_to_pattern(p, $2); g->seq = $4;
        if (!g->pat) YYERROR;
        $$->u.apply.body = ast_pattern_to_expr(g->pat);
        if (!$$->u.apply.body) {
          diag_error($2->loc, "the pattern of a filter-only apply-to-each {p in e | c} cannot contain '_'");
          YYERROR;
        }
        vec_push(&$$->u.apply.gens, g);
        for (int i = 0; $5 && i < $5->len; i++)
          vec_push(&$$->u.apply.gens, $5->data[i]);
        $$->u.apply.filter = $6;
        $$->u.apply.filter_only = true;
      }
  | '{' exp ';' generators filter '}'
      {
        /* {x; g1; ... | c}: the bare-name form of {x in x; g1; ... | c},
           the values of x for which c holds (CMU NESL accepts it) */
        Generator *g = bare_generator(p, $2);
        if (!g) YYERROR;
        $$ = ast_expr(EX_APPLY, LOC(@1));
        vec_push(&$$->u.apply.gens, g);
        for (int i = 0; i < $4->len; i++)
          vec_push(&$$->u.apply.gens, $4->data[i]);
        $$->u.apply.body = ast_var($2->loc, $2->u.ref.name);
        $$->u.apply.filter = $5;
        $$->u.apply.filter_only = true;
      }
  | '{' exp '|' exp '}'
      {
        /* {x | c}: the bare-name form of {x in x | c} */
        if ($2->kind != EX_VAR) {
          diag_error(LOC(@3), "syntax error: unexpected '|', expected ':' or 'in'");
          YYERROR;
        }
        $$ = ast_expr(EX_APPLY, LOC(@1));
        Generator *g = NEW(Generator);
        g->loc = $2->loc; g->bare = true;
        g->pat = ast_pat_var($2->loc, $2->u.ref.name); g->seq = $2;
        vec_push(&$$->u.apply.gens, g);
        $$->u.apply.body = ast_var($2->loc, $2->u.ref.name);
        $$->u.apply.filter = $4;
        $$->u.apply.filter_only = true;
      }
  ;

more_generators
  : %empty                   { $$ = NULL; }
  | ';' generators           { $$ = $2; }
  ;

filter
  : %empty                   { $$ = NULL; }
  | '|' exp                  { $$ = $2; }
  ;

generators
  : generator                    { $$ = NEW(Vec); vec_push($$, $1); }
  | generators ';' generator     { $$ = $1; vec_push($$, $3); }
  ;

generator
  : exp TOK_IN exp
      {
        $$ = NEW(Generator); $$->loc = $1->loc; $$->pat = exp_to_pattern(p, $1); $$->seq = $3;
        if (!$$->pat) YYERROR;
      }
  | error
      {
        /* as for a broken binding */
        p->broken = true;
        $$ = NEW(Generator); $$->loc = LOC(@1);
        $$->pat = ast_pat_wild(LOC(@1)); $$->seq = ast_var(LOC(@1), "_");
      }
  | exp
      {
        /* a bare name x means x in x */
        $$ = bare_generator(p, $1);
        if (!$$) YYERROR;
      }
  ;

bindings
  : binding                  { $$ = NEW(Vec); vec_push($$, $1); }
  | bindings ';' binding     { $$ = $1; vec_push($$, $3); }
  ;

binding
  : exp '=' exp
      {
        $$ = NEW(Binding); $$->loc = $1->loc; $$->pat = exp_to_pattern(p, $1); $$->value = $3;
        if (!$$->pat) YYERROR;
      }
  | error
      {
        /* recover at the ';' or `in` after a broken binding, not at the
           statement's end: a second error would be spurious */
        p->broken = true;
        $$ = NEW(Binding); $$->loc = LOC(@1);
        $$->pat = ast_pat_wild(LOC(@1)); $$->value = ast_int(LOC(@1), 0);
      }
  ;

%%

static int closer_of(int open) { return open == '(' ? ')' : open == '[' ? ']' : '}'; }

/* Keeps the stack of open brackets. */
static void track_brackets(Parser *p, int tok, Loc loc) {
  if (tok == '(' || tok == '[' || tok == '{') {
    if (p->depth < MAX_OPEN)
      p->open[p->depth] = (OpenBracket){tok, loc};
    p->depth++;
  } else if ((tok == ')' || tok == ']' || tok == '}') && p->depth > 0) {
    if (p->depth > MAX_OPEN || closer_of(p->open[p->depth - 1].token) == tok)
      p->depth--;
  }
}

int yylex(YYSTYPE *val, YYLTYPE *loc, Parser *p) {
  int tok = lexer_next(&p->lx, val, loc);
  if (tok == TOK_EOF && p->ntokens > 0) {
    /* the end of the file is reported just after the last token, on its
       line, not after the blank lines and comments that may follow */
    loc->first_line = p->end_line;
    loc->first_column = p->end_col;
  } else {
    int line = loc->first_line, col = loc->first_column;
    for (const char *q = p->lx.tok; q < p->lx.cur; q++) {
      if (*q == '\n') {
        line++;
        col = 1;
      } else {
        col++;
      }
    }
    p->end_line = line;
    p->end_col = col;
  }
  track_brackets(p, tok, L(p, *loc));
  /* Brackets nested beyond the limit: refused here, once, so that the
     parser's stack (YYMAXDEPTH, sized for long literals) never fills on
     them and the later passes never recurse that deep.  TOK_LEXERROR
     makes the parser skip to the statement's end without a second
     message. */
  if ((tok == '(' || tok == '[' || tok == '{') && p->depth == PARSER_MAX_DEPTH + 1) {
    diag_error(L(p, *loc), "expression nested too deeply (limit %d)", PARSER_MAX_DEPTH);
    return TOK_LEXERROR;
  }
  p->history[2] = p->history[1];
  p->history[1] = p->history[0];
  p->history[0] = tok;
  p->lx.last_token = tok;
  p->ntokens++;
  if (tok == TOK_LET)
    p->let_token = p->ntokens;
  loc->last_line = p->lx.line;
  loc->last_column = p->lx.col;
  return tok;
}

/* Friendly names for the tokens in messages: Bison's own, without the
   quotes Bison adds around string aliases. */
const char *parser_token_name(int token) {
  yysymbol_kind_t kind = YYTRANSLATE(token);
  return yysymbol_name(kind);
}

static const char *symbol_text(yysymbol_kind_t kind) {
  const char *name = yysymbol_name(kind);
  /* Bison writes single-character tokens as "'+'" and aliases as given. */
  if (name[0] == '"') {
    /* "'function'" -> 'function' */
    size_t n = strlen(name);
    return xstrndup(name + 1, n - 2);
  }
  if (strcmp(name, "TOK_EOF") == 0 || strcmp(name, "\"end of file\"") == 0)
    return "end of file";
  return name;
}

/* Tokens worth naming when many are possible: the ones that close or
   continue a construct, not the operators that could extend an
   expression anywhere. */
static const char *symbol_text(yysymbol_kind_t kind);

static bool is_structural(yysymbol_kind_t k) {
  static const char *names[] = {"')'", "']'", "'}'", "'in'", "'then'", "'else'", "'='", "':'", "'|'"};
  const char *text = symbol_text(k);
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcmp(text, names[i]) == 0)
      return true;
  return false;
}

/* "unexpected ')', expected ']'": the unexpected token and the tokens
   that could have come instead (the structural ones when there are many),
   then a note at the bracket that is still open. */
static int yyreport_syntax_error(const yypcontext_t *ctx, Parser *p) {
  yysymbol_kind_t unexpected = yypcontext_token(ctx);
  Loc loc = L(p, *yypcontext_location(ctx));
  p->broken = true;
  if (unexpected == YYSYMBOL_YYEOF && diag_count() == p->lx.errors_before)
    p->incomplete = true;
  if (unexpected == YYSYMBOL_TOK_LEXERROR)
    return 0; /* the lexer has reported it */
  yysymbol_kind_t expected[YYNTOKENS];
  int n = yypcontext_expected_tokens(ctx, expected, YYNTOKENS);
  bool wants_exp = false, wants_name = false;
  for (int i = 0; i < n; i++) {
    wants_exp |= expected[i] == YYSYMBOL_TOK_INT;
    wants_name |= expected[i] == YYSYMBOL_TOK_NAME;
  }
  if (n > 5) {
    /* keep the structural ones, closing brackets first */
    yysymbol_kind_t kept[YYNTOKENS];
    int k = 0;
    for (int pass = 0; pass < 2; pass++)
      for (int i = 0; i < n; i++) {
        const char *t = symbol_text(expected[i]);
        bool closer = strcmp(t, "')'") == 0 || strcmp(t, "']'") == 0 || strcmp(t, "'}'") == 0;
        if (is_structural(expected[i]) && closer == (pass == 0))
          kept[k++] = expected[i];
      }
    memcpy(expected, kept, sizeof kept[0] * (size_t)k);
    n = k;
  }
  Buf b = {0};
  if (unexpected == YYSYMBOL_YYEOF)
    buf_puts(&b, "unexpected end of file");
  else
    buf_printf(&b, "unexpected %s", symbol_text(unexpected));
  if (n == 0 && wants_exp) {
    buf_puts(&b, ", expected an expression");
  } else if (n > 0) {
    buf_puts(&b, ", expected ");
    for (int i = 0; i < n; i++) {
      if (i > 0)
        buf_puts(&b, i == n - 1 ? " or " : ", ");
      buf_puts(&b, symbol_text(expected[i]));
    }
  }
  if (p->history[1] == ']' && p->history[2] == '[')
    buf_puts(&b, " (an empty sequence is written with its element type: [] int)");
  if (unexpected == YYSYMBOL_TOK_BOOL && wants_name)
    buf_puts(&b, " (t and f are the booleans true and false in NESL, not names)");
  diag_error(loc, "syntax error: %s", buf_str(&b));
  /* A juxtaposition read just before, or since the last `let` when `in`
     would do, is likely a missing operator or `in`: `let x = 5 x * 2`
     reads `5 x` as applying 5 to x. */
  bool wants_in = false;
  for (int i = 0; i < n; i++)
    wants_in |= expected[i] == YYSYMBOL_TOK_IN;
  if (p->juxt_seen && wants_in && p->juxt_token > p->let_token)
    diag_note(p->juxt_loc, "this was read as an argument applied by juxtaposition to what precedes it; "
              "is 'in' missing before it?");
  else if (p->juxt_seen && p->ntokens - p->juxt_token <= 1)
    diag_note(p->juxt_loc, "this was read as an argument applied by juxtaposition to what precedes it; "
              "is an operator missing before it?");
  /* the innermost open bracket, if its closer could have come here */
  if (p->depth > 0 && p->depth <= MAX_OPEN) {
    OpenBracket *ob = &p->open[p->depth - 1];
    for (int i = 0; i < n; i++)
      if (strcmp(symbol_text(expected[i]), xprintf("'%c'", closer_of(ob->token))) == 0) {
        diag_note(ob->loc, "to match this '%c'", ob->token);
        break;
      }
  }
  return 0;
}

/* Converts an expression parsed where a pattern may stand (the left side
   of a binding, the pattern of a generator or of {p in e | c}) into the
   pattern; reports and returns NULL if it is not one. */
static Pattern *exp_to_pattern(Parser *p, Expr *e) {
  switch (e->kind) {
  case EX_VAR:
    if (strcmp(e->u.ref.name, "_") == 0)
      return ast_pat_wild(e->loc);
    return ast_pat_var(e->loc, e->u.ref.name);
  case EX_PAIR: {
    Pattern *a = exp_to_pattern(p, e->u.pair.fst);
    Pattern *b = a ? exp_to_pattern(p, e->u.pair.snd) : NULL;
    return b ? ast_pat_pair(e->loc, a, b) : NULL;
  }
  case EX_CALL: {
    /* point(x, y), or by juxtaposition point p */
    Pattern *a = exp_to_pattern(p, e->u.ref.arg);
    return a ? ast_pat_con(e->loc, e->u.ref.name, a) : NULL;
  }
  case EX_BOOL:
    diag_error(e->loc, "'%s' is the constant %s and cannot be used as a variable",
               e->u.bval ? "t" : "f", e->u.bval ? "true" : "false");
    return NULL;
  default:
    diag_error(e->loc, "expected a pattern (a name, '_', a tuple of patterns or a constructor pattern), "
               "not '%s'", ast_expr_to_string(e));
    return NULL;
  }
}

/* fn(arg) or fn arg: a call of a top-level function by name (EX_CALL;
   the type checker turns it into EX_APP if the name is a local variable),
   or the application of another expression's value (EX_APP). */
static Expr *application(Parser *p, Expr *fn, Expr *arg, bool juxtaposed) {
  (void)p;
  Expr *e;
  if (fn->kind == EX_VAR && strcmp(fn->u.ref.name, "_") != 0)
    e = ast_call(fn->loc, fn->u.ref.name, arg);
  else
    e = ast_app(fn->loc, fn, arg);
  e->juxtaposed = juxtaposed;
  return e;
}

/* A generator that is an expression alone must be a bare name x (x in
   x).  Anything else lacks its `in`: with juxtaposition, `x xs` reads as
   applying x to xs, so say where `in` was probably meant to be. */
static Generator *bare_generator(Parser *p, Expr *e) {
  p->broken = true;
  if (e->kind == EX_VAR && strcmp(e->u.ref.name, "_") != 0) {
    p->broken = false;
    Generator *g = NEW(Generator);
    g->loc = e->loc;
    g->bare = true;
    g->pat = ast_pat_var(e->loc, e->u.ref.name);
    g->seq = ast_var(e->loc, e->u.ref.name);
    return g;
  }
  if (e->juxtaposed && e->kind == EX_CALL) {
    const char *arg = ast_expr_to_string(e->u.ref.arg);
    diag_error(e->u.ref.arg->loc, "syntax error: a generator is 'pattern in sequence', and 'in' is missing "
               "before '%s' ('%s %s' reads as applying %s to %s by juxtaposition)", arg, e->u.ref.name, arg,
               e->u.ref.name, arg);
    return NULL;
  }
  diag_error(e->loc, "syntax error: a generator is 'pattern in sequence' (or a bare name x, meaning x in x), "
             "but '%s' has no 'in'", ast_expr_to_string(e));
  return NULL;
}

/* The elements of [e]: the unparenthesized right spine of tuples. */
static void split_elems(Vec *out, Expr *e) {
  while (e->kind == EX_PAIR && !e->parenthesized) {
    vec_push(out, e->u.pair.fst);
    e = e->u.pair.snd;
  }
  vec_push(out, e);
}

static Expr *new_seq(Parser *p, YYLTYPE loc, Expr *e) {
  Expr *s = ast_expr(EX_SEQ, LOC(loc));
  split_elems(&s->u.elems, e);
  return s;
}

static void add_top(Parser *p, TopLevel *t) {
  t->library = p->lx.library;
  t->program = p->prog;
  t->index = p->prog->tops.len;
  vec_push(&p->prog->tops, t);
}

/* A statement parsed whole: the per-statement state starts again, and
   the statement joins the program unless it was broken by an error
   recovered inside it or nests too deeply. */
static void end_statement(Parser *p, TopLevel *t) {
  p->depth = 0;
  p->juxt_seen = false;
  bool broken = p->broken;
  p->broken = false;
  if (broken)
    return; /* recovered inside it (a binding or a generator): dropped */
  if (t->body && t->body->depth > AST_MAX_DEPTH)
    diag_error(t->body->loc, "expression nested too deeply (more than %d levels of operators, "
               "tuples and calls); split it with let", AST_MAX_DEPTH);
  else
    add_top(p, t);
}

Program *parse_program(const Source *src, bool library) {
  Parser *p = NEW(Parser);
  lexer_init(&p->lx, src, library);
  p->prog = NEW(Program);
  yyparse(p);
  return p->prog;
}

bool parse_input_incomplete(const Source *src) {
  diag_set_muted(true);
  Parser *p = NEW(Parser);
  lexer_init(&p->lx, src, false);
  p->prog = NEW(Program);
  yyparse(p);
  diag_set_muted(false);
  return p->incomplete || p->lx.incomplete;
}
