/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/sa_classify.c -- the valid modes of a result split into blocks by
 * a list of guards, each block labelled through one of its modes, blocks
 * of equal labels merged (sa.h, sa_result_classify; issue 41 item 7: the
 * mode changes' impulse orders as sets of pairs, engine/mc_pairs_imp.c).
 *
 * Partition refinement on BDDs: the blocks start as the valid modes within
 * `within`; each guard in turn splits every block B that is not final into
 * B & g and B & !g (the empty parts dropped). A block is final when at
 * least `freeze` of the guards flagged heavy hold on all of it (the
 * caller's argument that nothing more can change its label). Then a mode
 * of each block (a path of its BDD, lowest branch first: deterministic) is
 * given to the caller's label function, and the blocks are merged by
 * label, each union counted (exactly too) and covered.
 */
#include "sa_int.h"

#include <string.h>

#define T(f) sa__tmp(c, (f))

typedef struct classify_job {
    const mel_guard *within;
    const mel_guard *const *attrs;
    size_t n_attrs;
    const bool *heavy;
    size_t freeze, max_blocks;
    sa_label_fn *label;
    void *ctx;
    sa_class *out; /* mdae_calloc'd here, freed by the caller on an error */
    size_t n_out;
    int rc;        /* the label function's error, or MDAE_E_LIMIT */
} classify_job;

/* Whether at least j->freeze heavy guards hold on all of b. */
static bool is_final(sa_ctx *c, classify_job *j, sa__gmemo *gm, BDD b, BDD *scratch)
{
    if (j->freeze == 0 || j->heavy == NULL)
        return false;
    size_t n = 0;
    for (size_t k = 0; k < j->n_attrs && n < j->freeze; k++) {
        if (!j->heavy[k])
            continue;
        BDD a = sa__guard_bdd(c, gm, j->attrs[k]);
        sa__put(scratch, bdd_apply(b, a, bddop_diff));
        n += *scratch == bddfalse;
    }
    return n >= j->freeze;
}

/* A valid mode of b (b within the valid modes, not false) into mode: the
 * lowest branch that is not false at each node; the variables b does not
 * test are false. */
static void pick_mode(const sa_result *r, BDD b, bool *mode)
{
    memset(mode, 0, (size_t)r->n_modes * sizeof *mode);
    while (b >= 2) {
        BDD lo = bdd_low(b), hi = bdd_high(b);
        bool up = lo == bddfalse;
        int k = r->var_mode[bdd_var(b)];
        MDAE_ASSERT(k >= 0);
        mode[k] = up;
        b = up ? hi : lo;
    }
    MDAE_ASSERT(b == bddtrue);
}

/* Split the blocks by every guard in turn: *nb blocks in blk, final[] says
 * which are not split any more. False past j->max_blocks (j->rc set). */
static bool refine(sa_ctx *c, classify_job *j, sa__gmemo *gm, BDD *blk, bool *final, size_t *nb)
{
    BDD *s = sa__slots(c, 3);
    for (size_t k = 0; k < j->n_attrs && *nb > 0; k++) {
        sa__put(&s[0], sa__guard_bdd(c, gm, j->attrs[k]));
        size_t n = *nb;
        for (size_t b = 0; b < n; b++) {
            if (final[b])
                continue;
            sa__put(&s[1], bdd_and(blk[b], s[0]));
            if (s[1] == bddfalse || s[1] == blk[b])
                continue; /* the guard is constant on the block */
            sa__put(&s[2], bdd_apply(blk[b], s[0], bddop_diff));
            if (*nb >= j->max_blocks) {
                j->rc = MDAE_E_LIMIT;
                return false;
            }
            sa__put(&blk[b], s[1]);
            sa__put(&blk[*nb], s[2]);
            final[b] = is_final(c, j, gm, blk[b], &s[1]);
            final[*nb] = is_final(c, j, gm, blk[*nb], &s[1]);
            (*nb)++;
        }
    }
    return true;
}

/* The union of the blocks with label lab, counted and covered, into *out. */
static void merged(sa_ctx *c, const sa_result *r, const BDD *blk, const int *labels, size_t nb,
                   int lab, const sa__care *care, sa_class *out)
{
    BDD *u = sa__slots(c, 1);
    for (size_t b = 0; b < nb; b++)
        if (labels[b] == lab)
            sa__put(u, bdd_or(*u, blk[b]));
    out->label = lab;
    out->count = sa__count_modes(c, r, *u);
    sa__count_modes_exact(c, r, *u, NULL, 0, out->count, &out->exact);
    if (!sa__set_of_care_if_few(c, r, *u, care, &out->set))
        memset(&out->set, 0, sizeof out->set); /* past max_cubes: no cover */
}

static void classify_run(sa_ctx *c, void *arg)
{
    classify_job *j = arg;
    const sa_result *r = c->r;
    sa__gmemo gm;
    memset(&gm, 0, sizeof gm);
    BDD *blk = sa__slots(c, j->max_blocks + 1);
    bool *final = sa__alloc(c, (j->max_blocks + 1) * sizeof *final);
    size_t nb = 0;
    BDD all = r->chi_m;
    if (j->within != NULL)
        all = T(bdd_and(all, sa__guard_bdd(c, &gm, j->within)));
    if (all != bddfalse) {
        sa__put(&blk[0], all);
        final[0] = is_final(c, j, &gm, all, sa__slots(c, 1));
        nb = 1;
    }
    if (!refine(c, j, &gm, blk, final, &nb))
        return;
    int *labels = sa__alloc(c, (nb + 1) * sizeof *labels);
    bool *mode = sa__alloc(c, ((size_t)r->n_modes + 1) * sizeof *mode);
    for (size_t b = 0; b < nb; b++) {
        pick_mode(r, blk[b], mode);
        labels[b] = -1;
        int rc = j->label(j->ctx, mode, final[b], &labels[b]);
        if (rc == MDAE_OK && labels[b] < 0)
            rc = MDAE_E_INVAL;
        if (rc != MDAE_OK) {
            j->rc = rc;
            return;
        }
    }
    j->out = mdae_calloc(nb + 1, sizeof *j->out);
    if (j->out == NULL)
        sa__fail(c, MDAE_E_NOMEM);
    sa__care cs;
    sa__care_init(c, r, r->chi_m, &cs);
    for (size_t b = 0; b < nb; b++) { /* each label once, in its first block's order */
        bool seen = false;
        for (size_t q = 0; q < b && !seen; q++)
            seen = labels[q] == labels[b];
        if (!seen) {
            sa_class *o = &j->out[j->n_out++]; /* counted first: freed on a jump */
            merged(c, r, blk, labels, nb, labels[b], &cs, o);
        }
    }
}

void sa_classes_free(sa_class *cl, size_t n)
{
    for (size_t k = 0; cl != NULL && k < n; k++) {
        sa__set_close(&cl[k].set);
        mdae_bn_free(&cl[k].exact);
    }
    mdae_free(cl);
}

int sa_result_classify(const sa_result *r, const mel_guard *within, const mel_guard *const *attrs,
                       size_t n_attrs, const bool *heavy, size_t freeze, size_t max_blocks,
                       sa_label_fn *label, void *ctx, size_t max_cubes, sa_class **out,
                       size_t *n_out)
{
    if (r == NULL || (attrs == NULL && n_attrs > 0) || label == NULL || out == NULL ||
        n_out == NULL || max_blocks == 0)
        return MDAE_E_INVAL;
    if (!sa__running())
        return MDAE_E_STATE;
    *out = NULL;
    *n_out = 0;
    classify_job j = {within, attrs, n_attrs, heavy, freeze, max_blocks, label, ctx,
                      NULL, 0, MDAE_OK};
    int rc = sa__run_on(r, NULL, max_cubes, classify_run, &j);
    if (rc == MDAE_OK)
        rc = j.rc;
    if (rc != MDAE_OK) {
        sa_classes_free(j.out, j.n_out);
        return rc;
    }
    *out = j.out;
    *n_out = j.n_out;
    return MDAE_OK;
}
