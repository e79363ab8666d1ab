/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/sa_probe.c -- the seeded rounds' samples (engine/sa_tight.c,
 * learn_shift) answered from the hint: one mode's canonical offsets after
 * the edit, from the previous version's in the same mode (engine/sm_warm.h
 * says how and why the answer is the cold one's, exactly).
 *
 * Why (issue 40). A sample was solved over the whole component: every
 * row's, column's and edge's activity and order evaluated on BDDs, then
 * sm_offsets over the mode's whole graph (solve_probe: 124 M instructions
 * of the brake's edit at N = 10,000, 1.24 M of edit (b) at N = 100), to
 * learn the shift of the few rows the edit touched. The hint has the same
 * rows, columns and edges by index (sa__same_edges) and, in each of its ok
 * modes, the canonical offsets (its c, the seeded rounds' base as it is)
 * and a maximum-weight perfect matching (its te): sm_warm repairs both from
 * the rows and columns the edit changed (chi_I, chi_J, chi_E or sigma not
 * the same BDD: found once per analysis, by runs of memcmp), reading the
 * BDDs of what it reaches only, in that mode.
 *
 * learn_shift's answer is then the same: the sample's singularity, and
 * shift_i = max(0, c_i(m)) - base_i(m) for every row active in the mode m,
 * which is 0 for every row sm_warm does not list (its new offset is its
 * old one, and base_i(m) is that old one), and is written so only where the
 * row had another shift (inactive rows keep theirs, as before). Where the
 * hint cannot answer (not in place, no te, the mode outside its ok, or the
 * repair reaches more rows than its budget), the caller solves the mode
 * whole as before. With sa_options.self_check (tests), every answer given
 * here is checked against the cold solve (sa_tight.c).
 */
#include "sa_int.h"
#include "sm_warm.h"

#include <string.h>

/* Rows a sample's repair may reach before the mode is solved whole: a
 * sixteenth of the component (at least WARM_MIN_ROWS). The brake's edits
 * reach a few dozen. */
#define WARM_MIN_ROWS 256

struct sa__warm {
    const sa_result *r, *h;
    const BDD *base; /* the hint's offsets: stride, wb bits */
    size_t stride;
    int wb;
    const bool *mode; /* the mode being solved */
    sm_warm *w;
    uint32_t budget;
};

/* ---- The two versions in one mode, for sm_warm ------------------------------- */

static int warm_sigma(void *ctx, size_t e, bool old)
{
    const sa__warm *a = ctx;
    const sa_result *v = old ? a->h : a->r;
    if (!sa__eval(a->r, v->chi_e[e], a->mode))
        return -1;
    return (int)sa__veval(a->r, &v->sigma[e * (size_t)v->w_sigma], v->w_sigma, a->mode);
}

static bool warm_row(void *ctx, uint32_t i, bool old)
{
    const sa__warm *a = ctx;
    return sa__eval(a->r, (old ? a->h : a->r)->chi_i[i], a->mode);
}

static bool warm_col(void *ctx, uint32_t j, bool old)
{
    const sa__warm *a = ctx;
    return sa__eval(a->r, (old ? a->h : a->r)->chi_j[j], a->mode);
}

static int warm_offset(void *ctx, uint32_t i)
{
    const sa__warm *a = ctx;
    return (int)sa__veval(a->r, &a->base[i * a->stride], a->wb, a->mode);
}

static bool warm_matched(void *ctx, size_t e)
{
    const sa__warm *a = ctx;
    return sa__te_at(a->r, a->h, e, a->mode);
}

/* ---- What the edit changed ------------------------------------------------------ */

/* The indices k < n where a[k] != b[k] (runs of SA_RUN_EDGES compared at
 * once), into *out (temporaries of c); their number. */
static size_t differing(sa_ctx *c, const BDD *a, const BDD *b, size_t n, uint32_t **out)
{
    size_t count = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1)
            *out = sa__alloc_raw(c, (count + 1) * sizeof **out);
        count = 0;
        for (size_t lo = 0; lo < n; lo += SA_RUN_EDGES) {
            size_t m = n - lo < SA_RUN_EDGES ? n - lo : SA_RUN_EDGES;
            if (memcmp(&a[lo], &b[lo], m * sizeof *a) == 0)
                continue;
            for (size_t k = lo; k < lo + m; k++)
                if (a[k] != b[k]) {
                    if (pass == 1)
                        (*out)[count] = (uint32_t)k;
                    count++;
                }
        }
    }
    return count;
}

