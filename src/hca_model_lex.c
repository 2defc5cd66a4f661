/* hca_model_lex.c: the lexer of the model language (docs/models.md): blanks,
 * comments and continuations, tokens (names and dotted paths, numbers,
 * strings, punctuation), words, and "file:line:col:" errors. */
#include "hca_model_int.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Noreturn void hm_fail_at(parser *p, int line, int col, const char *fmt, ...)
{
    if (p->err && p->errlen) {
        int k = snprintf(p->err, p->errlen, "%s:%d:%d: ", p->file, line, col);
        if (k >= 0 && (size_t)k < p->errlen) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(p->err + k, p->errlen - (size_t)k, fmt, ap);
            va_end(ap);
        }
    }
    longjmp(p->jb, 1);
}

static int cur(const parser *p) { return (unsigned char)p->s[p->pos]; }

static void adv(parser *p)
{
    if (p->s[p->pos] == '\n') {
        p->line++;
        p->col = 1;
    } else {
        p->col++;
    }
    p->pos++;
}

void hm_skip_blanks(parser *p)
{
    for (;;) {
        int c = cur(p);
        if (c == ' ' || c == '\t' || c == '\r') {
            adv(p);
        } else if (c == '#') {
            while (cur(p) && cur(p) != '\n')
                adv(p);
        } else if (c == '\\') {
            /* a continuation: backslash, optional blanks, newline */
            size_t q = p->pos + 1;
            while (p->s[q] == ' ' || p->s[q] == '\t' || p->s[q] == '\r')
                q++;
            if (p->s[q] != '\n')
                return;
            while (p->pos <= q)
                adv(p);
        } else {
            return;
        }
    }
}

static int name_start(int c) { return isalpha(c) || c == '_'; }
static int name_char(int c) { return isalnum(c) || c == '_'; }

void hm_next(parser *p)
{
    hm_skip_blanks(p);
    tok *t = &p->tk;
    memset(t, 0, sizeof(*t));
    t->line = p->line;
    t->col = p->col;
    int c = cur(p);
    if (!c) {
        t->t = T_EOF;
    } else if (c == '\n') {
        t->t = T_NL;
        adv(p);
    } else if (name_start(c)) {
        size_t b = p->pos;
        while (name_char(cur(p)))
            adv(p);
        /* dotted paths; a '*' segment is a glob (plots only) */
        while (cur(p) == '.' && (name_char((unsigned char)p->s[p->pos + 1]) || p->s[p->pos + 1] == '*')) {
            adv(p);
            if (cur(p) == '*') {
                adv(p);
            } else {
                while (name_char(cur(p)))
                    adv(p);
            }
        }
        t->t = T_NAME;
        t->text = hm_strndup(p->m, p->s + b, p->pos - b, &p->jb);
    } else if (isdigit(c) || (c == '.' && isdigit((unsigned char)p->s[p->pos + 1]))) {
        char *end;
        errno = 0;
        t->num = strtod(p->s + p->pos, &end);
        size_t len = (size_t)(end - (p->s + p->pos));
        if (errno == ERANGE || !isfinite(t->num))
            hm_fail_at(p, t->line, t->col, "number out of range");
        for (size_t i = 0; i < len; i++)
            adv(p);
        if (name_char(cur(p)) || cur(p) == '.')
            hm_fail_at(p, t->line, t->col, "malformed number");
        t->t = T_NUM;
    } else if (c == '"') {
        adv(p);
        size_t b = p->pos;
        while (cur(p) && cur(p) != '"' && cur(p) != '\n')
            adv(p);
        if (cur(p) != '"')
            hm_fail_at(p, t->line, t->col, "unterminated string");
        t->t = T_STR;
        t->text = hm_strndup(p->m, p->s + b, p->pos - b, &p->jb);
        adv(p);
    } else if (strchr("()+-*/=,", c)) {
        t->t = T_PUNCT;
        t->punct = (char)c;
        adv(p);
    } else {
        hm_fail_at(p, t->line, t->col, "unexpected character '%c'", isprint(c) ? c : '?');
    }
}

/* A word up to a blank, newline or comment (event specs, model ids, match). */
const char *hm_word(parser *p, const char *what)
{
    hm_skip_blanks(p);
    size_t b = p->pos;
    int line = p->line, col = p->col;
    while (cur(p) && !isspace(cur(p)) && cur(p) != '#')
        adv(p);
    if (p->pos == b)
        hm_fail_at(p, line, col, "expected %s", what);
    return hm_strndup(p->m, p->s + b, p->pos - b, &p->jb);
}

int hm_is_punct(const parser *p, char c) { return p->tk.t == T_PUNCT && p->tk.punct == c; }
int hm_is_name(const parser *p, const char *s) { return p->tk.t == T_NAME && strcmp(p->tk.text, s) == 0; }

const char *hm_tok_desc(const tok *t, char *buf, size_t len)
{
    switch (t->t) {
    case T_EOF: return "end of file";
    case T_NL: return "end of line";
    case T_NAME: snprintf(buf, len, "'%s'", t->text); return buf;
    case T_NUM: snprintf(buf, len, "number %g", t->num); return buf;
    case T_STR: return "a string";
    default: snprintf(buf, len, "'%c'", t->punct); return buf;
    }
}

void hm_expect_punct(parser *p, char c, const char *ctx)
{
    if (!hm_is_punct(p, c)) {
        char b[128];
        hm_fail_at(p, p->tk.line, p->tk.col, "expected '%c' %s, found %s", c, ctx, hm_tok_desc(&p->tk, b, sizeof(b)));
    }
    hm_next(p);
}

void hm_expect_eol(parser *p)
{
    if (p->tk.t != T_NL && p->tk.t != T_EOF) {
        char b[128];
        hm_fail_at(p, p->tk.line, p->tk.col, "unexpected %s", hm_tok_desc(&p->tk, b, sizeof(b)));
    }
}
