/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/mc_all.c -- every mode change of a small model, by enumeration
 * (mc.h, mc_all_enumerate).
 *
 * This file enumerates the valid modes and runs the one-change analysis on
 * each ordered pair, which is exact but quadratic in the number of valid
 * modes, so it refuses models past MC_ALL_MAX_PAIRS pairs, and it reports
 * its method as "enumeration" so that no caller mistakes it for the
 * implicit one. The classification of all pairs on BDDs over two copies of
 * the mode variables, without enumerating pairs, is mc_pairs.c's
 * (mc_first_instants); past these limits the callers (`mdae modechange
 * --all`, session/modechanges, session/analyze, the editor) go there. It
 * covers the changes between long modes; the changes into transient modes
 * are this file's only.
 *
 * Transient modes (mc.h): the changes from each valid (long) mode into each
 * transient mode are pairs too (the cascade through the event); a transient
 * mode is never the old mode of a pair (it lasts one instant).
 */
#include "mc_int.h"

#include <stdio.h> /* snprintf only */
#include <string.h>

void mc_all_free(mc_all *a)
{
    if (a == NULL)
        return;
    for (size_t k = 0; k < a->n_pairs; k++)
        mdae_free(a->pairs[k].erased0.items);
    mdae_free(a->pairs);
    mdae_diags_close(&a->diags);
    mdae_free(a);
}

static bool valid(const mel_model *m, const bool *mode)
{
    for (uint32_t k = 0; k < m->n_invariants; k++)
        if (!mel_guard_eval(m->invariants[k].cond, mode))
            return false;
    return true;
}

static void to_mode(uint32_t mask, uint32_t n, bool *mode)
{
    for (uint32_t k = 0; k < n; k++)
        mode[k] = (mask >> k) & 1u;
}

/* The valid modes as masks (owned array), or NULL on OOM; *targets (owned)
 * the valid and the transient ones (only the transient ones with
 * events_only), the new modes of the pairs (*n_targets of them,
 * ascending). */
static uint32_t *valid_modes(const mel_model *m, bool events_only, uint32_t *count,
                             uint32_t **targets, uint32_t *n_targets)
{
    uint32_t total = 1u << m->n_modes, n = 0;
    uint32_t *v = mdae_malloc(((size_t)total + 1) * sizeof *v);
    uint32_t *t = mdae_malloc(((size_t)total + 1) * sizeof *t);
    bool *mode = mdae_calloc((size_t)m->n_modes + 1, sizeof *mode);
    if (v == NULL || t == NULL || mode == NULL) {
        mdae_free(v);
        mdae_free(t);
        mdae_free(mode);
        return NULL;
    }
    uint32_t nt = 0;
    for (uint32_t x = 0; x < total; x++) {
        to_mode(x, m->n_modes, mode);
        bool ok = valid(m, mode);
        if (ok)
            v[n++] = x;
        if ((ok && !events_only) || (m->n_whens > 0 && !ok && mc__is_transient(m, mode)))
            t[nt++] = x;
    }
    mdae_free(mode);
    *count = n;
    *targets = t;
    *n_targets = nt;
    return v;
}

typedef struct each_cb {
    mc_pair_fn *fn;
    void *ctx;
} each_cb;

static int one_pair(const mel_model *m, uint32_t a, uint32_t b, bool *from, bool *to,
                    mc_all *all, const each_cb *cb)
{
    to_mode(a, m->n_modes, from);
    to_mode(b, m->n_modes, to);
    mc_result *r = NULL;
    mc_options opt = {.skip_impulses = true}; /* not reported by the summary */
    int rc = mc_change(m, from, to, &opt, &r, NULL, 0);
    if (rc < 0)
        return rc; /* the modes are valid and differ: only NOMEM */
    mc_pair *p = &all->pairs[all->n_pairs++];
    memset(p, 0, sizeof *p);
    p->from = a;
    p->to = b;
    p->status = r->status;
    p->n_instants = r->n_instants;
    p->ambiguous = r->ambiguous;
    all->counts[r->status]++;
    if (r->n_instants > 0 && r->instants[0].erased.n > 0) {
        p->erased0 = r->instants[0].erased; /* moved */
        r->instants[0].erased.items = NULL;
        r->instants[0].erased.n = 0;
    }
    if (all->diags.count == 0 && r->status == MC_REJECTED && r->n_instants == 0) {
        /* model-wide refusals are the same for every pair: keep them once */
        for (size_t k = 0; k < r->diags.count && rc == MDAE_OK; k++)
            rc = mdae_diags_add_copy(&all->diags, &r->diags.items[k]);
    }
    if (rc == MDAE_OK && cb->fn != NULL && cb->fn(cb->ctx, p, r) != 0)
        rc = MDAE_E_CANCELED;
    mc_result_free(r);
    return rc;
}

