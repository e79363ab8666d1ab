/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/ref/ref_mode.c -- the brute-force reference for one mode: activity,
 * Kuhn's maximum matching, the Hungarian MWPM, Pryce's fixpoint and the
 * Dulmage-Mendelsohn coarse parts (see ref.h for the definitions).
 *
 * Everything is done on a compact "active graph": rows = active equations,
 * columns = active variables, w[r][k] = sigma or -1 (no edge). The code
 * favours plain, textbook shapes over speed: it is the yardstick the BDD
 * engine is measured against.
 */
#include "ref.h"

#include <assert.h>
#include <limits.h>
#include <string.h>

/* The active graph of one mode. */
typedef struct agraph {
    uint32_t nr, nc; /* active equations (rows), active variables (columns) */
    uint32_t *row_eq;  /* row -> equation index */
    uint32_t *col_var; /* column -> variable index */
    int *w;            /* nr * nc, sigma or -1 */
    uint32_t *adj_at;  /* nr + 1: row r's columns are adj[adj_at[r] .. adj_at[r+1]) */
    uint32_t *adj;     /* the columns k with w[r][k] >= 0, row after row */
} agraph;

static void agraph_free(agraph *g) {
    mdae_free(g->row_eq);
    mdae_free(g->col_var);
    mdae_free(g->w);
    mdae_free(g->adj_at);
    mdae_free(g->adj);
    memset(g, 0, sizeof *g);
}

static int agraph_w(const agraph *g, uint32_t r, uint32_t k) {
    return g->w[(size_t)r * g->nc + k];
}

/* The rows' lists of columns, read off w (the matchings walk these instead
 * of whole rows of w: the MSL's blocks have thousands of columns and a
 * handful of edges per row). */
static int agraph_index(agraph *g) {
    size_t edges = 0;
    for (size_t t = 0; t < (size_t)g->nr * g->nc; t++) edges += g->w[t] >= 0;
    g->adj_at = mdae_calloc(g->nr + 1, sizeof *g->adj_at);
    g->adj = mdae_calloc(edges + 1, sizeof *g->adj);
    if (!g->adj_at || !g->adj) return MDAE_E_NOMEM;
    uint32_t n = 0;
    for (uint32_t r = 0; r < g->nr; r++) {
        g->adj_at[r] = n;
        for (uint32_t k = 0; k < g->nc; k++)
            if (agraph_w(g, r, k) >= 0) g->adj[n++] = k;
    }
    g->adj_at[g->nr] = n;
    return MDAE_OK;
}

/* Build the active graph from rm's activity and sigma arrays. */
static int agraph_build(const ref_mode *rm, agraph *g) {
    const mel_model *m = rm->model;
    memset(g, 0, sizeof *g);
    g->nr = rm->n_active_eqs;
    g->nc = rm->n_active_vars;
    g->row_eq = mdae_calloc(g->nr + 1, sizeof *g->row_eq);
    g->col_var = mdae_calloc(g->nc + 1, sizeof *g->col_var);
    g->w = mdae_calloc((size_t)g->nr * g->nc + 1, sizeof *g->w);
    if (!g->row_eq || !g->col_var || !g->w) {
        agraph_free(g);
        return MDAE_E_NOMEM;
    }
    uint32_t r = 0, k = 0;
    for (uint32_t i = 0; i < m->n_equations; i++)
        if (rm->eq_active[i]) g->row_eq[r++] = i;
    for (uint32_t j = 0; j < m->n_variables; j++)
        if (rm->var_active[j]) g->col_var[k++] = j;
    for (r = 0; r < g->nr; r++)
        for (k = 0; k < g->nc; k++)
            g->w[(size_t)r * g->nc + k] = ref_mode_sigma(rm, g->row_eq[r], g->col_var[k]);
    if (agraph_index(g) < 0) {
        agraph_free(g);
        return MDAE_E_NOMEM;
    }
    return MDAE_OK;
}

