/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/fx.h -- the expressions of a flat model (issue 38): what an
 * equation says, not only which unknowns it reads.
 *
 * Why: both front-ends (MEL, the papers' Modelica, Base Modelica) lower
 * their own syntax trees into one flat model (engine/mel.h): declarations,
 * guarded equations, mode definitions, events. The structure the analyses
 * read (incidences under guards) is computed from it; the expressions are
 * kept beside it so that mdae can print a model in either language
 * (`mdae convert`), differentiate an equation (the bodies of the blocks
 * whose equations are differentiated; RIMIS, issue 39), evaluate it (tests,
 * checks), and print the pivots a single-mode tool divides by (engine/ap.h).
 *
 * Representation: a tree of immutable nodes (possibly shared: a DAG once
 * differentiated) allocated in an fx_pool; nodes are never freed one by
 * one, the pool is. References are resolved: an unknown is its index in
 * mel_model.variables (with its derivative order), a known quantity
 * (parameter, constant, MEL integer) its index in mel_model.knowns, a mode
 * variable its index in mel_model.modes. Names are looked up in the model
 * only to print.
 *
 * Shape (what every producer builds and every consumer may assume):
 *  - FX_ADD and FX_MUL are n-ary (n >= 2), so that a sum of 10^5 terms is
 *    not a 10^5-deep tree; a subtraction a - b is FX_ADD(a, FX_NEG(b));
 *    a division is the binary FX_DIV, and a chain a * b / c * d is grouped
 *    left to right: FX_MUL(FX_DIV(FX_MUL(a, b), c), d).
 *  - FX_VAR carries its derivative order: der(x) is FX_VAR(x, 1); der(e) of
 *    anything else is FX_DER(e), kept as written (fx_dt expands it).
 *  - FX_IF is binary in its branches (kids: cond, then, else); an
 *    `elseif` chain is nested in the else branch.
 *  - A condition that became a mode variable (a MEL Boolean; a Modelica
 *    Boolean or relation the front-end made a mode variable) is FX_MODE;
 *    a relation that selects nothing stays a relation (FX_LT...).
 *  - FX_CALL: fn is a known function (fx_fn) or FX_FN_UNKNOWN, then `name`
 *    is the function's name as written (Modelica's dotted path, unquoted).
 *    The partial derivative of an unknown function f with respect to its
 *    i-th argument (1-based) is the unknown function named "f.d<i>" with
 *    the same arguments (so "f.d1.d2" is d2(d1 f)); printed quoted where
 *    the language needs it ('f.d1'(x, y)).
 *  - FX_OPAQUE: an expression a front-end keeps only as text (a Modelica
 *    array or record expression it does not scalarise): `name` is its
 *    normalised source text, kids the FX_VAR references it reads (so that
 *    its incidence and its derivative's incidence stay right). It cannot be
 *    evaluated (fx_eval: MDAE_E_NOTIMPL) and prints as its text (in MEL,
 *    which cannot read that text, as the MEL text "text"(refs...), which
 *    MEL reads back as the same FX_OPAQUE).
 *
 * Depth: trees are as deep as the source's nesting (bounded by the
 * parsers' max_depth) plus what differentiation adds (a constant per
 * level), so the recursive walkers here are safe.
 *
 * Promises: pure computation, no I/O, no global state, no BuDDy; out of
 * memory is sticky in the pool (fx_pool_failed) and every builder then
 * returns NULL, so a caller checks once at the end.
 */
#ifndef FX_H
#define FX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mdae.h"
#include "mel.h"

typedef enum fx_op {
    FX_NUM,    /* num (an integer literal has is_int) */
    FX_BOOL,   /* num: 0 or 1 */
    FX_TIME,   /* the independent variable */
    FX_VAR,    /* unknown `index` (mel_model.variables), der^order */
    FX_KNOWN,  /* known quantity `index` (mel_model.knowns) */
    FX_MODE,   /* mode variable `index` (mel_model.modes) */
    FX_NEG,    /* -kids[0] */
    FX_ADD,    /* kids[0] + ... + kids[n-1], n >= 2 */
    FX_MUL,    /* kids[0] * ... * kids[n-1], n >= 2 */
    FX_DIV,    /* kids[0] / kids[1] */
    FX_POW,    /* kids[0] ^ kids[1] */
    FX_LT,     /* relations: kids[0] op kids[1] */
    FX_LE,
    FX_GT,
    FX_GE,
    FX_EQ,
    FX_NE,
    FX_NOT,    /* !kids[0] */
    FX_AND,    /* n-ary, n >= 2 */
    FX_OR,     /* n-ary, n >= 2 */
    FX_IF,     /* if kids[0] then kids[1] else kids[2] */
    FX_CALL,   /* fn(kids...); FX_FN_UNKNOWN: `name` */
    FX_DER,    /* der(kids[0]) of an expression that is not an unknown */
    FX_PRE,    /* pre(kids[0]): the value before the event */
    FX_LAST,   /* last(kids[0]) (MEL): the left limit */
    FX_NEXT,   /* next(kids[0]) (when-bodies): the value after the event */
    FX_OPAQUE  /* `name`: source text; kids: the FX_VAR references it reads */
} fx_op;

