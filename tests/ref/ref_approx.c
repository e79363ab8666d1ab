/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/ref/ref_approx.c -- the approximate analysis of single-mode tools
 * (engine/ap.h) by brute force, sharing no code with it: the union
 * structure is written out as a MEL text without mode variables (one
 * equation per approximate equation, `0 = der(der(x)) + y`, each unknown
 * at its union order) and that one-mode model is analysed by this
 * reference (ref_mode_compute: Hungarian matching, Pryce's fixpoint); each
 * mode of the model is analysed by it too, and the differences are read
 * off per mode. See ref.h.
 */
#include "ref.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

void ref_approx_close(ref_approx *a)
{
    if (a == NULL)
        return;
    ref_mode_close(&a->rm);
    mel_model_free(a->union_model);
    free(a->row_of);
    free(a->sigma);
    memset(a, 0, sizeof *a);
}

/* row_of: the model's equations with the same nonzero cond and cond_pos
 * share the row of the first of them; when-equations have none. */
static uint32_t rows_of(const mel_model *m, uint32_t *row_of)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->n_equations; i++) {
        const mel_equation *e = &m->equations[i];
        row_of[i] = NONE;
        if (e->when != 0)
            continue;
        for (uint32_t k = 0; k < i && e->cond != 0; k++) {
            const mel_equation *f = &m->equations[k];
            if (f->when == 0 && f->cond == e->cond && f->cond_pos == e->cond_pos) {
                row_of[i] = row_of[k];
                break;
            }
        }
        if (row_of[i] == NONE)
            row_of[i] = n++;
    }
    return n;
}

/* Append printf-style text to a growing buffer; false on OOM. */
static bool put(char **buf, size_t *len, size_t *cap, const char *fmt, long a, long b)
{
    char tmp[96];
    int n = snprintf(tmp, sizeof tmp, fmt, a, b);
    if (n < 0)
        return false;
    if (*len + (size_t)n + 1 > *cap) {
        size_t nc = 2 * (*cap + (size_t)n + 64);
        char *p = realloc(*buf, nc);
        if (p == NULL)
            return false;
        *buf = p;
        *cap = nc;
    }
    memcpy(*buf + *len, tmp, (size_t)n + 1);
    *len += (size_t)n;
    return true;
}

/* The union as MEL text: v<j> unknowns, r<q> equations. */
static char *union_text(const ref_approx *a, uint32_t n_vars)
{
    char *buf = NULL;
    size_t len = 0, cap = 0;
    bool ok = true;
    for (uint32_t j = 0; ok && j < n_vars; j++)
        ok = put(&buf, &len, &cap, "v%ld : real;\n", j, 0);
    for (uint32_t q = 0; ok && q < a->n_rows; q++) {
        ok = put(&buf, &len, &cap, "r%ld : equation 0 = 0", q, 0);
        for (uint32_t j = 0; ok && j < n_vars; j++) {
            int s = a->sigma[(size_t)q * n_vars + j];
            if (s < 0)
                continue;
            ok = put(&buf, &len, &cap, " + ", 0, 0);
            for (int t = 0; ok && t < s; t++)
                ok = put(&buf, &len, &cap, "der(", 0, 0);
            ok = ok && put(&buf, &len, &cap, "v%ld", j, 0);
            for (int t = 0; ok && t < s; t++)
                ok = put(&buf, &len, &cap, ")", 0, 0);
        }
        ok = ok && put(&buf, &len, &cap, ";\n", 0, 0);
    }
    if (ok && buf == NULL)
        ok = put(&buf, &len, &cap, "", 0, 0);
    if (!ok) {
        free(buf);
        return NULL;
    }
    return buf;
}

