/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/rimis_int.h -- internals of the RIMIS module (engine/rimis.h),
 * shared by its files:
 *  - rimis_build.c, rimis_print.c: the construction and the text;
 *  - rimis_peval.c: conditions as BDDs and back, and the partial
 *    evaluation pi_q (RR-9459 section 4.6.2);
 *  - rimis_mc.c: what the mode-change analysis says (impulsive changes,
 *    finite resets) and the source's when-clauses.
 * BDD work follows engine/sa_int.h: the entry point (rimis_build) owns an
 * sa_ctx; failures longjmp through sa__fail; temporaries live in slots.
 */
#ifndef RIMIS_INT_H
#define RIMIS_INT_H

#include "fx.h"
#include "rimis.h"
#include "sa_int.h"

/* ---- rimis_peval.c ------------------------------------------------------ */

/* The set of modes (a BDD over r's mode variables) where the Boolean
 * expression e holds, when e is built of FX_BOOL, FX_MODE, FX_NOT, FX_AND,
 * FX_OR, and FX_EQ / FX_NE between such (*decided = true); otherwise (a
 * relation between reals, a call, ...) *decided = false and bddfalse. The
 * result is in a new slot of c. */
BDD rimis__cond_bdd(sa_ctx *c, const sa_result *r, const fx_node *e, bool *decided);

/* A Boolean expression (FX_MODE, FX_NOT, n-ary FX_AND / FX_OR, FX_BOOL)
 * for a set between lo and hi (lo implies the expression implies hi), as
 * short as an irredundant sum of products of it makes it (sa__isop); in
 * pool p. lo must imply hi. */
const fx_node *rimis__cond_fx(sa_ctx *c, const sa_result *r, fx_pool *p, BDD lo, BDD hi);

/* pi_q(e): e partially evaluated under the set of modes q, the care set
 * `care` (valid nonsingular modes) bounding what "unsatisfiable" means:
 *  - an FX_IF whose condition cond_bdd decides: if q & care & !cond is
 *    empty, its then-branch (evaluated under q & cond); if q & care & cond
 *    is empty, its else-branch; otherwise `if r then ... else ...` with r
 *    the shorter of the condition as written and rimis__cond_fx(q & cond,
 *    cond | !q) (each branch evaluated under q & cond, q & !cond);
 *  - an FX_IF whose condition is not decided: kept, its branches
 *    evaluated under q;
 *  - every other node: its kids evaluated under q (the node rebuilt only
 *    when a kid changed), then folded (fx_fold).
 * free(pi_q(e)) is a subset of free(e), and in every mode of q & care,
 * pi_q(e) and e have the same value. Out of memory: sticky in p (NULL). */
const fx_node *rimis__peval(sa_ctx *c, const sa_result *r, fx_pool *p, const fx_node *e, BDD q,
                            BDD care);

/* ---- rimis_mc.c ---------------------------------------------------------- */

/* What rimis_build tells rimis_mc.c about its names. */
typedef struct rimis__naming {
    void *ctx;
    /* The name of V(u, n) in the output (the source variable for n == 0,
     * its dummy derivative otherwise), declared on demand; borrowed until
     * rimis_build returns. */
    const char *(*source_name)(void *ctx, uint32_t var, int order);
    /* V(u, n) is FACTORED (a state of the output, reinit may target it). */
    bool (*factored)(void *ctx, uint32_t var, int order);
    /* The state replicates holding (u, n) (rho(b, u, n) for writers b with
     * k > n), in block order: *n_out names, borrowed. */
    const char *const *(*state_replicates)(void *ctx, uint32_t var, int order, size_t *n_out);
} rimis__naming;

/* A restart value the mode-change analysis determines: entering the modes
 * `into` (a Boolean expression over mode variables, in the pool) from
 * modes where the state u^(order) was defined, its new value is `value`
 * (over the source's variables: FX_PRE(FX_VAR) for values before the
 * change, FX_VAR for values after; in the pool). */
typedef struct rimis__reset {
    uint32_t var;
    int order;
    const fx_node *into;
    const fx_node *value;
} rimis__reset;

typedef struct rimis__changes {
    size_t n_resets;
    rimis__reset *resets;  /* owned (mdae_free) */
    char *whens;           /* owned: the source's when-clauses, as Modelica
                              equations naming the output's variables, one
                              clause per line start; NULL when none */
    uint32_t n_whens;
} rimis__changes;

/* Check that RIMIS can represent m's mode changes and collect what the
 * output must carry. Located errors in diags and MDAE_E_MODEL: an
 * impulsive mode change (naming the variables and the change: "x' is
 * impulsive when entering c from !c"), a when-clause the output cannot
 * carry. Warnings (rimis_result.warnings) for what is carried
 * approximately. On MDAE_OK *out is filled (rimis__changes_close). */
int rimis__mode_changes(const mel_model *m, const sa_result *r, const cdg_graph *g,
                        const rimis__naming *nm, const rimis_options *opt, fx_pool *pool,
                        rimis__changes *out, mdae_diags *warnings, mdae_diags *diags);
void rimis__changes_close(rimis__changes *ch /* NULL ok */);

#endif /* RIMIS_INT_H */
