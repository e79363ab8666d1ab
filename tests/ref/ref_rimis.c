/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/ref/ref_rimis.c -- the four checks of a RIMIS on its text read back
 * (ref_rimis.h says what each one checks and why).
 *
 * How an equation of the text is found: o's equations carry where they
 * start (mdae_range.start.line); each belongs to the result's equation
 * (rimis_result.eqs) that starts on the nearest line at or before it, so
 * an if-equation printed over several lines stays one equation's. The
 * same holds for the approximate equations of ap_analyze (a merged
 * if-equation starts at its `if`).
 */
#include "ref_rimis.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ap.h"
#include "fx.h"
#include "mo.h"
#include "ref.h"

#define TOL 1e-8
#define ENUM_BITS 16u /* enumerate every mode up to this many mode variables */

typedef struct chk {
    const mel_model *m;
    const sa_result *r;
    const cdg_graph *g;
    const rimis_result *res;
    ref_rimis_report *rep;
    uint64_t seed;
    uint32_t max_modes;
    uint32_t nm;          /* source mode variables (at least 1 column) */
    bool *modes;          /* n_checked * nm */
    size_t n_checked;
    mel_model *o;
    sa_result *ro;
    ap_report *ap;
    long *omode_src;      /* o's mode k -> the source's mode variable */
    long *ovar_rv;        /* o's variable j -> rimis_result.vars index */
    long *line_owner;     /* text line -> the rimis eq starting at or before it */
    long *oeq_owner;      /* o's equation -> its rimis eq (-1: a when-equation) */
    fx_pool *pool;
    const fx_node **dres; /* rimis eq (BLOCK) -> its source residual, differentiated */
    bool *live;           /* per rimis var, in the current mode */
    bool *omode;          /* o's mode values in the current mode */
    const bool *mode;     /* the current source mode */
    double time;          /* the independent variable at the points */
    const sa_mode_view *sv; /* the source's analysis in the current mode */
    bool stop;            /* the current check failed: stop it */
    bool readable;        /* o read back, analysed and mapped: checks 2-4 can run */
} chk;

static bool fail(chk *c, int check, const char *fmt, ...) MDAE_PRINTF(3, 4);
static bool fail(chk *c, int check, const char *fmt, ...)
{
    c->stop = true;
    if (c->rep->failed_mask & (1u << check))
        return false;
    c->rep->failed_mask |= 1u << check;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->rep->why_check[check - 1], sizeof c->rep->why_check[0], fmt, ap);
    va_end(ap);
    if (c->rep->failed == 0) {
        c->rep->failed = check;
        snprintf(c->rep->why, sizeof c->rep->why, "%s", c->rep->why_check[check - 1]);
    }
    return false;
}

/* ---- Values --------------------------------------------------------------- */

static double u01(uint64_t key)
{
    uint64_t st = key;
    return (double)(ref_rand_next(&st) >> 11) / 9007199254740992.0;
}

static double source_value(const chk *c, uint32_t var, int order)
{
    return 0.5 + u01(c->seed ^ ((uint64_t)var + 1) * 0x9E3779B97F4A7C15ull ^
                     ((uint64_t)order + 1) * 0xC2B2AE3D27D4EB4Full);
}

static double junk_value(const chk *c, uint32_t ovar, int order)
{
    return 2.5 + u01(~c->seed ^ ((uint64_t)ovar + 1) * 0x165667B19E3779F9ull ^
                     ((uint64_t)order + 1) * 0x27D4EB2F165667C5ull);
}

/* A known's value: its own when the front-end computed it, else one drawn
 * by name (so that the source and the output agree). */
static double known_value(const chk *c, const mel_known *k)
{
    return k->known ? k->value : 0.5 + u01(c->seed ^ mdae_hash_str(k->name));
}

static double unknown_function(void *ctx, const char *name, uint32_t n, const double *args)
{
    (void)ctx;
    double a = 0.5 + u01(mdae_hash_str(name));
    double v = a;
    for (uint32_t i = 0; i < n; i++)
        v += (0.3 + 0.1 * i) * sin(args[i] * (1.0 + 0.1 * i) + a);
    return v;
}

static double src_var(void *ctx, uint32_t var, uint32_t order)
{
    return source_value(ctx, var, (int)order);
}

static double src_known(void *ctx, uint32_t k)
{
    chk *c = ctx;
    return known_value(c, &c->m->knowns[k]);
}

