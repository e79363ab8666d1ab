/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/rimis_core.h -- private to the core of RIMIS (engine/rimis.h):
 * the state of one rimis_build, shared by
 *  - rimis_build.c: the entry point, conditions, writers, the order of
 *    the steps;
 *  - rimis_names.c: which output variable names (u, n) where (steps 1-3:
 *    source values, dummy derivatives, replicates, read replicates), the
 *    renaming of expressions onto them;
 *  - rimis_eqs.c: the equations (steps 2, 4, 5: multiplexers, state
 *    equations, reinitialisations, block equations and their guards);
 *  - rimis_print.c: the text.
 * Everything but the result lives in the sa_ctx's temporaries (sa__alloc)
 * or the builder's pool; a failure anywhere jumps through sa__fail, and
 * rimis_build frees the result it was filling.
 */
#ifndef RIMIS_CORE_H
#define RIMIS_CORE_H

#include "cdg_int.h"
#include "rimis_int.h"

/* A block writing (u, k): k its leading order of u there. */
typedef struct rc_writer {
    uint32_t block;
    int k;
} rc_writer;

/* How V(u, n) is defined (rimis.h step 2). */
typedef enum rc_class {
    RC_NONE,     /* no block writes (u, >= n) */
    RC_FACTORED, /* every writer holds it as a state: V(u, n) is the state */
    RC_DIRECT,   /* one writer solves for it wherever u exists: it writes V */
    RC_REPL      /* every writer has a replicate; V multiplexed */
} rc_class;

/* var = if conds[0] then rhos[0] else if ... else rhos[n - 1] (n >= 1; no
 * rhos when n == 0: var = 0, a variable that exists in no valid mode). */
typedef struct rc_multi {
    uint32_t var;
    uint32_t n;
    const fx_node **conds; /* n - 1, renamed */
    uint32_t *rhos;        /* n output variables */
} rc_multi;

typedef struct rc_diff {
    uint32_t state, rate; /* der(state) = rate */
} rc_diff;

/* A block equation: lhs = rhs, renamed; guard: the block's condition
 * (renamed) or NULL; w: its matched unknown (output variable); alt: the
 * left side of its else-branch `alt = 0` (rimis_eqs.c says which). */
typedef struct rc_beq {
    uint32_t block, eq;
    int order;
    const fx_node *lhs, *rhs, *guard, *alt;
    uint32_t w;
} rc_beq;

typedef struct rc_reinit {
    uint32_t var; /* when cond then reinit(var, value) */
    const fx_node *cond, *value; /* renamed */
} rc_reinit;

typedef struct rc_key {
    uint32_t tag, a, b, c;
} rc_key;

enum { RC_K_V = 1, RC_K_REP = 2, RC_K_READ = 3 };

typedef struct rc_map {
    rc_key *keys; /* tag 0: empty */
    uint32_t *vals;
    size_t cap, n;
} rc_map;

typedef struct rc_names {
    const char **s; /* NULL: empty */
    size_t cap, n;
} rc_names;

/* A growable array of temporaries of the context. */
typedef struct rc_vec {
    void *p;
    size_t n, cap;
} rc_vec;

typedef struct rc_build {
    sa_ctx *c;
    const mel_model *m;
    const sa_result *r;
    const cdg_graph *g;
    const rimis_options *opt;
    mdae_diags *diags;
    rimis_result *res;
    size_t cap_vars, cap_conds;
    fx_pool *pool;          /* differentiated, evaluated and renamed trees */
    uint32_t nb;            /* blocks */
    const cdg_block *blk;   /* the graph's */
    long *bcond;            /* per block: index into res->conds, -1: true */
    BDD *bq;                /* per block: its guard within r->ok (slots) */
    const fx_node **cond_fx; /* per condition: renamed, printed */
    BDD *cond_bdd;           /* per condition (slots, grown with conds) */
    size_t cap_cond_bdd;
    uint32_t *wfirst;       /* n_var + 1 */
    rc_writer *w;           /* writers of each variable, in block order */
    int *maxk;              /* per variable: its largest written order, -1 */
    rc_map map;
    rc_names names;         /* every name taken: the source's and ours */
    rc_vec multi, diff, beq, reinit; /* rc_multi, rc_diff, rc_beq, rc_reinit */
    const fx_node **mode_def; /* per mode: its definition renamed, or NULL */
    bool refused;           /* a located error was added to diags */
    const char *whens;      /* the source's when-clauses (rimis__changes), or NULL */
} rc_build;