int ref_approx_build(const mel_model *m, ref_approx *out)
{
    if (m == NULL || out == NULL)
        return MDAE_E_INVAL;
    memset(out, 0, sizeof *out);
    uint32_t nv = m->n_variables;
    out->row_of = malloc(((size_t)m->n_equations + 1) * sizeof *out->row_of);
    if (out->row_of == NULL)
        return MDAE_E_NOMEM;
    out->n_rows = rows_of(m, out->row_of);
    out->sigma = malloc(((size_t)out->n_rows * nv + 1) * sizeof *out->sigma);
    if (out->sigma == NULL) {
        ref_approx_close(out);
        return MDAE_E_NOMEM;
    }
    for (size_t k = 0; k < (size_t)out->n_rows * nv; k++)
        out->sigma[k] = -1;
    /* Every case of every incidence of every member, guards ignored. */
    for (uint32_t i = 0; i < m->n_equations; i++) {
        if (out->row_of[i] == NONE)
            continue;
        const mel_equation *e = &m->equations[i];
        for (uint32_t k = 0; k < e->n_incs; k++)
            for (uint32_t t = 0; t < e->incs[k].n_cases; t++) {
                int *s = &out->sigma[(size_t)out->row_of[i] * nv + e->incs[k].var];
                if (e->incs[k].cases[t].order > *s)
                    *s = e->incs[k].cases[t].order;
            }
    }
    char *text = union_text(out, nv);
    if (text == NULL) {
        ref_approx_close(out);
        return MDAE_E_NOMEM;
    }
    mel_options opt = {.max_instances = 10000000, .no_expressions = true};
    int rc = mel_model_parse(text, strlen(text), &opt, &out->union_model, NULL);
    free(text);
    if (rc == MDAE_OK)
        rc = ref_mode_compute(out->union_model, NULL, &out->rm);
    if (rc != MDAE_OK) {
        ref_approx_close(out);
        return rc;
    }
    out->accepted = !out->rm.singular;
    return MDAE_OK;
}

bool ref_approx_check_matching(const ref_approx *a, const long *matched, const char **why)
{
    int *mv = malloc(((size_t)a->n_rows + 1) * sizeof *mv);
    if (mv == NULL) {
        if (why)
            *why = "out of memory";
        return false;
    }
    for (uint32_t q = 0; q < a->n_rows; q++)
        mv[q] = (int)matched[q];
    long w = -1;
    bool ok = ref_mode_check_matching(&a->rm, mv, &w, why);
    free(mv);
    if (ok && w != a->rm.weight) {
        if (why)
            *why = "a perfect matching, not of maximum weight";
        return false;
    }
    return ok;
}

void ref_approx_mode_close(ref_approx_mode *am)
{
    if (am == NULL)
        return;
    free(am->pivot_zero);
    free(am->d_differs);
    free(am->c_differs);
    memset(am, 0, sizeof *am);
}

int ref_approx_mode_compute(const mel_model *m, const ref_approx *a, const long *matched,
                            const bool *mode, ref_approx_mode *out)
{
    memset(out, 0, sizeof *out);
    ref_mode rm;
    int rc = ref_mode_compute(m, mode, &rm);
    if (rc != MDAE_OK)
        return rc;
    out->pivot_zero = calloc((size_t)a->n_rows + 1, sizeof(bool));
    out->d_differs = calloc((size_t)m->n_variables + 1, sizeof(bool));
    out->c_differs = calloc((size_t)m->n_equations + 1, sizeof(bool));
    if (!out->pivot_zero || !out->d_differs || !out->c_differs) {
        ref_mode_close(&rm);
        ref_approx_mode_close(out);
        return MDAE_E_NOMEM;
    }
    out->valid = rm.valid;
    out->singular = rm.singular;
    bool solved = rm.valid && !rm.singular;
    out->refused = !a->accepted && solved;
    out->singular_accepted = a->accepted && rm.singular;
    for (uint32_t j = 0; a->accepted && solved && j < m->n_variables; j++)
        out->d_differs[j] = rm.var_active[j] && rm.d[j] != a->rm.d[j];
    for (uint32_t i = 0; a->accepted && solved && i < m->n_equations; i++)
        out->c_differs[i] = a->row_of[i] != NONE && rm.eq_active[i] &&
                            rm.c[i] != a->rm.c[a->row_of[i]];
    /* The pivot of row q: some active member has x at the union's order. */
    for (uint32_t q = 0; a->accepted && rm.valid && q < a->n_rows; q++) {
        uint32_t x = (uint32_t)matched[q];
        int s = a->sigma[(size_t)q * m->n_variables + x];
        bool has = false;
        for (uint32_t i = 0; i < m->n_equations; i++)
            if (a->row_of[i] == q && ref_mode_sigma(&rm, i, x) == s)
                has = true;
        out->pivot_zero[q] = !has;
    }
    for (uint32_t q = 0; q < a->n_rows; q++)
        out->any |= out->pivot_zero[q];
    for (uint32_t j = 0; j < m->n_variables; j++)
        out->any |= out->d_differs[j];
    for (uint32_t i = 0; i < m->n_equations; i++)
        out->any |= out->c_differs[i];
    out->any |= out->refused || out->singular_accepted;
    ref_mode_close(&rm);
    return MDAE_OK;
}
