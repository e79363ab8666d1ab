/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/mel_ast.h -- the syntax tree of a MEL text, private to the front-end.
 *
 * Why: the parser (mel_parse.c) builds it and the elaborator (mel_elab.c)
 * walks it; nothing outside engine/mel_*.c and the front-end tests sees it.
 * Every node, name and array lives in one arena (mel__arena) that the caller
 * of mel__parse owns, so a syntax tree is released in one call whatever its
 * shape, which keeps error paths (and allocation-failure paths) trivial.
 *
 * Names: the parser interns them. Equal names are one copy, and each
 * carries its number (name_id, index_id): 0, 1, ... in order of first
 * appearance in the text. The elaborator looks declarations up by these
 * numbers, in arrays, rather than by hashing the same few names once per
 * loop iteration (an eighth of its instructions on the brake at N = 100,
 * 2026-11-26).
 *
 * Shape: chains of the same associative operator (`a + b - c`, `p & q & r`)
 * are kept n-ary rather than as left-deep binary trees, so that a sum of 10^5
 * terms does not turn into a 10^5-deep tree that a recursive walker would
 * have to descend. Parentheses create no node. Statement lists are singly
 * linked through `next`.
 */
#ifndef MEL_AST_H
#define MEL_AST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mdae.h"

/* ---- Arena ----------------------------------------------------------------
 * A bump allocator over chunks from mdae_malloc. Allocation failure returns
 * NULL (the arena stays valid and freeable). */
typedef struct mel__arena {
    struct mel__chunk *head;
    struct mel__chunk *raw; /* the chunks of mel__arena_alloc_raw */
    size_t total; /* bytes handed out, for curiosity and tests */
    /* The free part of raw's first chunk, which mel__arena_alloc_raw hands
     * out inline (its used count is brought up to date from raw_next when
     * the slow path runs). */
    unsigned char *raw_next, *raw_end;
} mel__arena;

#define MEL__ARENA_ALIGN _Alignof(max_align_t)

void mel__arena_init(mel__arena *a);
void *mel__arena_alloc(mel__arena *a, size_t n);  /* zeroed; NULL on OOM */
/* mel__arena_alloc_raw's way when the first chunk is full (or n is 0). */
void *mel__arena_alloc_raw_slow(mel__arena *a, size_t n);
/* The same, not zeroed: for records the caller writes in full (symbols,
 * guard nodes, incidences), which then skip the clearing of their chunks.
 * Inline: most calls of the elaborator (a few per instance) only move
 * raw_next. */
static inline void *mel__arena_alloc_raw(mel__arena *a, size_t n)
{
    size_t r = (n + MEL__ARENA_ALIGN - 1) & ~(size_t)(MEL__ARENA_ALIGN - 1);
    if (r != 0 && r >= n && r <= (size_t)(a->raw_end - a->raw_next)) {
        void *p = a->raw_next;
        a->raw_next += r;
        a->total += r;
        return p;
    }
    return mel__arena_alloc_raw_slow(a, n);
}
char *mel__arena_strndup(mel__arena *a, const char *s, size_t n);
void mel__arena_free(mel__arena *a); /* releases every chunk; safe twice */

/* ---- Expressions ---------------------------------------------------------- */
typedef enum mel__expr_kind {
    MEL_X_NUM,  /* u.num */
    MEL_X_BOOL, /* u.b: true / false */
    MEL_X_ID,   /* u.id: x, x[i], x[i,j] */
    MEL_X_CALL, /* u.id: f(args...) -- name and arguments */
    MEL_X_NEG,  /* u.kid: -e */
    MEL_X_NOT,  /* u.kid: !e */
    MEL_X_DER,  /* u.kid: der(e) */
    MEL_X_LAST, /* u.kid: last(e) */
    MEL_X_PRE,  /* u.kid: pre(e) */
    MEL_X_POW,  /* u.bin: lhs ^ rhs */
    MEL_X_CMP,  /* u.bin with u.bin.op a mel__cmp */
    MEL_X_ADD,  /* u.nary: ops[k] is '+' or '-' (ops[0] is '+') */
    MEL_X_MUL,  /* u.nary: ops[k] is '*' or '/' (ops[0] is '*') */
    MEL_X_AND,  /* u.nary */
    MEL_X_OR,   /* u.nary */
    MEL_X_IF,   /* u.ite: if c then a else b */
    MEL_X_NEXT  /* u.kid: next(e), the value one instant later (when-bodies) */
} mel__expr_kind;