static bool src_mode(void *ctx, uint32_t k)
{
    return ((chk *)ctx)->mode[k];
}

static double out_var(void *ctx, uint32_t var, uint32_t order)
{
    chk *c = ctx;
    long rv = c->ovar_rv[var];
    if (!c->live[rv])
        return junk_value(c, var, (int)order);
    return source_value(c, c->res->vars[rv].var, c->res->vars[rv].order + (int)order);
}

static double out_known(void *ctx, uint32_t k)
{
    chk *c = ctx;
    long s = mel_model_find_known(c->m, c->o->knowns[k].name);
    return known_value(c, s >= 0 ? &c->m->knowns[s] : &c->o->knowns[k]);
}

static bool out_mode(void *ctx, uint32_t k)
{
    return ((chk *)ctx)->omode[k];
}

static bool close_enough(double a, double b, double scale)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    if (a == b)
        return true;
    return fabs(a - b) <= TOL * fmax(1.0, scale);
}

/* ---- Modes ---------------------------------------------------------------- */

static bool source_valid(const mel_model *m, const bool *mode)
{
    for (uint32_t k = 0; k < m->n_invariants; k++)
        if (!mel_guard_eval(m->invariants[k].cond, mode))
            return false;
    return true;
}

static void mode_text(const chk *c, const bool *mode, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (uint32_t k = 0; k < c->m->n_modes && len + 1 < n; k++) {
        int w = snprintf(buf + len, n - len, "%s%s=%d", k ? "," : "", c->m->modes[k].name,
                         mode[k]);
        if (w < 0)
            break;
        len += (size_t)w;
    }
    if (c->m->n_modes == 0)
        snprintf(buf, n, "(the only mode)");
}

static bool set_has(const sa_set *s, uint32_t n, const bool *mode)
{
    for (size_t q = 0; q < s->n_cubes; q++) {
        bool in = true;
        for (uint32_t k = 0; k < n && in; k++)
            in = sa_set_literal(s, q, k) < 0 || (sa_set_literal(s, q, k) != 0) == mode[k];
        if (in)
            return true;
    }
    return false;
}

static bool add_mode(chk *c, const bool *mode)
{
    for (size_t x = 0; x < c->n_checked; x++)
        if (memcmp(c->modes + x * c->nm, mode, c->nm * sizeof *mode) == 0)
            return true;
    memcpy(c->modes + c->n_checked * c->nm, mode, c->nm * sizeof *mode);
    c->n_checked++;
    return true;
}

/* Every valid mode, or max_modes of them drawn at random. */
static int enumerate_modes(chk *c)
{
    uint32_t n = c->m->n_modes;
    uint64_t total = (uint64_t)1 << n, n_valid = 0;
    bool *mode = mdae_calloc(c->nm, sizeof *mode);
    uint64_t *valid = mdae_malloc((size_t)total * sizeof *valid);
    if (mode == NULL || valid == NULL) {
        mdae_free(mode);
        mdae_free(valid);
        return MDAE_E_NOMEM;
    }
    for (uint64_t x = 0; x < total; x++) {
        ref_mode_from_index(x, n, mode);
        if (source_valid(c->m, mode))
            valid[n_valid++] = x;
    }
    uint64_t st = c->seed;
    uint64_t take = n_valid < c->max_modes ? n_valid : c->max_modes;
    c->rep->sampled = take < n_valid;
    for (uint64_t t = 0; t < take; t++) { /* a partial Fisher-Yates shuffle */
        uint64_t pick = c->rep->sampled ? t + ref_rand_next(&st) % (n_valid - t) : t;
        uint64_t tmp = valid[t];
        valid[t] = valid[pick];
        valid[pick] = tmp;
        ref_mode_from_index(valid[t], n, mode);
        add_mode(c, mode);
    }
    mdae_free(valid);
    mdae_free(mode);
    return MDAE_OK;
}

/* Too many mode variables to walk: valid modes drawn at random, half of
 * the tries inside a cube of a random block's guard (random assignments
 * are rarely valid in models with many invariants). */
