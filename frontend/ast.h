/*
 * ast.h: the NESL abstract syntax tree, its constructors and its printer.
 *
 * The parser builds it, the type checker annotates it in place (the 'type'
 * field of every expression and pattern, the 'def' field of names), and
 * the later stages read it.  Tuples are binary and nest to the right, as in
 * NESL: (a, b, c) is (a, (b, c)).  Every node carries a source location.
 */
#ifndef NESSIE_AST_H
#define NESSIE_AST_H

#include "../common/common.h"
#include "../common/syntax.h"

struct Type;
struct Def;

/* ---- syntactic types (signatures, typed empty sequences, datatypes) ---- */

typedef enum TypeExprKind {
  TX_NAME, /* int, float, point, twin(a), or a type variable a */
  TX_SEQ,  /* [t] */
  TX_PAIR, /* (t1, t2): tuple types nest to the right like tuple values */
  TX_FUN,  /* t1 -> t2: a function's type, in a signature's argument or
              result (higher-order functions) */
} TypeExprKind;

typedef struct TypeExpr {
  TypeExprKind kind;
  Loc loc;
  const char *name;      /* TX_NAME, lowercased */
  Vec args;              /* TX_NAME: type arguments (TypeExpr *) */
  struct TypeExpr *elem; /* TX_SEQ */
  struct TypeExpr *fst, *snd; /* TX_PAIR; TX_FUN (argument, result) */
} TypeExpr;

/* A type-class constraint of a context, `a in number`. */
typedef struct ContextItem {
  Loc loc;
  const char *var;   /* type variable */
  const char *klass; /* "number", "ordinal", "logical" or "any" */
} ContextItem;

/* ---- patterns ---- */

typedef enum PatKind {
  PAT_VAR,  /* x */
  PAT_WILD, /* _ */
  PAT_PAIR, /* (p1, p2) */
  PAT_CON,  /* point(p): a datatype constructor around its fields */
} PatKind;

typedef struct Pattern {
  PatKind kind;
  Loc loc;
  struct Type *type;      /* set by the type checker */
  const char *name;       /* PAT_VAR variable, PAT_CON constructor */
  struct Pattern *fst, *snd; /* PAT_PAIR */
  struct Pattern *arg;    /* PAT_CON */
  struct Def *def;        /* PAT_CON: the datatype, set by the checker */
} Pattern;

/* ---- expressions ---- */

typedef enum ExprKind {
  EX_INT,    /* 42 */
  EX_FLOAT,  /* 1.5 */
  EX_BOOL,   /* t, f */
  EX_CHAR,   /* `a */
  EX_STRING, /* "ab": a [char] */
  EX_VAR,    /* a name in value position: a local, a top-level binding, a
                constant such as pi */
  EX_CALL,   /* f(arg) or f arg: a function or constructor named by a
                top-level name applied to one argument (usually a tuple) */
  EX_APP,    /* e(arg) or e arg where e is not a top-level function's
                name: a local variable of function type (a function
                parameter), or an expression whose value is a function */
  EX_BINOP,  /* a op b */
  EX_UNOP,   /* op a */
  EX_PAIR,   /* (a, b) */
  EX_SEQ,    /* [a, b, c]: a non-empty sequence literal */
  EX_EMPTY,  /* [] t: the empty sequence of type [t] */
  EX_RANGE,  /* [s:e] or [s:e:d] */
  EX_INDEX,  /* s[i] */
  EX_IF,     /* if c then a else b */
  EX_LET,    /* let p1 = e1; ... in body */
  EX_APPLY,  /* {body : p1 in e1; ... | filter}: apply-to-each */
  EX_TIME,   /* time(e) */
} ExprKind;

/* One `pattern = exp` of a let. */
typedef struct Binding {
  Loc loc;
  struct Pattern *pat;
  struct Expr *value;
} Binding;

/* One `pattern in exp` of an apply-to-each. */
typedef struct Generator {
  Loc loc;
  struct Pattern *pat;
  struct Expr *seq;
  bool bare; /* written as a bare name `x`, meaning `x in x` */
} Generator;