typedef enum mel__cmp {
    MEL_CMP_LT,
    MEL_CMP_LE,
    MEL_CMP_GT,
    MEL_CMP_GE,
    MEL_CMP_EQ,
    MEL_CMP_NE
} mel__cmp;

typedef struct mel__expr mel__expr;
struct mel__expr {
    mel__expr_kind kind;
    mdae_range where;
    /* The elaborator's (mel_elab.c, "Pass 2: expressions kept"): 0, or 1 +
     * the number of this node's lowered form when that does not depend on
     * the loop environment, shared by every instance, or UINT32_MAX when
     * it does. Zero from the parser. */
    uint32_t aux;
    union {
        struct {
            double value;
            long long ival; /* valid when is_int */
            bool is_int;    /* written without '.' or exponent */
        } num;
        bool b;
        struct {
            const char *name;
            uint32_t name_id; /* see "Names" above */
            uint32_t n;       /* number of indices / call arguments */
            mel__expr **args;
            /* MEL_X_CALL written "text"(args) (issue 38): not a call but
             * text a front-end kept as-is, reading args (FX_OPAQUE); name
             * is the text, name_id meaningless */
            bool text;
        } id;
        mel__expr *kid;
        struct {
            int op;
            mel__expr *lhs, *rhs;
        } bin;
        struct {
            uint32_t n;
            mel__expr **kids;
            char *ops;
        } nary;
        struct {
            mel__expr *c, *a, *b;
        } ite;
    } u;
};

/* ---- Statements ---------------------------------------------------------- */
typedef enum mel__stmt_kind {
    MEL_S_DECL, /* label : type [= init] */
    MEL_S_EQU,  /* label : equation lhs = rhs */
    MEL_S_INV,  /* invariant expr */
    MEL_S_IF,   /* if cond then body [else orelse] end */
    MEL_S_FOR,  /* foreach index in lo .. hi do body done */
    MEL_S_WHEN  /* when cond then body end: u.cond, orelse NULL */
} mel__stmt_kind;

typedef enum mel__type { MEL_TY_REAL, MEL_TY_BOOLEAN, MEL_TY_INTEGER } mel__type;

/* A declaration's prefix (issue 38): none, or `parameter` / `constant`
 * (contextual words, read only right after the ':' of a declaration), which
 * declare a known quantity of any type (mel_known), with or without a
 * binding. */
typedef enum mel__prefix { MEL_PFX_NONE, MEL_PFX_PARAMETER, MEL_PFX_CONSTANT } mel__prefix;

/* `name[idx, ...]` at the head of a declaration or an equation. */
typedef struct mel__label {
    const char *name;
    uint32_t name_id;
    uint32_t n;
    mel__expr **idx;
    mdae_range where; /* the whole label, brackets included */
} mel__label;

typedef struct mel__stmt mel__stmt;
struct mel__stmt {
    mel__stmt_kind kind;
    mdae_range where; /* the whole statement */
    mel__stmt *next;
    /* Expression nodes of this statement, not counting nested statements:
     * elaboration charges it each time the statement is executed, so the
     * total work is bounded (loop iterations x statement sizes). */
    uint32_t size;
    /* Of those, the identifiers (MEL_X_ID): a bound on the unknowns one
     * execution can read, so the elaborator sizes its list of uses once. */
    uint32_t ids;
    union {
        struct {
            mel__label label;
            mel__type type;
            mel__prefix prefix;
            mel__expr *init; /* NULL when absent */
            /* `(value = v)` after a prefixed type: the known's value,
             * given rather than computed from the binding (a front-end
             * computed it without keeping its expression) */
            bool has_value;
            double value;
        } decl;
        struct {
            mel__label label;
            mel__expr *lhs, *rhs;
        } equ;
        mel__expr *inv;
        struct {
            mel__expr *cond;
            mel__stmt *body, *orelse; /* either may be NULL (empty) */
        } cond;
        struct {
            const char *index;
            uint32_t index_id;
            mdae_range index_where;
            mel__expr *lo, *hi;
            mel__stmt *body;
        } loop;
    } u;
};

/* Print an expression as a fully parenthesised S-expression, e.g.
 * "(+ x (* 2 y))", for tests and debugging. New string (owned: mdae_free);
 * NULL on OOM. Depth is bounded by the parser's, so recursion is safe. */
char *mel__expr_format(const mel__expr *e);

#endif /* MEL_AST_H */
