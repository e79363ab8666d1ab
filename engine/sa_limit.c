/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/sa_limit.c -- a stated limit reached by the analysis, as an error
 * that says which limit, its value, how to raise it (mdae_limit_note) and
 * which equations reached it, located at the first of them (issue 36:
 * before, one error at 0:0 said only "exceeds a configured limit").
 *
 * What is named is what the entry point knows when it stops: the component
 * it was analysing (sa_analyze of one connected component, inc.h), or the
 * union-SCC whose blocks were being split (cdg_build). Finer places (the
 * block of the primal at hand) would need every step to record itself
 * before each BDD operation; the component is what the user edits.
 */
#include "sa_int.h"

#include <stdarg.h>

#define LIMIT_NAMES_MAX 3 /* equations named before "and N more" */

static uint32_t eq_at(const uint32_t *eqs, size_t k) { return eqs ? eqs[k] : (uint32_t)k; }

/* "on the 3 equations a, b, c" / "on the 40 equations a, b, c and 37 more" */
static void name_equations(mdae_buf *b, const mel_model *m, const uint32_t *eqs, size_t n)
{
    char num[MDAE_INT_CHARS + 1];
    mdae_buf_puts(b, n == 1 ? " on the equation " : " on the ");
    if (n != 1) {
        mdae_buf_put(b, num, mdae_put_int(num, (long long)n));
        mdae_buf_puts(b, " equations ");
    }
    size_t shown = 0;
    for (size_t k = 0; k < n && shown < LIMIT_NAMES_MAX; k++) {
        uint32_t i = eq_at(eqs, k);
        if (i >= m->n_equations)
            continue;
        mdae_buf_puts(b, shown++ ? ", " : "");
        mdae_buf_puts(b, m->equations[i].name);
    }
    if (n > shown) {
        mdae_buf_puts(b, " and ");
        mdae_buf_put(b, num, mdae_put_int(num, (long long)(n - shown)));
        mdae_buf_puts(b, " more");
    }
}

/* The first located equation of the n, or no location. */
static mdae_range first_range(const mel_model *m, const uint32_t *eqs, size_t n)
{
    for (size_t k = 0; m != NULL && k < n; k++) {
        uint32_t i = eq_at(eqs, k);
        if (i < m->n_equations && m->equations[i].where.start.line != 0)
            return m->equations[i].where;
    }
    return (mdae_range){{0, 0, 0}, {0, 0, 0}};
}

void sa__limit_diag(sa_ctx *c, const mel_model *m, const uint32_t *eqs, size_t n, int id,
                    double value, const char *fmt, ...)
{
    if (c->diags == NULL)
        return;
    if (m != NULL && eqs == NULL)
        n = m->n_equations;
    mdae_buf b = {0};
    va_list ap;
    va_start(ap, fmt);
    char *what = mdae_vasprintf(fmt, ap);
    va_end(ap);
    if (what == NULL)
        b.oom = true;
    mdae_buf_puts(&b, what ? what : "");
    mdae_free(what);
    if (m != NULL && n > 0)
        name_equations(&b, m, eqs, n);
    const char *text = !b.oom && b.p != NULL ? b.p : "a limit was reached";
    if (mdae_limit_get(id) != NULL)
        mdae_diags_add_limit(c->diags, first_range(m, eqs, n), id, value, "%s", text);
    else /* a limit of the engine's that has no name: still located */
        mdae_diags_add(c->diags, MDAE_SEV_ERROR, first_range(m, eqs, n), "%s", text);
    mdae_free(b.p);
}

void sa__node_limit_diag(sa_ctx *c, const mel_model *m)
{
    sa__limit_diag(c, m, NULL, 0, MDAE_LIMIT_BDD_NODES, (double)c->node_limit,
                   "the analysis exceeded %zu BDD nodes", c->node_limit);
}