/* The edges whose chi_E or sigma differ from the hint's, into *out. */
static size_t changed_edges(sa_ctx *c, const sa_result *r, const sa_result *h, size_t **out)
{
    size_t count = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1)
            *out = sa__alloc_raw(c, (count + 1) * sizeof **out);
        count = 0;
        for (size_t lo = 0; lo < r->n_edges; lo += SA_RUN_EDGES) {
            size_t n = r->n_edges - lo < SA_RUN_EDGES ? r->n_edges - lo : SA_RUN_EDGES;
            if (sa__run_same(r, h, lo, n, false))
                continue;
            for (size_t e = lo; e < lo + n; e++)
                if (!sa__edge_same(r, h, e)) {
                    if (pass == 1)
                        (*out)[count] = e;
                    count++;
                }
        }
    }
    return count;
}

/* ---- Entry points --------------------------------------------------------------- */

sa__warm *sa__warm_new(sa_ctx *c, const BDD *base, size_t stride, int wb)
{
    const sa_result *r = c->r, *h = c->opt != NULL ? c->opt->hint : NULL;
    /* base is the hint's own c only when sa__hint_offsets read it in
     * place: the same rows by index and the same mode variables. Stored
     * within h->ok or not (h->cd_within): it is read only in a mode of
     * h->ok (sa__warm_learn), where both forms are the exact offsets. */
    if (h == NULL || h == r || base == NULL || base != sa__c_stored(h) || stride != (size_t)h->w_off ||
        wb <= 0 || wb > 30 || sa__te_exact(h) == NULL || h->chi_i == NULL || h->chi_j == NULL ||
        r->w_sigma != h->w_sigma || r->n_eq == 0 || !sa__same_edges(r, h))
        return NULL;
    sa__warm *a = sa__alloc(c, sizeof *a);
    *a = (sa__warm){r, h, base, stride, wb, NULL, NULL, 0};
    a->budget = r->n_eq / 16 > WARM_MIN_ROWS ? r->n_eq / 16 : WARM_MIN_ROWS;
    size_t *edges;
    uint32_t *rows, *cols;
    size_t ne = changed_edges(c, r, h, &edges);
    size_t nr = differing(c, r->chi_i, h->chi_i, r->n_eq, &rows);
    size_t nc = differing(c, r->chi_j, h->chi_j, r->n_var, &cols);
    const size_t *first, *col_edges;
    sa__layout_columns(c, r, &first, &col_edges);
    sm_warm_graph g = {r->n_eq,    r->n_var, r->n_edges, r->eq_first, r->edge_v,
                       r->edge_eq, first,    col_edges,  a,           warm_sigma,
                       warm_row,   warm_col, warm_offset, warm_matched};
    size_t size = sm_warm_size(&g, edges, ne, rows, nr, cols, nc);
    if (size == 0)
        return NULL;
    a->w = sm_warm_init(sa__alloc_raw(c, size), size, &g, edges, ne, rows, nr, cols, nc);
    MDAE_ASSERT(a->w != NULL);
    return a;
}

int sa__warm_learn(sa_ctx *c, sa__warm *a, const bool *mode, int *shift)
{
    const sa_result *r = a->r;
    MDAE_ASSERT(c->r == r);
    if (!sa__eval(r, a->h->ok, mode))
        return -1; /* the hint's offsets are not canonical there */
    a->mode = mode;
    int got = sm_warm_solve(a->w, a->budget);
    if (got != SM_WARM_PERFECT)
        return got == SM_WARM_SINGULAR ? 0 : -1;
    const uint32_t *rows;
    const int *cs;
    size_t n = sm_warm_rows(a->w, &rows, &cs);
    for (uint32_t i = 0; i < r->n_eq; i++) /* active, unlisted: the old offset */
        if (shift[i] != 0 && !sm_warm_listed(a->w, i) && sa__eval(r, r->chi_i[i], mode))
            shift[i] = 0;
    for (size_t k = 0; k < n; k++) {
        MDAE_ASSERT(cs[k] >= 0);
        shift[rows[k]] = cs[k] - (int)sa__veval(r, &a->base[rows[k] * a->stride], a->wb, mode);
    }
    return 1;
}