typedef struct Expr {
  ExprKind kind;
  Loc loc;
  struct Type *type; /* set by the type checker */
  bool parenthesized; /* written (a, b): one element inside [ ] */
  bool juxtaposed;    /* EX_CALL, EX_APP written `f x`, without ( ):
                         messages say so when it is really a missing
                         operator */
  bool from_value;    /* EX_CALL made by monomorphization of an EX_APP,
                         the application of a function value: closed
                         only as the EX_APP was (frontend/invariant.h) */
  struct MonoFunc *callee; /* EX_CALL, EX_BINOP, EX_UNOP after
                              monomorphization (flatten/mono.c): the
                              instance called; NULL for constructors */
  int depth;          /* nesting of operators, tuples, subscripts and
                         calls below this node (1 for a leaf): the parser
                         refuses expressions nested beyond AST_MAX_DEPTH,
                         which every recursive pass can then afford */
  int pos;            /* the evaluator's: the node's place in its function
                         body's (or statement's) order of evaluation, from
                         1 (eval.c, "The first error"); 0 until numbered */
  union {
    int32_t ival;   /* EX_INT */
    double fval;    /* EX_FLOAT */
    bool bval;      /* EX_BOOL */
    char cval;      /* EX_CHAR */
    struct {        /* EX_STRING */
      const char *chars;
      size_t len;
    } str;
    struct {        /* EX_VAR, EX_CALL */
      const char *name; /* lowercased */
      struct Expr *arg; /* EX_CALL only */
      struct Def *def;  /* the definition it names, set by the checker;
                           NULL for a local variable */
      struct Type *inst; /* EX_CALL: the instantiated function type
                            (a T_FUN), set by the checker */
    } ref;
    struct {        /* EX_BINOP, EX_UNOP */
      int op;       /* BinOp or UnOp */
      struct Expr *lhs, *rhs; /* EX_UNOP uses lhs only */
      struct Def *def;  /* the library function behind the operator */
      struct Type *inst;
    } op;
    struct {        /* EX_PAIR */
      struct Expr *fst, *snd;
    } pair;
    struct {        /* EX_APP */
      struct Expr *fn, *arg;
    } app;
    Vec elems;      /* EX_SEQ (Expr *) */
    TypeExpr *elem_type; /* EX_EMPTY */
    struct {        /* EX_RANGE */
      struct Expr *start, *end, *stride; /* stride may be NULL */
    } range;
    struct {        /* EX_INDEX */
      struct Expr *seq, *index;
      bool in_range; /* the conditions around it keep the index in
                        range (flatten/bounds.h): no check */
    } index;
    struct {        /* EX_IF */
      struct Expr *cond, *then, *els;
    } ifx;
    struct {        /* EX_LET */
      Vec binds;    /* Binding * */
      struct Expr *body;
    } let;
    struct {        /* EX_APPLY */
      struct Expr *body;
      Vec gens;     /* Generator * */
      struct Expr *filter; /* may be NULL */
      bool filter_only;    /* written {p in e | c}; body is p as an exp */
    } apply;
    struct Expr *timed; /* EX_TIME */
  } u;
} Expr;

/* ---- top level ---- */

typedef enum TopKind {
  TOP_FUNCTION, /* function f pat [: sig] ["doc"] = body, or a declaration
                   function f pat : sig ["doc"] (body NULL) */
  TOP_DATATYPE, /* datatype name fields [:: context] */
  TOP_BIND,     /* pat = exp */
  TOP_EXPR,     /* exp */
} TopKind;

/* A function signature `: arg -> result :: (context)`. */
typedef struct Signature {
  Loc loc;
  TypeExpr *arg, *result;
  Vec context; /* ContextItem * */
} Signature;

typedef struct TopLevel {
  TopKind kind;
  Loc loc;
  const char *name;    /* TOP_FUNCTION, TOP_DATATYPE */
  Pattern *param;      /* TOP_FUNCTION */
  Signature *sig;      /* TOP_FUNCTION, may be NULL */
  TypeExpr *fields;    /* TOP_DATATYPE: the constructor's argument type */
  Vec context;         /* TOP_DATATYPE (ContextItem *) */
  Pattern *pat;        /* TOP_BIND */
  Expr *body;          /* TOP_FUNCTION body (NULL: a declaration, to be
                          defined later), TOP_BIND value, TOP_EXPR */
  const char *doc;     /* TOP_FUNCTION: the documentation string, or NULL */
  size_t doc_len;
  bool is_primitive;   /* TOP_FUNCTION: body is `__prim`, library only */
  struct Def *def;     /* TOP_FUNCTION, TOP_DATATYPE: set by the checker */
  Vec bound;           /* TOP_BIND: the Def of each variable of 'pat', in
                          left-to-right order, set by the checker */
  bool library;        /* from lib-nesl */
  struct Type *type;   /* TOP_BIND, TOP_EXPR: set by the checker */
  struct Program *program; /* the program it was parsed in, and its place
                          there: the checker looks ahead for functions a
                          function body calls before their statements */
  int index;
} TopLevel;