static int sample_modes(chk *c)
{
    uint32_t n = c->m->n_modes;
    cdg_report *cr = NULL;
    int rc = cdg_graph_report(c->g, &cr);
    if (rc != MDAE_OK)
        return rc;
    bool *mode = mdae_calloc(c->nm, sizeof *mode);
    if (mode == NULL) {
        cdg_report_free(cr);
        return MDAE_E_NOMEM;
    }
    uint64_t st = c->seed;
    c->rep->sampled = true;
    for (uint64_t t = 0; t < 200ull * c->max_modes && c->n_checked < c->max_modes; t++) {
        const sa_set *cs = NULL;
        size_t cq = 0;
        if ((t & 1) && cr->n_blocks > 0) {
            const sa_set *s = &cr->blocks[ref_rand_next(&st) % cr->n_blocks].guard;
            if (s->n_cubes > 0) {
                cs = s;
                cq = ref_rand_next(&st) % s->n_cubes;
            }
        }
        for (uint32_t k = 0; k < n; k++) {
            signed char b = cs != NULL ? sa_set_literal(cs, cq, k) : -1;
            mode[k] = b >= 0 ? b != 0 : (ref_rand_next(&st) & 1);
        }
        if (source_valid(c->m, mode))
            add_mode(c, mode);
    }
    mdae_free(mode);
    cdg_report_free(cr);
    return MDAE_OK;
}

static int choose_modes(chk *c)
{
    c->modes = mdae_calloc((size_t)c->max_modes * c->nm, sizeof *c->modes);
    if (c->modes == NULL)
        return MDAE_E_NOMEM;
    int rc = c->m->n_modes <= ENUM_BITS ? enumerate_modes(c) : sample_modes(c);
    c->rep->modes = c->n_checked;
    return rc;
}

/* ---- Names ----------------------------------------------------------------- */

typedef struct named {
    const char *name;
    long index;
} named;

static int cmp_named(const void *a, const void *b)
{
    return strcmp(((const named *)a)->name, ((const named *)b)->name);
}

/* o's variables to the result's, by name; every one of each side. */
static int map_variables(chk *c)
{
    const rimis_result *res = c->res;
    named *byname = mdae_calloc(res->n_vars + 1, sizeof *byname);
    bool *seen = mdae_calloc(res->n_vars + 1, sizeof *seen);
    c->ovar_rv = mdae_calloc(c->o->n_variables + 1, sizeof *c->ovar_rv);
    if (byname == NULL || seen == NULL || c->ovar_rv == NULL) {
        mdae_free(byname);
        mdae_free(seen);
        return MDAE_E_NOMEM;
    }
    for (uint32_t v = 0; v < res->n_vars; v++)
        byname[v] = (named){res->vars[v].name, (long)v};
    qsort(byname, res->n_vars, sizeof *byname, cmp_named);
    for (uint32_t j = 0; j < c->o->n_variables && !c->stop; j++) {
        named key = {c->o->variables[j].name, -1};
        const named *hit = res->n_vars ? bsearch(&key, byname, res->n_vars, sizeof *byname,
                                                 cmp_named)
                                       : NULL;
        if (hit == NULL)
            fail(c, 1, "variable '%s' of the output is not in the result's variables", key.name);
        else
            c->ovar_rv[j] = hit->index, seen[hit->index] = true;
    }
    for (uint32_t v = 0; v < res->n_vars && !c->stop; v++)
        if (!seen[v])
            fail(c, 1, "variable '%s' of the result is not declared in the output",
                 res->vars[v].name);
    mdae_free(byname);
    mdae_free(seen);
    return MDAE_OK;
}

static int map_modes(chk *c)
{
    c->omode_src = mdae_calloc(c->o->n_modes + 1, sizeof *c->omode_src);
    c->omode = mdae_calloc(c->o->n_modes + 1, sizeof *c->omode);
    if (c->omode_src == NULL || c->omode == NULL)
        return MDAE_E_NOMEM;
    for (uint32_t k = 0; k < c->o->n_modes; k++) {
        c->omode_src[k] = mel_model_find_mode(c->m, c->o->modes[k].name);
        if (c->omode_src[k] < 0)
            fail(c, 1, "mode variable '%s' of the output is not the source's",
                 c->o->modes[k].name);
    }
    return MDAE_OK;
}

static void set_omode(chk *c, const bool *mode)
{
    for (uint32_t k = 0; k < c->o->n_modes; k++)
        c->omode[k] = mode[c->omode_src[k]];
}