/* Known functions: their derivatives and values are known (fx_dt,
 * fx_partial, fx_eval). Arity in fx_fn_arity. */
typedef enum fx_fn {
    FX_FN_UNKNOWN,
    FX_FN_SIN, FX_FN_COS, FX_FN_TAN, FX_FN_ASIN, FX_FN_ACOS, FX_FN_ATAN, FX_FN_ATAN2,
    FX_FN_SINH, FX_FN_COSH, FX_FN_TANH, FX_FN_EXP, FX_FN_LOG, FX_FN_LOG10, FX_FN_SQRT,
    FX_FN_ABS, FX_FN_SIGN, FX_FN_MIN, FX_FN_MAX,
    FX_FN_FLOOR, FX_FN_CEIL, FX_FN_INTEGER, FX_FN_DIV, FX_FN_MOD, FX_FN_REM,
    FX_FN_NOEVENT,  /* noEvent(e): e, without events */
    FX_FN_SMOOTH,   /* smooth(k, e): e */
    FX_FN_HOMOTOPY, /* homotopy(actual, simplified): actual */
    FX_FN__COUNT
} fx_fn;

typedef struct fx_node fx_node;
struct fx_node {
    uint8_t op;     /* fx_op */
    uint8_t fn;     /* FX_CALL: fx_fn */
    bool is_int;    /* FX_NUM written as an integer */
    uint16_t order; /* FX_VAR: derivative order (0 .. MEL_MAX_ORDER) */
    uint32_t n;     /* number of kids */
    uint32_t index; /* FX_VAR, FX_KNOWN, FX_MODE */
    double num;     /* FX_NUM, FX_BOOL */
    const char *name; /* FX_CALL with FX_FN_UNKNOWN; FX_OPAQUE */
    const fx_node *const *kids;
    mdae_range where; /* in the source; zero when made by a transformation */
};

/* ---- Pools ------------------------------------------------------------- */
typedef struct fx_pool fx_pool;

/* New empty pool (owned: fx_pool_free); NULL on OOM. */
MDAE_API fx_pool *fx_pool_new(void);
/* Release one holder of p: the pool is freed when its creator and every
 * fx_pool_hold have released it. */
MDAE_API void fx_pool_free(fx_pool *p /* NULL ok */);
/* One more holder of p (a model whose expressions share p's nodes, issue 40
 * item 3): released by fx_pool_free. Returns p. */
MDAE_API fx_pool *fx_pool_hold(fx_pool *p);
/* Whether some allocation failed (sticky). */
MDAE_API bool fx_pool_failed(const fx_pool *p);
/* Bytes handed out (benchmarks). */
MDAE_API size_t fx_pool_bytes(const fx_pool *p);
/* A copy of s[0..n) in the pool, NUL-terminated (NULL on OOM). */
MDAE_API const char *fx_pool_strndup(fx_pool *p, const char *s, size_t n);

/* ---- Building (fx.c) -------------------------------------------------------
 * Plain constructors: no folding, no checking beyond asserts (fx_fold
 * simplifies). Each returns NULL when the pool fails or when a kid is NULL
 * (so that a failure anywhere below propagates). `where` may be zero. */
MDAE_API const fx_node *fx_num(fx_pool *p, double v, bool is_int, mdae_range where);
MDAE_API const fx_node *fx_bool(fx_pool *p, bool v, mdae_range where);
MDAE_API const fx_node *fx_time(fx_pool *p, mdae_range where);
MDAE_API const fx_node *fx_var(fx_pool *p, uint32_t var, uint32_t order, mdae_range where);
MDAE_API const fx_node *fx_known(fx_pool *p, uint32_t k, mdae_range where);
MDAE_API const fx_node *fx_mode(fx_pool *p, uint32_t k, mdae_range where);
/* A node of op (FX_NEG ... FX_NEXT, not a leaf) with n kids, copied. */
MDAE_API const fx_node *fx_make(fx_pool *p, fx_op op, const fx_node *const *kids, uint32_t n,
                                mdae_range where);
/* Shorthands of fx_make. */
MDAE_API const fx_node *fx_un(fx_pool *p, fx_op op, const fx_node *a, mdae_range where);
MDAE_API const fx_node *fx_bin(fx_pool *p, fx_op op, const fx_node *a, const fx_node *b,
                               mdae_range where);