typedef struct Program {
  Vec tops; /* TopLevel * */
} Program;

enum { AST_MAX_DEPTH = 100000 };

/* ---- ast.c: constructors ----
   Names of variables, calls and patterns are interned (common.h). */

Expr *ast_expr(ExprKind kind, Loc loc);
Expr *ast_int(Loc loc, int32_t v);
Expr *ast_float(Loc loc, double v);
Expr *ast_bool(Loc loc, bool v);
Expr *ast_char(Loc loc, char c);
Expr *ast_string(Loc loc, const char *chars, size_t len);
Expr *ast_var(Loc loc, const char *name);
Expr *ast_call(Loc loc, const char *name, Expr *arg);
Expr *ast_app(Loc loc, Expr *fn, Expr *arg);
Expr *ast_binop(Loc loc, BinOp op, Expr *lhs, Expr *rhs);
Expr *ast_unop(Loc loc, UnOp op, Expr *arg);
Expr *ast_pair(Loc loc, Expr *fst, Expr *snd);
Expr *ast_if(Loc loc, Expr *cond, Expr *then, Expr *els);
Expr *ast_index(Loc loc, Expr *seq, Expr *index);
Expr *ast_time(Loc loc, Expr *e);
Expr *ast_pattern_to_expr(Pattern *p); /* for {p in e | c}; NULL if p has _ */

Pattern *ast_pat_var(Loc loc, const char *name);
Pattern *ast_pat_wild(Loc loc);
Pattern *ast_pat_pair(Loc loc, Pattern *fst, Pattern *snd);
Pattern *ast_pat_con(Loc loc, const char *name, Pattern *arg);

TypeExpr *ast_type_name(Loc loc, const char *name);
TypeExpr *ast_type_seq(Loc loc, TypeExpr *elem);
TypeExpr *ast_type_pair(Loc loc, TypeExpr *fst, TypeExpr *snd);
TypeExpr *ast_type_fun(Loc loc, TypeExpr *arg, TypeExpr *result);

TopLevel *ast_top(TopKind kind, Loc loc);

/* Calls 'expr' on each subexpression of 'e' and 'pat' (may be NULL) on
   each pattern 'e' binds, in the order they are written (a let's or an
   apply-to-each's value, then its pattern; a filter before the body):
   the walk of the passes that only recurse into what they do not
   handle themselves. */
void ast_expr_children(Expr *e, void (*expr)(void *ctx, Expr *child), void (*pat)(void *ctx, Pattern *p), void *ctx);

/* Appends the names that pattern 'p' binds (const char *, interned), left
   to right, to 'out'. */
void ast_pattern_names(const Pattern *p, Vec *out);

/* Makes expression statement 'top' (`e;`) the binding `it = e;`, as CMU
   NESL's REPL binds `it` to each expression's value; the statement
   prints `it = VALUE : TYPE` either way.  Returns whether it was one. */
bool ast_bind_it(TopLevel *top);

/* Does a statement of 'prog' read the variable `it` (or a local of that
   name)?  A program file binds `it` only where one does, so that no
   other statement's value is kept as a global. */
bool ast_program_reads_it(const Program *prog);

/* ---- ast_print.c: NESL concrete syntax ---- */

/* Prints the program back as NESL source, one statement per line, fully
   parenthesized where precedence requires and nowhere else, so that
   printing, parsing and printing again gives the same text. */
void ast_print_program(FILE *out, const Program *prog);
void ast_print_top(FILE *out, const TopLevel *top);
void ast_print_expr(FILE *out, const Expr *e);
void ast_print_pattern(FILE *out, const Pattern *p);
char *ast_pattern_to_string(const Pattern *p);
void ast_print_type_expr(FILE *out, const TypeExpr *t);
char *ast_expr_to_string(const Expr *e);

#endif