/* Each text line to the result's equation starting at or before it. */
static int map_lines(chk *c)
{
    const rimis_result *res = c->res;
    size_t n = (size_t)res->n_lines + 2;
    c->line_owner = mdae_malloc(n * sizeof *c->line_owner);
    c->oeq_owner = mdae_malloc(((size_t)c->o->n_equations + 1) * sizeof *c->oeq_owner);
    if (c->line_owner == NULL || c->oeq_owner == NULL)
        return MDAE_E_NOMEM;
    for (size_t l = 0; l < n; l++)
        c->line_owner[l] = -1;
    for (uint32_t e = 0; e < res->n_eqs; e++) {
        uint32_t l = res->eqs[e].line;
        if (l == 0 || l > res->n_lines || (e > 0 && l <= res->eqs[e - 1].line)) {
            fail(c, 1, "equation %u of the result starts on line %u, not after the previous "
                       "one", e, l);
            return MDAE_OK;
        }
        c->line_owner[l] = (long)e;
    }
    for (size_t l = 1; l < n; l++)
        if (c->line_owner[l] < 0)
            c->line_owner[l] = c->line_owner[l - 1];
    return MDAE_OK;
}

static long owner_of(const chk *c, mdae_range where)
{
    uint32_t l = where.start.line;
    return l <= c->res->n_lines + 1u ? c->line_owner[l] : -1;
}

/* ---- Check 1: it reads back, nonsingular in the source's valid modes ------- */

/* Whether e differentiates anything (FX_DER, or an unknown of order > 0). */
static bool has_der(const fx_node *e)
{
    if (e == NULL)
        return false;
    if (e->op == FX_DER || (e->op == FX_VAR && e->order > 0))
        return true;
    for (uint32_t k = 0; k < e->n; k++)
        if (has_der(e->kids[k]))
            return true;
    return false;
}

/* Reduced index: der() only in the differential equations (every other
 * derivative is a dummy-derivative variable). */
static void check_reduced_index(chk *c)
{
    for (uint32_t i = 0; i < c->o->n_equations && !c->stop; i++) {
        const mel_equation *e = &c->o->equations[i];
        long owner = c->oeq_owner[i];
        if (e->when || owner < 0 || c->res->eqs[owner].kind == RIMIS_EQ_DIFF)
            continue;
        if (has_der(e->lhs) || has_der(e->rhs))
            fail(c, 1, "line %u: der() outside the differential equations (%s): not "
                       "reduced-index", e->where.start.line, e->name);
    }
}

static int check_readback(chk *c)
{
    mdae_diags d;
    mdae_diags_init(&d);
    int rc = mo_model_parse(c->res->text, c->res->text_len, NULL, &c->o, &d);
    if (rc == MDAE_E_NOMEM) {
        mdae_diags_close(&d);
        return rc;
    }
    if (rc != MDAE_OK || d.errors > 0) {
        const mdae_diag *e = d.count ? &d.items[0] : NULL;
        fail(c, 1, "the output does not read back: %u:%u: %s", e ? e->where.start.line : 0,
             e ? e->where.start.col : 0, e ? e->message : mdae_err_name(rc));
        mdae_diags_close(&d);
        return MDAE_OK;
    }
    rc = map_modes(c);
    if (rc == MDAE_OK && !c->stop)
        rc = map_variables(c);
    if (rc == MDAE_OK && !c->stop)
        rc = map_lines(c);
    for (uint32_t i = 0; rc == MDAE_OK && !c->stop && i < c->o->n_equations; i++) {
        const mel_equation *e = &c->o->equations[i];
        c->oeq_owner[i] = e->when ? -1 : owner_of(c, e->where);
        if (!e->when && c->oeq_owner[i] < 0)
            fail(c, 1, "equation '%s' of the output (line %u) is before every equation of the "
                       "result", e->name, e->where.start.line);
    }
    bool mapped = rc == MDAE_OK && !c->stop;
    if (mapped)
        check_reduced_index(c);
    c->stop = !mapped;
    if (rc == MDAE_OK && !c->stop)
        rc = sa_analyze(c->o, NULL, &c->ro, &d);
    if (rc != MDAE_OK && rc != MDAE_E_NOMEM && !c->stop) {
        fail(c, 1, "the analysis of the output fails: %s (%s)", mdae_err_name(rc),
             d.count ? d.items[0].message : "");
        rc = MDAE_OK;
    }
    mdae_diags_close(&d);
    c->readable = rc == MDAE_OK && !c->stop;
    for (size_t x = 0; rc == MDAE_OK && !c->stop && x < c->n_checked; x++) {
        set_omode(c, c->modes + x * c->nm);
        sa_mode_view v;
        memset(&v, 0, sizeof v);
        rc = sa_result_mode(c->ro, c->omode, &v);
        if (rc == MDAE_OK && ((!v.valid && !getenv("HACK_INVALID")) || v.singular)) {
            char mt[512];
            mode_text(c, c->modes + x * c->nm, mt, sizeof mt);
            fail(c, 1, "mode %s, valid in the source, is %s in the output", mt,
                 v.valid ? "singular" : "invalid");
        }
        sa_mode_view_close(&v);
    }
    return rc;
}