MDAE_API const fx_node *fx_if(fx_pool *p, const fx_node *c, const fx_node *a, const fx_node *b,
                              mdae_range where);
/* A call: fn known (name ignored), or FX_FN_UNKNOWN with name (copied). */
MDAE_API const fx_node *fx_call(fx_pool *p, fx_fn fn, const char *name,
                                const fx_node *const *args, uint32_t n, mdae_range where);
MDAE_API const fx_node *fx_opaque(fx_pool *p, const char *text, const fx_node *const *refs,
                                  uint32_t n, mdae_range where);

/* ---- Copies (issue 40: a front-end's replay of an edit) ------------------- */
/* Where an edit of a text moves the positions of the previous text: a
 * position at or after offset old_end (not a zero one: line 0) goes to
 * offset - old_end + new_end, d_line lines further and, when on the
 * edit's last line (offset <= old_nl), d_col columns further; the others
 * stay. */
typedef struct fx_shift {
    size_t old_end, new_end;
    size_t old_nl;         /* the previous text's first newline from old_end, or its length */
    int64_t d_line, d_col; /* lines added; columns added on the edit's last line */
} fx_shift;

static inline mdae_pos fx_shift_pos(const fx_shift *s, mdae_pos p)
{
    if (p.line == 0 || p.offset < s->old_end)
        return p;
    if (p.offset <= s->old_nl)
        p.col = (uint32_t)((int64_t)p.col + s->d_col);
    p.line = (uint32_t)((int64_t)p.line + s->d_line);
    p.offset = (uint32_t)(p.offset - s->old_end + s->new_end);
    return p;
}

static inline mdae_range fx_shift_range(const fx_shift *s, mdae_range r)
{
    return (mdae_range){fx_shift_pos(s, r.start), fx_shift_pos(s, r.end)};
}

/* A copy of e in p, node for node: what the constructors above make from
 * e's fields (names copied into p), every location moved by s (NULL:
 * kept), each node with its kids in one allocation. NULL when e is NULL
 * or the pool fails. Recursion as deep as e. */
MDAE_API const fx_node *fx_copy(fx_pool *p, const fx_node *e, const fx_shift *s);

/* The known function called `name` (MEL's and Modelica's spelling:
 * "sin", "atan2", "noEvent"...; Modelica's "Modelica.Math.sin" too) with n
 * arguments, or FX_FN_UNKNOWN (also for a known name with the wrong
 * number of arguments). */
MDAE_API fx_fn fx_fn_lookup(const char *name, uint32_t n);
MDAE_API const char *fx_fn_name(fx_fn fn); /* "sin"...; "" for UNKNOWN */
MDAE_API uint32_t fx_fn_arity(fx_fn fn);

/* Structural equality (same ops, numbers bitwise, indices, names, kids;
 * locations ignored). */
MDAE_API bool fx_equal(const fx_node *a, const fx_node *b);
/* Number of nodes of the tree (shared nodes counted per use, saturating at
 * SIZE_MAX). */
MDAE_API size_t fx_size(const fx_node *e);

/* ---- Transformations (fx_diff.c) -------------------------------------------
 * Results are new trees in pool p (which may be the one of the input or
 * another: inputs are never modified and may be shared). NULL on OOM. */

/* Constant folding and the simplifications that keep the meaning on every
 * point where the input is defined: 0 + e, 1 * e, 0 * e (to 0), e ^ 1,
 * e ^ 0, --e, numbers combined, if with a constant condition, known
 * functions of numbers, nested sums and products flattened. */
MDAE_API const fx_node *fx_fold(fx_pool *p, const fx_node *e);
/* The k-th derivative with respect to time (k >= 0), folded: FX_VAR(x, o)
 * becomes FX_VAR(x, o + 1), time 1, knowns, modes, pre() and numbers 0;
 * chain, product and quotient rules; known functions; unknown functions by
 * their partials ("f.d<i>", above); every FX_DER expanded (k = 0 too: the
 * result has no FX_DER); FX_OPAQUE to
 * FX_OPAQUE("der(text)", refs and their derivatives). FX_NEXT and FX_LAST
 * inside: MDAE_E_NOTIMPL via *err (the result NULL). err may be NULL. */
MDAE_API const fx_node *fx_dt(fx_pool *p, const fx_node *e, unsigned k, int *err);
/* fx_fold and fx_dt keeping the structure (RIMIS, issue 39): a
 * simplification that would drop a subtree reading an unknown (0 * e,
 * 0 / e, e - e, e ^ 0, 1 ^ e, the zero derivative of sign/floor/ceil/
 * integer/div of e) keeps it, multiplied by 0 where its value goes
 * (0 * e, 0 * der(e)...), so that the result reads each unknown at the
 * highest order the input reads it (raised by k) -- the incidences of the
 * structural analyses. Only constant subtrees and if-expressions with a
 * constant condition are folded away. Same values, same errors. */
