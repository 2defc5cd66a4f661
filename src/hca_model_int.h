/* hca_model_int.h: the model language's private parts, shared by its files:
 * the model object (hca_model.c: arena, accessors, parameters, missing
 * events), the lexer (hca_model_lex.c), the parser (hca_model_parse.c), the
 * checks that resolve names and order the evaluation (hca_model_check.c) and
 * the evaluator (hca_model_eval.c). Not for use outside these files; the
 * public API is hca_model.h. Private functions are prefixed hm_. */
#ifndef HCA_MODEL_INT_H
#define HCA_MODEL_INT_H

#include "hca_model.h"

#include <setjmp.h>
#include <stddef.h>

enum { S_EVENT, S_PARAM, S_LET, S_NODE };
enum { X_NUM, X_SYM, X_NEG, X_ADD, X_SUB, X_MUL, X_DIV, X_MIN, X_MAX, X_RATIO, X_CLAMP, X_IF };

/* How deeply expressions may nest (parentheses, signs, function arguments, chains of
 * operators): the parser, the checks and the evaluator recurse over the tree, and a
 * model is parsed inside the traced application, whose stack is not ours to exhaust. */
#define HM_MAX_DEPTH 200

typedef struct expr {
    int op;
    int height;        /* levels of the tree below and including this node */
    double num;
    const char *name; /* X_SYM: as written */
    int sym;          /* X_SYM: resolved symbol */
    int line, col;
    int nargs;
    struct expr **args;
} expr;

typedef struct {
    const char *name; /* NULL for hidden symbols (plot expressions) */
    int kind, idx;    /* idx into events / params / nodes; lets: unused */
    int line, col;
    expr *e;          /* S_LET, S_NODE with HCA_NODE_EXPR */
    int state;        /* cycle detection: 0 new, 1 on the stack, 2 done */
} sym;

typedef struct {
    hca_model_plot pub;
    hca_model_plot_item *items;
    int *item_sym;
    int per_sym;
} plot_int;

typedef struct {
    const char *name;
    int line, col;
} tok_ref;

typedef struct {
    tok_ref *members;    /* as written, resolved by check() */
    size_t nmembers;
    size_t *events;      /* event indices, leader first */
    int line;
} group_int;

struct hca_model {
    void **ar;
    size_t nar;
    const char *id, *title, *match, *unit;
    const char **sources;
    size_t nsources;
    hca_model_event *events;
    size_t nevents;
    hca_model_param *params;
    size_t nparams;
    hca_model_node *nodes;
    size_t nnodes;
    int *node_sym;  /* [nnodes] */
    plot_int *plots;
    size_t nplots;
    sym *syms;
    size_t nsyms;
    int *order;     /* evaluation order of symbols */
    size_t norder;
    group_int *groups;
    size_t ngroups;
    int predict_sym, actual_sym; /* hidden symbols of `predict ... against ...`, -1 if none */
    int predict_line;
    tok_ref instructions;        /* `instructions NAME`; name NULL if none */
    int inst_event;              /* resolved event index, -1 */
};

/* ---------------------------------------------------------------- parsing state */

enum { T_EOF, T_NL, T_NAME, T_NUM, T_STR, T_PUNCT };

typedef struct {
    int t;
    int line, col;
    double num;
    const char *text; /* T_NAME, T_STR (arena) */
    char punct;
} tok;

typedef struct {
    hca_model *m;
    const char *file;
    const char *s;
    size_t pos;
    int line, col;
    tok tk;      /* current token */
    int depth;   /* expressions being parsed inside each other (HM_MAX_DEPTH) */
    char *err;
    size_t errlen;
    jmp_buf jb;
} parser;

/* The arena (hca_model.c): everything a model allocates is freed by
 * hca_model_free. With jb, running out of memory longjmps (code 2). */
void *hm_alloc(hca_model *m, size_t size, jmp_buf *jb);
char *hm_strndup(hca_model *m, const char *s, size_t n, jmp_buf *jb);
/* Grows a heap array (*arrp, *n elements) by one zeroed element; returns it. */
void *hm_grow(void *arrp, size_t *n, size_t elsize, jmp_buf *jb);
/* The symbol named name, or -1 (hca_model.c). */
int hm_find_sym(const hca_model *m, const char *name);

/* The lexer (hca_model_lex.c). hm_fail_at writes "file:line:col: message"
 * into the parser's err and longjmps (code 1). */
_Noreturn void hm_fail_at(parser *p, int line, int col, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 4, 5)));
void hm_skip_blanks(parser *p);
void hm_next(parser *p); /* the next token into p->tk */
/* A word up to a blank, newline or comment (event specs, model ids, match). */
const char *hm_word(parser *p, const char *what);
int hm_is_punct(const parser *p, char c);
int hm_is_name(const parser *p, const char *s);
const char *hm_tok_desc(const tok *t, char *buf, size_t len);
void hm_expect_punct(parser *p, char c, const char *ctx);
void hm_expect_eol(parser *p);

/* After parsing (hca_model_check.c): parents of nodes, plot items and globs,
 * groups, names, the evaluation order and cycles. Fails with hm_fail_at. */
void hm_check(parser *p);

#endif