/* ---- Check 2: no mode-dependent pivot ---------------------------------------- */

static int check_pivots(chk *c)
{
    int rc = ap_analyze(c->o, c->ro, &c->ap);
    if (rc != MDAE_OK)
        return rc;
    if (!c->ap->accepted) {
        fail(c, 2, "the approximate analysis refuses the output");
        return MDAE_OK;
    }
    for (size_t f = 0; f < c->ap->n_findings && !c->stop; f++) {
        const ap_finding *af = &c->ap->findings[f];
        if (af->kind != AP_PIVOT)
            continue;
        for (size_t x = 0; x < c->n_checked && !c->stop; x++) {
            set_omode(c, c->modes + x * c->nm);
            if (!set_has(&af->modes, c->ap->n_modes, c->omode))
                continue;
            char mt[512];
            mode_text(c, c->modes + x * c->nm, mt, sizeof mt);
            fail(c, 2, "mode %s: %s (line %u)", mt, af->message, af->where.start.line);
        }
    }
    return MDAE_OK;
}

/* ---- Check 3: each CDG block is one block of the approximate BTF ----------- */

static bool group_is_block(chk *c, uint32_t b, const long *ap_of)
{
    const rimis_group *gr = &c->res->groups[b];
    cdg_block blk;
    if (gr->block != b || cdg_graph_block(c->g, b, &blk) != MDAE_OK)
        return fail(c, 3, "group %u is not CDG block %u", b, b);
    if (gr->n_eqs != blk.n_equations)
        return fail(c, 3, "block %u has %zu equations, its group %u", b, blk.n_equations,
                    gr->n_eqs);
    long ab = -1;
    for (uint32_t k = 0; k < gr->n_eqs; k++) {
        const rimis_eq *e = &c->res->eqs[gr->eqs[k]];
        bool in = false;
        for (size_t q = 0; q < blk.n_equations && !in; q++)
            in = (long)blk.equations[q].index == e->equation && blk.equations[q].order == e->order;
        for (uint32_t k2 = 0; k2 < k && in; k2++)
            in = c->res->eqs[gr->eqs[k2]].equation != e->equation;
        if (e->kind != RIMIS_EQ_BLOCK || e->block != (long)b || !in)
            return fail(c, 3, "line %u: not an equation of block %u (%s, order %d)", e->line, b,
                        e->equation >= 0 ? c->m->equations[e->equation].name : "?", e->order);
        long q = ap_of[gr->eqs[k]];
        if (q < 0)
            return fail(c, 3, "line %u (block %u): no approximate equation starts there",
                        e->line, b);
        long qb = c->ap->equations[q].block;
        if (ab >= 0 && qb != ab)
            return fail(c, 3, "block %u: its equations are in approximate blocks %ld and %ld "
                              "(lines %u...)", b, ab, qb, c->res->eqs[gr->eqs[0]].line);
        ab = qb;
    }
    if (ab < 0 || c->ap->blocks[ab].n != gr->n_eqs)
        return fail(c, 3, "block %u (line %u): the approximate block %ld has %u equations, the "
                          "CDG block %u", b, c->res->eqs[gr->eqs[0]].line, ab,
                    ab >= 0 ? c->ap->blocks[ab].n : 0, gr->n_eqs);
    return true;
}

static int check_blocks(chk *c)
{
    if (c->res->n_groups != cdg_graph_n_blocks(c->g)) {
        fail(c, 3, "%u groups for %zu CDG blocks", c->res->n_groups, cdg_graph_n_blocks(c->g));
        return MDAE_OK;
    }
    long *ap_of = mdae_malloc(((size_t)c->res->n_eqs + 1) * sizeof *ap_of);
    if (ap_of == NULL)
        return MDAE_E_NOMEM;
    for (uint32_t e = 0; e < c->res->n_eqs; e++)
        ap_of[e] = -1;
    for (uint32_t q = 0; q < c->ap->n_equations && !c->stop; q++) {
        long e = owner_of(c, c->ap->equations[q].where);
        if (e >= 0 && ap_of[e] >= 0)
            fail(c, 3, "line %u: two approximate equations (%s, %s)", c->res->eqs[e].line,
                 c->ap->equations[ap_of[e]].name, c->ap->equations[q].name);
        else if (e >= 0)
            ap_of[e] = (long)q;
    }
    for (uint32_t b = 0; b < c->res->n_groups && !c->stop; b++)
        group_is_block(c, b, ap_of);
    mdae_free(ap_of);
    return MDAE_OK;
}