MDAE_API const fx_node *fx_fold_keep(fx_pool *p, const fx_node *e);
MDAE_API const fx_node *fx_dt_keep(fx_pool *p, const fx_node *e, unsigned k, int *err);
/* The partial derivative with respect to der^order(var), every other
 * unknown, derivative, known and mode held fixed; folded. Conditions of
 * if-expressions are held fixed (piecewise). Same errors as fx_dt. */
MDAE_API const fx_node *fx_partial(fx_pool *p, const fx_node *e, uint32_t var, uint32_t order,
                                   int *err);
/* lhs - rhs, folded: an equation's residual. */
MDAE_API const fx_node *fx_residual(fx_pool *p, const fx_node *lhs, const fx_node *rhs);

/* ---- Evaluation (fx_eval.c) ------------------------------------------------
 * The value at a point. Booleans are 0 / 1. pre(), last() and next() read
 * their argument at the same point. An unknown function calls `call` (NULL:
 * MDAE_E_NOTIMPL). Errors: MDAE_E_NOTIMPL (FX_OPAQUE, no `call`),
 * MDAE_E_INVAL (a NULL callback that is needed). Division by zero and
 * domain errors give IEEE results (inf, NaN), not errors. */
typedef struct fx_point {
    double time;
    double (*var)(void *ctx, uint32_t var, uint32_t order);
    double (*known)(void *ctx, uint32_t k);
    bool (*mode)(void *ctx, uint32_t k);
    double (*call)(void *ctx, const char *name, uint32_t n, const double *args);
    void *ctx;
} fx_point;

MDAE_API int fx_eval(const fx_node *e, const fx_point *at, double *out /* out */);

/* ---- Printing (fx_print.c) -------------------------------------------------
 * An expression as source text of one language, with names from m (whose
 * expressions they are), parenthesised only where needed, so that parsing
 * the text in that language gives back an fx_equal tree. Numbers print
 * with the shortest form that reads back to the same double. */
typedef enum fx_syntax { FX_SYNTAX_MEL, FX_SYNTAX_MODELICA } fx_syntax;

MDAE_API void fx_print(mdae_buf *b, const mel_model *m, const fx_node *e, fx_syntax syntax);
/* The same with the unknowns named by the caller (RIMIS, issue 39, prints
 * a model's equations over variables of its own): FX_VAR(v, o) prints as
 * namer->var(ctx, v) (quoted where the language needs it) under o der()s;
 * where that returns NULL, as fx_print does. namer may be NULL. */
typedef struct fx_namer {
    void *ctx;
    const char *(*var)(void *ctx, uint32_t var);
    /* When set (may be NULL): the whole text of FX_VAR(v, o), derivatives
     * included, printed as it is (no der(), no quoting); where it returns
     * NULL, var applies. The mode changes' shifted bodies (mc_body_format:
     * x'.2) use it. */
    const char *(*occurrence)(void *ctx, uint32_t var, uint32_t order);
} fx_namer;
MDAE_API void fx_print_named(mdae_buf *b, const mel_model *m, const fx_node *e, fx_syntax syntax,
                             const fx_namer *namer);
/* The same as the left side of an equation (`lhs = rhs`): an
 * if-expression at the top is printed in parentheses, as neither
 * grammar reads it bare there (Modelica's left side is a
 * simple_expression); fx_print and fx_print_named print a right side.
 * namer may be NULL. */
MDAE_API void fx_print_lhs(mdae_buf *b, const mel_model *m, const fx_node *e, fx_syntax syntax,
                           const fx_namer *namer);
/* The same into a new string (owned: mdae_free), NULL on OOM. */
MDAE_API char *fx_format(const mel_model *m, const fx_node *e, fx_syntax syntax);
/* Append a declared name (unknown, known, mode, equation label) as the
 * language reads it: bare when it is an identifier and not a keyword,
 * else quoted as Modelica's Q-IDENT ('x[3]', 'stop1.v'; \' and \\
 * escaped), which MEL reads too. */
MDAE_API void fx_print_name(mdae_buf *b, const char *name, fx_syntax syntax);
/* Append a number as fx_print writes it (the shortest text that reads
 * back to v; 1.5, 0.001, 5e-6, an integer literal as 42). The Modelica
 * importer names relation atoms with it, so that a relation printed from
 * its tree reads back under the same name (issue 38). */
MDAE_API void fx_print_number(mdae_buf *b, double v, bool is_int);
/* Whether Modelica prints mode variable k as its definition: a relation
 * (or other condition) the importer made an atom, named by its text
 * ("s >= 0"), not a declared Boolean. */
MDAE_API bool fx_mode_is_atom(const mel_model *m, uint32_t k);

#endif /* FX_H */