int mc_all_enumerate(const mel_model *m, size_t max_pairs, mc_all **out, char *why,
                     size_t why_len)
{
    return mc_all_enumerate_each(m, max_pairs, NULL, NULL, out, why, why_len);
}

static int enumerate(const mel_model *m, size_t max_pairs, bool events_only, mc_pair_fn *fn,
                     void *ctx, mc_all **out, char *why, size_t why_len);

int mc_all_enumerate_each(const mel_model *m, size_t max_pairs, mc_pair_fn *fn, void *ctx,
                          mc_all **out, char *why, size_t why_len)
{
    return enumerate(m, max_pairs, false, fn, ctx, out, why, why_len);
}

int mc_events_enumerate(const mel_model *m, size_t max_pairs, mc_all **out, char *why,
                        size_t why_len)
{
    return enumerate(m, max_pairs, true, NULL, NULL, out, why, why_len);
}

static int enumerate(const mel_model *m, size_t max_pairs, bool events_only, mc_pair_fn *fn,
                     void *ctx, mc_all **out, char *why, size_t why_len)
{
    each_cb cb = {fn, ctx};
    if (m == NULL || out == NULL)
        return MDAE_E_INVAL;
    if (m->n_modes == 0) {
        if (why != NULL && why_len > 0)
            snprintf(why, why_len, "the model has no mode variables: it has no mode changes");
        return MDAE_E_INVAL;
    }
    if (m->n_modes > 20) {
        if (why != NULL && why_len > 0)
            snprintf(why, why_len,
                     "%u mode variables: every change in full is enumerated up to 20 mode "
                     "variables and %zu pairs",
                     (unsigned)m->n_modes, max_pairs);
        return MDAE_E_LIMIT;
    }
    uint32_t nv = 0, nt = 0;
    uint32_t *tg = NULL;
    uint32_t *v = valid_modes(m, events_only, &nv, &tg, &nt);
    if (v == NULL)
        return MDAE_E_NOMEM;
    /* the targets include the old mode, once, unless they are events only */
    size_t pairs = (size_t)nv * (nt > 0 && !events_only ? nt - 1 : nt);
    if (pairs > max_pairs) {
        if (why != NULL && why_len > 0)
            snprintf(why, why_len,
                     "%u valid modes make %zu %s: every change in full is enumerated up "
                     "to %zu pairs",
                     (unsigned)nv, pairs, events_only ? "changes into transient modes" : "changes",
                     max_pairs);
        mdae_free(v);
        mdae_free(tg);
        return MDAE_E_LIMIT;
    }
    int rc = MDAE_E_NOMEM;
    bool *from = mdae_calloc((size_t)m->n_modes + 1, sizeof *from);
    bool *to = mdae_calloc((size_t)m->n_modes + 1, sizeof *to);
    mc_all *all = mdae_calloc(1, sizeof *all);
    if (from == NULL || to == NULL || all == NULL)
        goto fail;
    mdae_diags_init(&all->diags);
    all->method = "enumeration";
    all->valid_modes = nv;
    all->pairs = mdae_calloc(pairs + 1, sizeof *all->pairs);
    if (all->pairs == NULL)
        goto fail;
    for (uint32_t a = 0; a < nv; a++)
        for (uint32_t b = 0; b < nt; b++) {
            if (v[a] == tg[b])
                continue;
            rc = one_pair(m, v[a], tg[b], from, to, all, &cb);
            if (rc < 0)
                goto fail;
        }
    rc = MDAE_OK;
    *out = all;
    all = NULL;
fail:
    mc_all_free(all);
    mdae_free(v);
    mdae_free(tg);
    mdae_free(from);
    mdae_free(to);
    return rc;
}