/* ---- rimis_build.c ---- */
/* A new slot of b->vec's element type, zeroed (grows by doubling). */
void *rc__push(rc_build *b, rc_vec *v, size_t elem);
/* Jump out with MDAE_E_NOMEM (a NULL from the pool or an allocation). */
_Noreturn void rc__oom(rc_build *b);
/* A located error in diags; the build goes on, refused. */
void rc__refuse(rc_build *b, mdae_range where, const char *fmt, ...) MDAE_PRINTF(3, 4);
/* The text of condition set f (a Boolean expression over r's mode
 * variables, true where lo, anything outside hi), renamed. */
const fx_node *rc__cond_expr(rc_build *b, BDD lo, BDD hi);

/* ---- rimis_names.c ---- */
void rc__names_init(rc_build *b);
/* The order k at which block blk writes variable u, or -1. */
int rc__writes(const rc_build *b, uint32_t blk, uint32_t u);
rc_class rc__class(const rc_build *b, uint32_t u, int n, long *direct);
/* The output variable holding V(u, n), declared on demand. */
uint32_t rc__value(rc_build *b, uint32_t u, int n);
/* The replicates of the writers of (u, n) (RC_REPL), made once. */
void rc__replicates(rc_build *b, uint32_t u, int n);
/* Block blk's own name for (u, n), which it writes at an order >= n. */
uint32_t rc__own_name(rc_build *b, uint32_t blk, uint32_t u, int n);
/* The name under block blk of (v, r): blk's own when it writes (v, >= r),
 * else what its reads name (rimis.h step 3). */
uint32_t rc__name_under(rc_build *b, uint32_t blk, uint32_t v, int r);
/* e with every FX_VAR(v, r) replaced by FX_VAR(name, 0), name an output
 * variable (under block blk; blk == UINT32_MAX: V(v, r)), and relation
 * atoms by their renamed definitions. NULL when e has a construct RIMIS
 * cannot print (*why set). */
const fx_node *rc__rename(rc_build *b, const fx_node *e, uint32_t blk, const char **why);
/* A new output variable (name owned by the result). */
uint32_t rc__add_var(rc_build *b, char *name, rimis_var_kind kind, uint32_t var, int order,
                     long cond, long block);
/* base + "_p" * n + suffix, made unique among the names taken. */
char *rc__fresh(rc_build *b, const char *base, int n, const char *suffix);

/* ---- rimis_eqs.c ---- */
/* e with every der(a) of an expression a replaced by a's time derivative
 * (fx_dt), so that the output holds der() of its states only; NULL with
 * *err (fx_dt's errors) when that cannot be done. */
const fx_node *rc__expand_der(rc_build *b, const fx_node *e, int *err);
/* Block blk's equations (rimis.h step 4) into b->beq. */
void rc__block_equations(rc_build *b, uint32_t blk);
/* The state equations and reinits of the replicates, then the
 * definitions of every V(u, n) declared (multiplexers, factored states),
 * until nothing more is declared. */
void rc__define_values(rc_build *b, uint32_t first_var);

/* ---- rimis_changes.c ---- */
/* rimis__mode_changes with the core's naming into *ch (closed by the
 * caller); refused (b->refused) on MDAE_E_MODEL. */
void rc__mode_changes(rc_build *b, rimis__changes *ch);
/* ch's resets onto the reinitialisations (after rc__define_values). */
void rc__apply_resets(rc_build *b, const rimis__changes *ch);

/* ---- rimis_print.c ---- */
/* The text, res->eqs, groups, counts. MDAE_E_LIMIT past max_lines. */
void rc__print(rc_build *b);

#endif /* RIMIS_CORE_H */