/* ---- Kuhn's maximum-cardinality matching ------------------------------------
 * Rows skip_row / columns skip_col (UINT32_MAX: none) are removed from the
 * graph, which is how the DM parts are computed. Kuhn's algorithm may start
 * from any matching: an augmenting search that fails from a free row fails
 * again after later augmentations (the classic lemma behind the algorithm
 * holds whatever the starting matching), so one search per free row still
 * ends with a maximum matching. */

typedef struct kuhn {
    const agraph *g;
    uint32_t skip_row, skip_col;
    int *col_match; /* column -> row, -1 */
    bool *seen;     /* columns visited in this search */
} kuhn;

/* Try to find an augmenting path from row r (depth-first). Recursion depth is
 * bounded by the number of rows (each level matches a new column). */
static bool kuhn_augment(kuhn *ks, uint32_t r) {
    const agraph *g = ks->g;
    for (uint32_t t = g->adj_at[r]; t < g->adj_at[r + 1]; t++) {
        uint32_t k = g->adj[t];
        if (k == ks->skip_col || ks->seen[k]) continue;
        ks->seen[k] = true;
        if (ks->col_match[k] < 0 || kuhn_augment(ks, (uint32_t)ks->col_match[k])) {
            ks->col_match[k] = (int)r;
            return true;
        }
    }
    return false;
}

/* A maximum matching of the graph without skip_row and skip_col, grown from
 * col_match (column -> row or -1: a matching of that graph) in place; its
 * size in *out. */
static int kuhn_grow(const agraph *g, uint32_t skip_row, uint32_t skip_col, int *col_match,
                     long *out) {
    kuhn ks = {g, skip_row, skip_col, col_match, NULL};
    bool *matched_row = mdae_calloc(g->nr + 1, sizeof *matched_row);
    ks.seen = mdae_malloc((g->nc + 1) * sizeof *ks.seen);
    if (!ks.seen || !matched_row) {
        mdae_free(ks.seen);
        mdae_free(matched_row);
        return MDAE_E_NOMEM;
    }
    long size = 0;
    for (uint32_t k = 0; k < g->nc; k++)
        if (col_match[k] >= 0) {
            assert((uint32_t)col_match[k] != skip_row && k != skip_col);
            matched_row[col_match[k]] = true;
            size++;
        }
    for (uint32_t r = 0; r < g->nr; r++) {
        if (r == skip_row || matched_row[r]) continue;
        memset(ks.seen, 0, (g->nc + 1) * sizeof *ks.seen);
        if (kuhn_augment(&ks, r)) size++;
    }
    mdae_free(ks.seen);
    mdae_free(matched_row);
    *out = size;
    return MDAE_OK;
}

/* A maximum matching of the whole graph from scratch (col_match: nc). */
static int kuhn_max_matching(const agraph *g, int *col_match, long *out) {
    for (uint32_t k = 0; k < g->nc; k++) col_match[k] = -1;
    return kuhn_grow(g, UINT32_MAX, UINT32_MAX, col_match, out);
}

/* ---- Hungarian algorithm ----------------------------------------------------
 * Minimum-cost assignment on an n x n cost matrix (the classic O(n^3) version
 * with row potentials u, column potentials v, 1-based with a virtual column
 * 0). Costs are -sigma for edges and BIG for non-edges; the caller has made
 * sure a perfect matching exists, and BIG > n * max sigma, so an optimal
 * assignment never uses a non-edge (one BIG entry costs more than any
 * assignment made of edges). */