/* ---- Check 4: the same numbers ---------------------------------------------- */

/* The one equation of o that result equation e is in mode c->omode, or -1
 * (and a failure) when none or several are active. */
static long active_member(chk *c, uint32_t e, const char *what)
{
    long found = -1;
    int n = 0;
    for (uint32_t i = 0; i < c->o->n_equations; i++)
        if (c->oeq_owner[i] == (long)e && mel_guard_eval(c->o->equations[i].guard, c->omode))
            found = (long)i, n++;
    if (n == 1)
        return found;
    char mt[512];
    mode_text(c, c->mode, mt, sizeof mt);
    fail(c, 4, "%s at line %u: %d equations of the output active in mode %s", what,
         c->res->eqs[e].line, n, mt);
    return -1;
}

static int eval_eq(chk *c, const mel_equation *e, double *res, double *scale)
{
    fx_point at = {c->time, out_var, out_known, out_mode, unknown_function, c};
    double l = 0, r = 0;
    int rc = fx_eval(e->lhs, &at, &l);
    if (rc == MDAE_OK)
        rc = fx_eval(e->rhs, &at, &r);
    *res = l - r;
    *scale = fmax(fabs(l), fabs(r));
    return rc;
}

/* Equation e cannot be compared at this point (why): counted, the first
 * one named; not a failure. */
static bool not_compared(chk *c, uint32_t e, const char *why)
{
    if (c->rep->not_compared++ == 0)
        snprintf(c->rep->not_compared_why, sizeof c->rep->not_compared_why, "line %u (%s): %s",
                 c->res->eqs[e].line, rimis_eq_kind_name(c->res->eqs[e].kind), why);
    return false;
}

static bool unevaluable(chk *c, uint32_t e)
{
    return not_compared(c, e, "read back as text (FX_OPAQUE)");
}

/* A relation of o that the source made a mode variable (an atom, by its
 * text): the point gives the atom its mode's value, which the relation
 * evaluated on the point's numbers need not have. */
static bool has_atom_relation(const chk *c, const fx_node *e)
{
    if (e == NULL)
        return false;
    if (e->op >= FX_LT && e->op <= FX_NE) {
        char *t = fx_format(c->o, e, FX_SYNTAX_MODELICA);
        bool atom = t != NULL && mel_model_find_mode(c->m, t) >= 0;
        mdae_free(t);
        if (atom)
            return true;
    }
    for (uint32_t k = 0; k < e->n; k++)
        if (has_atom_relation(c, e->kids[k]))
            return true;
    return false;
}

/* pre() or last() of a value the mode does not define (u inactive, or
 * order above d_u): the source's reads a value no block of the mode
 * computes, which the point cannot give both sides alike. */
static bool reads_undefined_before(const chk *c, const fx_node *e, bool under_pre)
{
    if (e == NULL)
        return false;
    if (under_pre && e->op == FX_DER)
        return true;
    if (under_pre && e->op == FX_VAR &&
        (!c->sv->var_active[e->index] || c->sv->d[e->index] < (int)e->order))
        return true;
    bool pre = under_pre || e->op == FX_PRE || e->op == FX_LAST;
    for (uint32_t k = 0; k < e->n; k++)
        if (reads_undefined_before(c, e->kids[k], pre))
            return true;
    return false;
}

/* Result equation e (a multiplexer or a DIFF) holds in the current mode. */
static bool holds(chk *c, uint32_t e, const char *what)
{
    long i = active_member(c, e, what);
    if (i < 0)
        return false;
    double v = NAN, scale = 0;
    const mel_equation *oe = &c->o->equations[i];
    int rc = oe->lhs ? eval_eq(c, oe, &v, &scale) : MDAE_E_NOTIMPL;
    if (rc == MDAE_E_NOTIMPL)
        return unevaluable(c, e);
    if (rc != MDAE_OK || !close_enough(v, 0.0, scale)) {
        char mt[512];
        mode_text(c, c->mode, mt, sizeof mt);
        return fail(c, 4, "%s at line %u does not hold in mode %s: residual %g (%s)", what,
                    c->res->eqs[e].line, mt, v, mdae_err_name(rc));
    }
    return true;
}

static const fx_node *source_residual(chk *c, uint32_t e)
{
    if (c->dres[e] == NULL) {
        const mel_equation *se = &c->m->equations[c->res->eqs[e].equation];
        if (se->lhs == NULL || se->rhs == NULL)
            return NULL;
        int err = MDAE_OK;
        c->dres[e] = fx_dt(c->pool, fx_residual(c->pool, se->lhs, se->rhs),
                           (unsigned)c->res->eqs[e].order, &err);
    }
    return c->dres[e];
}

/* Block equation e: the output's residual is the source's, differentiated. */
static bool block_eq_agrees(chk *c, uint32_t e)
{
    long i = active_member(c, e, "block equation");
    const fx_node *sr = source_residual(c, e);
    if (i < 0 || sr == NULL)
        return i >= 0; /* no expressions in the source: nothing to compare */
    const mel_equation *oe = &c->o->equations[i];
    if (reads_undefined_before(c, sr, false))
        return not_compared(c, e, "pre() of a value the mode does not define");
    if (has_atom_relation(c, oe->lhs) || has_atom_relation(c, oe->rhs))
        return not_compared(c, e, "a relation the source makes a mode variable");
    fx_point at = {c->time, src_var, src_known, src_mode, unknown_function, c};
    double want = 0, got = 0, scale = 0;
    if (fx_eval(sr, &at, &want) != MDAE_OK)
        return true; /* the source cannot be evaluated (FX_OPAQUE): nothing to compare */
    int rc = oe->lhs ? eval_eq(c, oe, &got, &scale) : MDAE_E_NOTIMPL;
    if (rc == MDAE_E_NOTIMPL)
        return unevaluable(c, e);
    if (rc == MDAE_OK && close_enough(got, want, fmax(scale, fabs(want))))
        return true;
    char mt[512];
    mode_text(c, c->mode, mt, sizeof mt);
    const rimis_eq *re = &c->res->eqs[e];
    return fail(c, 4, "mode %s: line %u (block %ld, %s differentiated %d times) gives %.17g, the "
                      "source %.17g (%s)", mt, re->line, re->block,
                c->m->equations[re->equation].name, re->order, got, want, mdae_err_name(rc));
}

/* Which output variables hold their value in the current mode; a
 * replicate's condition must hold exactly where its block is active. */
static bool set_live(chk *c, const bool *active)
{
    for (uint32_t v = 0; v < c->res->n_vars; v++) {
        const rimis_var *rv = &c->res->vars[v];
        bool cond = rv->cond < 0 || /* -1: true (a read under a block's true) */
                    (rv->cond < (long)c->res->n_conds &&
                     set_has(&c->res->conds[rv->cond].modes, c->m->n_modes, c->mode));
        switch (rv->kind) {
        case RIMIS_V_SOURCE:
        case RIMIS_V_DUMMY:
            c->live[v] = true;
            break;
        case RIMIS_V_REPLICATE:
            c->live[v] = rv->block >= 0 && active[rv->block];
            if (c->live[v] != cond) {
                char mt[512];
                mode_text(c, c->mode, mt, sizeof mt);
                return fail(c, 4, "replicate %s: its condition %s in mode %s, where its block "
                                  "%ld is %s", rv->name, cond ? "holds" : "does not hold", mt,
                            rv->block, c->live[v] ? "active" : "not active");
            }
            break;
        case RIMIS_V_READ:
            c->live[v] = cond;
            break;
        }
    }
    return true;
}

/* Does the mode define the value multiplexer e selects? */
static bool multiplexed_defined(const chk *c, const sa_mode_view *sv, uint32_t e)
{
    long d = c->res->eqs[e].defines;
    if (d < 0)
        return false;
    const rimis_var *rv = &c->res->vars[d];
    if (rv->kind == RIMIS_V_READ)
        return c->live[d] && sv->var_active[rv->var] && sv->d[rv->var] >= rv->order;
    return sv->var_active[rv->var] && sv->d[rv->var] >= rv->order;
}