static int hungarian(const agraph *g, int *row_col /* out: n */, long *weight) {
    const uint32_t n = g->nr;
    long long maxs = 0;
    for (size_t t = 0; t < (size_t)n * n; t++)
        if (g->w[t] > maxs) maxs = g->w[t];
    const long long big = (long long)(n + 1) * (maxs + 1) + 1;
    const long long inf = LLONG_MAX / 4;
    long long *u = mdae_calloc(n + 1, sizeof *u), *v = mdae_calloc(n + 1, sizeof *v);
    long long *minv = mdae_calloc(n + 1, sizeof *minv);
    uint32_t *p = mdae_calloc(n + 1, sizeof *p), *way = mdae_calloc(n + 1, sizeof *way);
    bool *used = mdae_calloc(n + 1, sizeof *used);
    int rc = MDAE_E_NOMEM;
    if (!u || !v || !minv || !p || !way || !used) goto done;

    for (uint32_t i = 1; i <= n; i++) {
        p[0] = i;
        uint32_t j0 = 0;
        for (uint32_t j = 0; j <= n; j++) {
            minv[j] = inf;
            used[j] = false;
        }
        do {
            used[j0] = true;
            uint32_t i0 = p[j0], j1 = 0;
            long long delta = inf;
            for (uint32_t j = 1; j <= n; j++) {
                if (used[j]) continue;
                int s = agraph_w(g, i0 - 1, j - 1);
                long long cost = s >= 0 ? -(long long)s : big;
                long long cur = cost - u[i0] - v[j];
                if (cur < minv[j]) {
                    minv[j] = cur;
                    way[j] = j0;
                }
                if (minv[j] < delta) {
                    delta = minv[j];
                    j1 = j;
                }
            }
            for (uint32_t j = 0; j <= n; j++) {
                if (used[j]) {
                    u[p[j]] += delta;
                    v[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            }
            j0 = j1;
        } while (p[j0] != 0);
        do { /* flip the augmenting path */
            uint32_t j1 = way[j0];
            p[j0] = p[j1];
            j0 = j1;
        } while (j0 != 0);
    }
    long total = 0;
    for (uint32_t j = 1; j <= n; j++) {
        int s = agraph_w(g, p[j] - 1, j - 1);
        assert(s >= 0 && "a perfect matching exists, so the optimum avoids non-edges");
        row_col[p[j] - 1] = (int)(j - 1);
        total += s;
    }
    *weight = total;
    rc = MDAE_OK;
done:
    mdae_free(u);
    mdae_free(v);
    mdae_free(minv);
    mdae_free(p);
    mdae_free(way);
    mdae_free(used);
    return rc;
}

/* ---- Pryce's fixpoint -------------------------------------------------------- */

int ref_pryce_offsets(const ref_mode *rm, const int *match, int *c, int *d) {
    const mel_model *m = rm->model;
    const uint32_t ne = m->n_equations, nv = m->n_variables;
    int maxs = 0;
    for (size_t t = 0; t < (size_t)ne * nv; t++)
        if (rm->sigma[t] > maxs) maxs = rm->sigma[t];
    /* Canonical offsets are bounded by n * max sigma (each c_i is a sum of
     * at most n sigma differences along a path of saturated edges), and
     * every iteration that changes something raises some c_i by at least 1,
     * so more iterations than this means no convergence. */
    const long bound = (long)(rm->n_active_eqs + 1) * (long)(rm->n_active_eqs + 1) *
                           (long)(maxs + 1) + 2;
    for (uint32_t i = 0; i < ne; i++) c[i] = rm->eq_active[i] ? 0 : -1;
    for (uint32_t j = 0; j < nv; j++) d[j] = -1;
    for (long it = 0; it < bound; it++) {
        /* d_j = max over active edges (sigma_ij + c_i); every edge (i, j)
         * is one of equation i's incidences (fill_activity). */
        for (uint32_t j = 0; j < nv; j++) d[j] = -1;
        for (uint32_t i = 0; i < ne; i++) {
            for (uint32_t t = 0; rm->eq_active[i] && t < m->equations[i].n_incs; t++) {
                uint32_t j = m->equations[i].incs[t].var;
                int s = ref_mode_sigma(rm, i, j);
                if (s >= 0 && s + c[i] > d[j]) d[j] = s + c[i];
            }
        }
        /* c_i = d_j(i) - sigma_i,j(i) */
        bool changed = false;
        for (uint32_t i = 0; i < ne; i++) {
            if (!rm->eq_active[i]) continue;
            int j = match[i];
            if (j < 0) return MDAE_E_INVAL;
            int nc = d[j] - ref_mode_sigma(rm, i, (uint32_t)j);
            if (nc != c[i]) {
                c[i] = nc;
                changed = true;
            }
        }
        if (!changed) return MDAE_OK;
    }
    return MDAE_E_INVAL;
}

/* ---- The DM coarse parts (singular modes) ----------------------------------
 * By definition: equation i is overdetermined when removing it does not
 * shrink the maximum matching (some maximum matching avoids i), variable j
 * underdetermined likewise. Each removal is matched afresh by Kuhn's
 * algorithm, started from the whole graph's maximum matching `best` less
 * the removed vertex's edge (a matching of the smaller graph). */

static int max_without(const agraph *g, const int *best, uint32_t skip_row, uint32_t skip_col,
                       int *scratch, long *out) {
    for (uint32_t k = 0; k < g->nc; k++)
        scratch[k] = (k == skip_col || (uint32_t)best[k] == skip_row) ? -1 : best[k];
    return kuhn_grow(g, skip_row, skip_col, scratch, out);
}

static int dm_parts(const agraph *g, const int *best, long maxm, ref_mode *rm) {
    int *scratch = mdae_calloc(g->nc + 1, sizeof *scratch);
    if (!scratch) return MDAE_E_NOMEM;
    int rc = MDAE_OK;
    for (uint32_t r = 0; r < g->nr && rc == MDAE_OK; r++) {
        long without = -1;
        rc = max_without(g, best, r, UINT32_MAX, scratch, &without);
        rm->overdetermined[g->row_eq[r]] = (without == maxm);
    }
    for (uint32_t k = 0; k < g->nc && rc == MDAE_OK; k++) {
        long without = -1;
        rc = max_without(g, best, UINT32_MAX, k, scratch, &without);
        rm->underdetermined[g->col_var[k]] = (without == maxm);
    }
    mdae_free(scratch);
    return rc;
}

/* ---- One mode ------------------------------------------------------------------ */

int ref_mode_sigma(const ref_mode *rm, uint32_t eq, uint32_t var) {
    return rm->sigma[(size_t)eq * rm->model->n_variables + var];
}

void ref_mode_close(ref_mode *rm) {
    mdae_free(rm->eq_active);
    mdae_free(rm->var_active);
    mdae_free(rm->sigma);
    mdae_free(rm->match);
    mdae_free(rm->c);
    mdae_free(rm->d);
    mdae_free(rm->overdetermined);
    mdae_free(rm->underdetermined);
    memset(rm, 0, sizeof *rm);
}

static bool mode_valid(const mel_model *m, const bool *mode) {
    for (uint32_t k = 0; k < m->n_invariants; k++)
        if (!mel_guard_eval(m->invariants[k].cond, mode)) return false;
    return true;
}

/* Activity and sigma (only for valid modes: invalid modes have no graph). */
static void fill_activity(ref_mode *rm, const bool *mode) {
    const mel_model *m = rm->model;
    const uint32_t nv = m->n_variables;
    for (size_t t = 0; t < (size_t)m->n_equations * nv; t++) rm->sigma[t] = -1;
    if (!rm->valid) return;
    for (uint32_t j = 0; j < nv; j++) {
        rm->var_active[j] = mel_guard_eval(m->variables[j].guard, mode);
        rm->n_active_vars += rm->var_active[j];
    }
    for (uint32_t i = 0; i < m->n_equations; i++) {
        const mel_equation *e = &m->equations[i];
        rm->eq_active[i] = mel_guard_eval(e->guard, mode);
        rm->n_active_eqs += rm->eq_active[i];
        if (!rm->eq_active[i]) continue;
        for (uint32_t t = 0; t < e->n_incs; t++) {
            const mel_incidence *inc = &e->incs[t];
            int s = mel_incidence_order(inc, mode);
            /* An edge to a variable that does not exist in this mode is a
             * model error (ref_model_consistent); it is not part of the
             * graph. */
            if (s >= 0 && rm->var_active[inc->var])
                rm->sigma[(size_t)i * nv + inc->var] = s;
        }
    }
}

/* Primal and dual problems of a valid mode with a perfect matching. */
static int solve_nonsingular(ref_mode *rm, const agraph *g) {
    int *row_col = mdae_calloc(g->nr + 1, sizeof *row_col);
    if (!row_col) return MDAE_E_NOMEM;
    int rc = hungarian(g, row_col, &rm->weight);
    if (rc == MDAE_OK) {
        for (uint32_t r = 0; r < g->nr; r++)
            rm->match[g->row_eq[r]] = (int)g->col_var[row_col[r]];
        rc = ref_pryce_offsets(rm, rm->match, rm->c, rm->d);
        assert(rc != MDAE_E_INVAL && "the Hungarian matching has maximum weight");
    }
    mdae_free(row_col);
    return rc;
}

int ref_mode_compute(const mel_model *m, const bool *mode, ref_mode *out) {
    if (!m || (!mode && m->n_modes) || !out) return MDAE_E_INVAL;
    const uint32_t ne = m->n_equations, nv = m->n_variables;
    ref_mode rm;
    memset(&rm, 0, sizeof rm);
    rm.model = m;
    rm.max_matching = -1;
    rm.weight = -1;
    rm.eq_active = mdae_calloc(ne + 1, sizeof *rm.eq_active);
    rm.var_active = mdae_calloc(nv + 1, sizeof *rm.var_active);
    rm.sigma = mdae_calloc((size_t)ne * nv + 1, sizeof *rm.sigma);
    rm.match = mdae_calloc(ne + 1, sizeof *rm.match);
    rm.c = mdae_calloc(ne + 1, sizeof *rm.c);
    rm.d = mdae_calloc(nv + 1, sizeof *rm.d);
    rm.overdetermined = mdae_calloc(ne + 1, sizeof *rm.overdetermined);
    rm.underdetermined = mdae_calloc(nv + 1, sizeof *rm.underdetermined);
    if (!rm.eq_active || !rm.var_active || !rm.sigma || !rm.match || !rm.c || !rm.d ||
        !rm.overdetermined || !rm.underdetermined) {
        ref_mode_close(&rm);
        return MDAE_E_NOMEM;
    }
    for (uint32_t i = 0; i < ne; i++) rm.match[i] = rm.c[i] = -1;
    for (uint32_t j = 0; j < nv; j++) rm.d[j] = -1;

    rm.valid = mode_valid(m, mode);
    fill_activity(&rm, mode);
    if (!rm.valid) {
        *out = rm;
        return MDAE_OK;
    }
    agraph g;
    int rc = agraph_build(&rm, &g);
    if (rc < 0) goto fail;
    int *best = mdae_calloc(g.nc + 1, sizeof *best);
    rc = best ? kuhn_max_matching(&g, best, &rm.max_matching) : MDAE_E_NOMEM;
    if (rc < 0) goto fail_best;
    rm.singular = !(g.nr == g.nc && rm.max_matching == (long)g.nr);
    rc = rm.singular ? dm_parts(&g, best, rm.max_matching, &rm) : solve_nonsingular(&rm, &g);
    if (rc < 0) goto fail_best;
    mdae_free(best);
    agraph_free(&g);
    *out = rm;
    return MDAE_OK;
fail_best:
    mdae_free(best);
    agraph_free(&g);
fail:
    ref_mode_close(&rm);
    return rc;
}

bool ref_mode_check_matching(const ref_mode *rm, const int *matched_var, long *weight,
                             const char **why) {
    const mel_model *m = rm->model;
    const char *dummy;
    if (!why) why = &dummy;
    if (!rm->valid || rm->singular) {
        *why = "the mode is invalid or singular";
        return false;
    }
    bool *used = mdae_calloc(m->n_variables + 1, sizeof *used);
    if (!used) {
        *why = "out of memory";
        return false;
    }
    long total = 0;
    bool ok = true;
    *why = NULL;
    for (uint32_t i = 0; i < m->n_equations && ok; i++) {
        int j = matched_var[i];
        if (!rm->eq_active[i]) {
            if (j != -1) *why = "an inactive equation is matched";
        } else if (j < 0 || (uint32_t)j >= m->n_variables) {
            *why = "an active equation is unmatched";
        } else if (ref_mode_sigma(rm, i, (uint32_t)j) < 0) {
            *why = "an equation is matched along an inactive edge";
        } else if (used[j]) {
            *why = "a variable is matched twice";
        } else {
            used[j] = true;
            total += ref_mode_sigma(rm, i, (uint32_t)j);
        }
        ok = *why == NULL;
    }
    for (uint32_t j = 0; j < m->n_variables && ok; j++)
        if (rm->var_active[j] && !used[j]) {
            *why = "an active variable is unmatched";
            ok = false;
        }
    mdae_free(used);
    if (ok && weight) *weight = total;
    return ok;
}

/* ---- Whole-model helpers --------------------------------------------------------- */

void ref_mode_from_index(uint64_t index, uint32_t n_modes, bool *mode) {
    for (uint32_t k = 0; k < n_modes; k++) mode[k] = (index >> k) & 1u;
}

uint64_t ref_modes_total(uint32_t n_modes, uint32_t max_bits, uint64_t samples) {
    return n_modes <= max_bits ? (uint64_t)1 << n_modes : samples;
}

void ref_modes_at(uint64_t x, uint32_t n_modes, uint32_t max_bits, uint64_t *state,
                  bool *mode) {
    if (n_modes <= max_bits)
        ref_mode_from_index(x, n_modes, mode);
    else
        for (uint32_t k = 0; k < n_modes; k++) mode[k] = ref_rand_next(state) & 1u;
}

/* First edge used where its variable does not exist in this mode, if any. */
static bool mode_consistent(const mel_model *m, const bool *mode, uint32_t *eq,
                            uint32_t *var) {
    for (uint32_t i = 0; i < m->n_equations; i++) {
        const mel_equation *e = &m->equations[i];
        for (uint32_t t = 0; t < e->n_incs; t++) {
            const mel_incidence *inc = &e->incs[t];
            if (mel_incidence_order(inc, mode) >= 0 &&
                !mel_guard_eval(m->variables[inc->var].guard, mode)) {
                if (eq) *eq = i;
                if (var) *var = inc->var;
                return false;
            }
        }
    }
    return true;
}

static bool consistent(const mel_model *m, bool valid_only, uint32_t *eq, uint32_t *var,
                       uint64_t *mode_index) {
    bool mode[64];
    for (uint64_t x = 0; x < ((uint64_t)1 << m->n_modes); x++) {
        ref_mode_from_index(x, m->n_modes, mode);
        if (valid_only && !mode_valid(m, mode)) continue;
        if (!mode_consistent(m, mode, eq, var)) {
            if (mode_index) *mode_index = x;
            return false;
        }
    }
    return true;
}

bool ref_model_consistent(const mel_model *m, bool *checked, uint32_t *eq, uint32_t *var,
                          uint64_t *mode_index) {
    if (checked) *checked = m->n_modes <= 20;
    if (m->n_modes > 20) return true;
    return consistent(m, false, eq, var, mode_index);
}

bool ref_model_consistent_valid(const mel_model *m, uint32_t *eq, uint32_t *var,
                                uint64_t *mode_index) {
    if (m->n_modes > 20) return true;
    return consistent(m, true, eq, var, mode_index);
}