static int check_mode_numbers(chk *c, const bool *mode, bool *active)
{
    c->mode = mode;
    set_omode(c, mode);
    sa_mode_view sv;
    cdg_mode_view cv;
    memset(&sv, 0, sizeof sv);
    memset(&cv, 0, sizeof cv);
    int rc = sa_result_mode(c->r, mode, &sv);
    if (rc == MDAE_OK)
        rc = cdg_graph_mode(c->g, mode, &cv);
    if (rc == MDAE_OK && (!sv.valid || sv.singular))
        rc = MDAE_E_INVAL;
    c->sv = &sv;
    memset(active, 0, c->res->n_groups * sizeof *active);
    for (size_t k = 0; rc == MDAE_OK && k < cv.n_blocks; k++)
        active[cv.blocks[k]] = true;
    if (rc == MDAE_OK && set_live(c, active)) {
        for (uint32_t e = 0; e < c->res->n_eqs && !c->stop; e++) {
            const rimis_eq *re = &c->res->eqs[e];
            if (re->kind == RIMIS_EQ_MULTI && multiplexed_defined(c, &sv, e))
                c->rep->multiplexers += holds(c, e, "multiplexer");
            else if (re->kind == RIMIS_EQ_DIFF && re->defines >= 0 && c->live[re->defines])
                c->rep->diffs += holds(c, e, "differential equation");
            else if (re->kind == RIMIS_EQ_BLOCK && re->block >= 0 && active[re->block])
                c->rep->block_eqs += block_eq_agrees(c, e);
        }
    }
    cdg_mode_view_close(&cv);
    sa_mode_view_close(&sv);
    return rc;
}

static int check_numbers(chk *c)
{
    c->pool = fx_pool_new();
    c->dres = mdae_calloc(c->res->n_eqs + 1, sizeof *c->dres);
    c->live = mdae_calloc(c->res->n_vars + 1, sizeof *c->live);
    bool *active = mdae_calloc(c->res->n_groups + 1, sizeof *active);
    int rc = c->pool && c->dres && c->live && active ? MDAE_OK : MDAE_E_NOMEM;
    for (size_t x = 0; rc == MDAE_OK && !c->stop && x < c->n_checked; x++)
        rc = check_mode_numbers(c, c->modes + x * c->nm, active);
    if (rc == MDAE_OK && fx_pool_failed(c->pool))
        rc = MDAE_E_NOMEM;
    mdae_free(active);
    return rc;
}

/* ---- The whole ------------------------------------------------------------------ */

static void chk_close(chk *c)
{
    mdae_free(c->modes);
    ap_report_free(c->ap);
    sa_result_free(c->ro);
    mel_model_free(c->o);
    mdae_free(c->omode_src);
    mdae_free(c->omode);
    mdae_free(c->ovar_rv);
    mdae_free(c->line_owner);
    mdae_free(c->oeq_owner);
    mdae_free(c->dres);
    mdae_free(c->live);
    fx_pool_free(c->pool);
}

int ref_rimis_check(const mel_model *m, const sa_result *r, const cdg_graph *g,
                    const rimis_result *res, const ref_rimis_opts *opt, ref_rimis_report *out)
{
    if (m == NULL || r == NULL || g == NULL || res == NULL || out == NULL)
        return MDAE_E_INVAL;
    memset(out, 0, sizeof *out);
    chk c;
    memset(&c, 0, sizeof c);
    c.m = m, c.r = r, c.g = g, c.res = res, c.rep = out;
    c.seed = opt && opt->seed ? opt->seed : 0x5EEDF00Dull;
    c.max_modes = opt && opt->max_modes ? opt->max_modes : 200;
    c.nm = m->n_modes ? m->n_modes : 1;
    /* MEL has no `time`: the corpus declares Modelica's as a known named
     * time (tests/models/water_tank.mel), which an output may print as
     * Modelica's time. */
    long tk = mel_model_find_known(m, "time");
    c.time = tk >= 0 ? known_value(&c, &m->knowns[tk]) : 0.25;
    int rc = choose_modes(&c);
    if (rc == MDAE_OK)
        rc = check_readback(&c);
    c.stop = false;
    if (rc == MDAE_OK && c.readable)
        rc = check_pivots(&c);
    c.stop = false;
    if (rc == MDAE_OK && c.readable && c.ap->accepted)
        rc = check_blocks(&c);
    c.stop = false;
    if (rc == MDAE_OK && c.readable)
        rc = check_numbers(&c);
    chk_close(&c);
    return rc;
}
