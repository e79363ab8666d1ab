/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_sa_vs_ref.c -- the implicit BDD engine (engine/sa.h)
 * against the brute-force reference (tests/ref), mode by mode.
 *
 * For every model: parse, sa_analyze, then for every mode (or 1,000 sampled
 * modes when there are too many) compare sa_result_mode with ref_mode_compute:
 * validity, singularity, active sets, every c_i and d_j, the DM parts of
 * singular modes, and that matched_var is a perfect matching of maximum
 * weight. The reports are checked on the same modes: each set's cubes and
 * formula contain the mode iff the reference says so -- on valid modes for
 * sa_result_report and sa_result_report_ex(SA_REPORT_VALID_CARE) (invalid
 * modes are don't-cares there), on every mode for sa_result_report_ex(0)
 * (exact sets; small models only).
 *
 * Models: >= 500 random models (ref_random_model; seed base from the
 * environment variable MDAE_SEED, else fixed; MDAE_RANDOM_MODELS overrides
 * the count per test), random models with deliberate guard violations (the
 * engine must refuse them), the paper examples, and the scalable families for
 * N <= 3 exhaustively and N = 10 on sampled modes.
 *
 * On a mismatch the message gives the model (label, seed, text), the mode,
 * and both answers for that mode, and for a random model the command that
 * reruns it alone. MDAE_KEEP_GOING=1 lists every disagreeing model instead of
 * stopping at the first.
 */
#include <criterion/criterion.h>

#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref.h"
#include "sa.h"
#include "sa_int.h" /* sa__check_light */

#include "model_files.h"
#include "test_env.h"

/* ---- Set-up ---------------------------------------------------------------- */

static void begin(void) {
    cr_assert_eq(sa_begin(NULL), MDAE_OK);
}

static void end(void) {
    sa_end();
}

TestSuite(sa_vs_ref, .init = begin, .fini = end);

/* ---- Failure messages ---------------------------------------------------------- */

typedef struct cmp {
    const char *label; /* "random seed 42", "brake N=3" */
    const char *text;
    const mel_model *m;
    const sa_report *rep;
    const bool *mode;          /* the mode being compared, or NULL */
    const ref_mode *rm;        /* its reference answer */
    const sa_mode_view *view;  /* the engine's answer */
    struct set_cache *cache;   /* compiled cubes of the report's sets */
    uint64_t mode_bits;        /* the mode as bits (n_modes <= 64) */
    bool check_formulas;       /* also evaluate the sets' formulas */
    size_t *name_len;          /* lengths of the mode names */
    /* The reports checked on each mode: sa_result_report (sets exact on the
     * valid modes at least), sa_result_report_ex(VALID_CARE) (exact on the
     * valid modes; invalid modes are don't-cares) and, on small models,
     * sa_result_report_ex(0) (exact on every mode). */
    const sa_report *reps[3];
    bool rep_exact[3];         /* check invalid modes too */
    const char *rep_name[3];
    int n_reps;
} cmp;

static void dump_ints(FILE *f, const char *what, const int *a, uint32_t n) {
    fprintf(f, "  %s:", what);
    for (uint32_t k = 0; k < n; k++) fprintf(f, " %d", a[k]);
    fputc('\n', f);
}

static void dump_bools(FILE *f, const char *what, const bool *a, uint32_t n) {
    fprintf(f, "  %s:", what);
    for (uint32_t k = 0; k < n; k++) fprintf(f, " %d", a[k]);
    fputc('\n', f);
}

static void dump_mode(FILE *f, const cmp *c) {
    const mel_model *m = c->m;
    fprintf(f, "mode:");
    for (uint32_t k = 0; k < m->n_modes; k++)
        fprintf(f, " %s=%d", m->modes[k].name, c->mode[k]);
    fprintf(f, "\nequations:");
    for (uint32_t i = 0; i < m->n_equations; i++) fprintf(f, " %s", m->equations[i].name);
    fprintf(f, "\nvariables:");
    for (uint32_t j = 0; j < m->n_variables; j++) fprintf(f, " %s", m->variables[j].name);
    fputc('\n', f);
    if (c->rm) {
        const ref_mode *r = c->rm;
        fprintf(f, "reference: valid=%d singular=%d weight=%ld\n", r->valid, r->singular,
                r->weight);
        dump_bools(f, "eq_active", r->eq_active, m->n_equations);
        dump_bools(f, "var_active", r->var_active, m->n_variables);
        dump_ints(f, "c", r->c, m->n_equations);
        dump_ints(f, "d", r->d, m->n_variables);
        dump_ints(f, "match", r->match, m->n_equations);
        dump_bools(f, "overdetermined", r->overdetermined, m->n_equations);
        dump_bools(f, "underdetermined", r->underdetermined, m->n_variables);
    }
    if (c->view) {
        const sa_mode_view *v = c->view;
        fprintf(f, "engine: valid=%d singular=%d\n", v->valid, v->singular);
        dump_bools(f, "eq_active", v->eq_active, m->n_equations);
        dump_bools(f, "var_active", v->var_active, m->n_variables);
        dump_ints(f, "c", v->c, m->n_equations);
        dump_ints(f, "d", v->d, m->n_variables);
        dump_ints(f, "matched_var", v->matched_var, m->n_equations);
        dump_bools(f, "overdetermined", v->overdetermined, m->n_equations);
        dump_bools(f, "underdetermined", v->underdetermined, m->n_variables);
    }
}

/* MDAE_KEEP_GOING=1 (for investigating, not for CI): log each mismatch and go
 * on with the next model instead of stopping the test; the test still fails.
 * The abandoned model's memory is leaked (longjmp), so don't run it under
 * LeakSanitizer. */
static jmp_buf *g_next_model;
/* sa_options.method of every analysis (issue 10): the batches run with the
 * automatic choice, and again with each path forced. */
static int g_method = SA_METHOD_AUTO;
static size_t g_failures;

static bool keep_going(void) {
    const char *s = getenv("MDAE_KEEP_GOING");
    return s && *s && *s != '0';
}

/* Report a mismatch with everything needed to reproduce it, and stop. */
static void mismatch(const cmp *c, const char *fmt, ...) MDAE_PRINTF(2, 3);
static void mismatch(const cmp *c, const char *fmt, ...) {
    char *msg = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&msg, &len);
    cr_assert_not_null(f);
    fprintf(f, "%s: ", c->label);
    if (c->rep)
        for (int k = 0; k < c->n_reps; k++)
            if (c->reps[k] == c->rep) fprintf(f, "[%s] ", c->rep_name[k]);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fputc('\n', f);
    if (c->mode) dump_mode(f, c);
    fprintf(f, "--- model ---\n%s\n--- end ---\n", c->text);
    fclose(f);
    cr_log_error("%s", msg);
    if (g_next_model && keep_going()) {
        free(msg);
        g_failures++;
        longjmp(*g_next_model, 1);
    }
    cr_assert_fail("%s", msg);
}

/* ---- Sets of modes: cubes and formulas ------------------------------------------ */

static bool cube_contains(const sa_set *s, size_t t, uint32_t n_modes, const bool *mode) {
    for (uint32_t k = 0; k < n_modes; k++) {
        signed char b = sa_set_literal(s, t, k);
        if (b >= 0 && (b == 1) != mode[k]) return false;
    }
    return true;
}

static bool cubes_contain(const sa_set *s, uint32_t n_modes, const bool *mode) {
    for (size_t t = 0; t < s->n_cubes; t++)
        if (cube_contains(s, t, n_modes, mode)) return true;
    return false;
}

/* Cubes compiled to bit masks (for n_modes <= 64): a mode is in the cube iff
 * ((mode ^ val) & care) == 0. Large models (building N=10: about 2^10 cubes
 * per set, hundreds of sets, a thousand modes) need this speed. The cache is
 * keyed by the address of the sa_set in the report. */
typedef struct set_entry {
    const sa_set *key;
    size_t n;
    uint64_t *care, *val;
    int *code;          /* the formula in postfix (see compile_formula) */
    size_t n_code;
    bool formula_done, formula_ok;
} set_entry;

typedef struct set_cache {
    size_t cap; /* power of two */
    set_entry *tab;
} set_cache;

static void cache_init(set_cache *sc, size_t n_sets) {
    sc->cap = 16;
    while (sc->cap < 2 * n_sets) sc->cap *= 2;
    sc->tab = calloc(sc->cap, sizeof *sc->tab);
    cr_assert_not_null(sc->tab);
}

static void cache_close(set_cache *sc) {
    for (size_t k = 0; k < sc->cap; k++) {
        free(sc->tab[k].care);
        free(sc->tab[k].val);
        free(sc->tab[k].code);
    }
    free(sc->tab);
    memset(sc, 0, sizeof *sc);
}

static set_entry *cache_get(set_cache *sc, const sa_set *s, uint32_t n_modes) {
    size_t h = ((uintptr_t)s >> 3) * 0x9E3779B97F4A7C15ull;
    for (size_t k = h & (sc->cap - 1);; k = (k + 1) & (sc->cap - 1)) {
        set_entry *e = &sc->tab[k];
        if (e->key == s) return e;
        if (e->key) continue;
        cr_assert_not_null(s); /* the table is sized for every set: never full */
        e->key = s;
        e->n = s->n_cubes;
        e->care = calloc(e->n + 1, sizeof *e->care);
        e->val = calloc(e->n + 1, sizeof *e->val);
        cr_assert(e->care && e->val);
        for (size_t t = 0; t < e->n; t++)
            for (uint32_t v = 0; v < n_modes && v < 64; v++) { /* masks: <= 64 modes */
                signed char x = sa_set_literal(s, t, v);
                if (x < 0) continue;
                e->care[t] |= (uint64_t)1 << v;
                if (x == 1) e->val[t] |= (uint64_t)1 << v;
            }
        return e;
    }
}

static bool set_contains(const cmp *c, const sa_set *s) {
    const uint32_t n_modes = c->rep->n_modes;
    if (n_modes > 64) return cubes_contain(s, n_modes, c->mode);
    const set_entry *e = cache_get(c->cache, s, n_modes);
    for (size_t t = 0; t < e->n; t++)
        if (((c->mode_bits ^ e->val[t]) & e->care[t]) == 0) return true;
    return false;
}

/* The formulas of sa_set ("g1 & !g2 | g3", "true") are compiled once per set
 * to postfix code, then evaluated per mode:
 * or := and ('|' and)*; and := not ('&' not)*; not := '!' not | atom;
 * atom := '(' or ')' | true | false | name. */
enum { OP_TRUE = -1, OP_FALSE = -2, OP_NOT = -3, OP_AND = -4, OP_OR = -5 };

typedef struct fcomp {
    const char *s;
    const sa_report *rep;
    const size_t *name_len;
    set_entry *e; /* code goes to e->code */
    size_t cap;
    bool err;
} fcomp;

static void f_emit(fcomp *p, int op) {
    set_entry *e = p->e;
    if (e->n_code == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 64;
        e->code = realloc(e->code, p->cap * sizeof *e->code);
        cr_assert_not_null(e->code);
    }
    e->code[e->n_code++] = op;
}

static void f_skip(fcomp *p) {
    while (isspace((unsigned char)*p->s)) p->s++;
}

static void f_or(fcomp *p, int depth);

static void f_atom(fcomp *p, int depth) {
    f_skip(p);
    if (depth > 200) {
        p->err = true;
        return;
    }
    if (*p->s == '!') {
        p->s++;
        f_atom(p, depth + 1);
        f_emit(p, OP_NOT);
        return;
    }
    if (*p->s == '(') {
        p->s++;
        f_or(p, depth + 1);
        f_skip(p);
        if (*p->s != ')') p->err = true;
        else p->s++;
        return;
    }
    const char *start = p->s;
    while (*p->s && (isalnum((unsigned char)*p->s) || strchr("_[],.", *p->s))) p->s++;
    size_t n = (size_t)(p->s - start);
    if (n == 4 && strncmp(start, "true", 4) == 0) return f_emit(p, OP_TRUE);
    if (n == 5 && strncmp(start, "false", 5) == 0) return f_emit(p, OP_FALSE);
    for (uint32_t k = 0; k < p->rep->n_modes; k++)
        if (p->name_len[k] == n && memcmp(start, p->rep->mode_names[k], n) == 0)
            return f_emit(p, (int)k);
    p->err = true;
}

static void f_and(fcomp *p, int depth) {
    f_atom(p, depth);
    for (f_skip(p); *p->s == '&'; f_skip(p)) {
        p->s++;
        f_atom(p, depth);
        f_emit(p, OP_AND);
    }
}

static void f_or(fcomp *p, int depth) {
    f_and(p, depth);
    for (f_skip(p); *p->s == '|'; f_skip(p)) {
        p->s++;
        f_and(p, depth);
        f_emit(p, OP_OR);
    }
}

static void compile_formula(const cmp *c, const sa_set *s, set_entry *e) {
    fcomp p = {s->formula, c->rep, c->name_len, e, 0, false};
    f_or(&p, 0);
    f_skip(&p);
    e->formula_ok = !p.err && *p.s == 0 && e->n_code > 0;
}

static bool eval_formula(const set_entry *e, const bool *mode) {
    bool stack[256 + 1], *sp = stack;
    bool *heap = NULL;
    if (e->n_code > 256) { /* deep enough stacks only for long formulas */
        heap = malloc((e->n_code + 1) * sizeof *heap);
        cr_assert_not_null(heap);
        sp = heap;
    }
    bool *base = sp;
    for (size_t t = 0; t < e->n_code; t++) {
        int op = e->code[t];
        if (op >= 0) *sp++ = mode[op];
        else if (op == OP_TRUE) *sp++ = true;
        else if (op == OP_FALSE) *sp++ = false;
        else if (op == OP_NOT) sp[-1] = !sp[-1];
        else if (op == OP_AND) sp--, sp[-1] = sp[-1] && sp[0];
        else sp--, sp[-1] = sp[-1] || sp[0];
    }
    bool v = base[0];
    free(heap);
    return v;
}

/* Check that both views of a set (cubes, formula) agree with `want`. */
static void check_set(const cmp *c, const sa_set *s, bool want, const char *what) {
    bool in_cubes = set_contains(c, s);
    if (in_cubes != want)
        mismatch(c, "report: %s: cubes %s the mode, the reference says %s", what,
                 in_cubes ? "contain" : "do not contain", want ? "in" : "out");
    if (!s->formula) mismatch(c, "report: %s: no formula", what);
    if (!c->check_formulas) return;
    set_entry *e = cache_get(c->cache, s, c->rep->n_modes);
    if (!e->formula_done) {
        compile_formula(c, s, e);
        e->formula_done = true;
    }
    if (!e->formula_ok) mismatch(c, "report: %s: cannot read formula \"%s\"", what, s->formula);
    bool in_formula = eval_formula(e, c->mode);
    if (in_formula != want)
        mismatch(c, "report: %s: formula \"%s\" is %d, the reference says %d", what,
                 s->formula, in_formula, want);
}

/* ---- Comparing one mode ------------------------------------------------------- */

static void compare_view(const cmp *c) {
    const mel_model *m = c->m;
    const ref_mode *r = c->rm;
    const sa_mode_view *v = c->view;
    if (v->valid != r->valid) mismatch(c, "validity differs");
    if (!r->valid) return; /* invalid modes: nothing else is defined */
    if (v->singular != r->singular) mismatch(c, "singularity differs");
    for (uint32_t i = 0; i < m->n_equations; i++) {
        const char *name = m->equations[i].name;
        if (v->eq_active[i] != r->eq_active[i]) mismatch(c, "activity of %s differs", name);
        if (v->c[i] != r->c[i]) mismatch(c, "c(%s): engine %d, reference %d", name, v->c[i], r->c[i]);
        if (v->overdetermined[i] != r->overdetermined[i])
            mismatch(c, "overdetermined(%s): engine %d, reference %d", name,
                     v->overdetermined[i], r->overdetermined[i]);
    }
    for (uint32_t j = 0; j < m->n_variables; j++) {
        const char *name = m->variables[j].name;
        if (v->var_active[j] != r->var_active[j]) mismatch(c, "activity of %s differs", name);
        if (v->d[j] != r->d[j]) mismatch(c, "d(%s): engine %d, reference %d", name, v->d[j], r->d[j]);
        if (v->underdetermined[j] != r->underdetermined[j])
            mismatch(c, "underdetermined(%s): engine %d, reference %d", name,
                     v->underdetermined[j], r->underdetermined[j]);
    }
    if (r->singular) {
        for (uint32_t i = 0; i < m->n_equations; i++)
            if (v->matched_var[i] != -1)
                mismatch(c, "singular mode, but %s is matched", m->equations[i].name);
        return;
    }
    long w = -1;
    const char *why = NULL;
    if (!ref_mode_check_matching(r, v->matched_var, &w, &why))
        mismatch(c, "matched_var is not a perfect matching: %s", why);
    if (w != r->weight)
        mismatch(c, "matched_var weighs %ld, a MWPM weighs %ld", w, r->weight);
}

static void compare_report_mode(const cmp *c) {
    const mel_model *m = c->m;
    const sa_report *rep = c->rep;
    const ref_mode *r = c->rm;
    const bool valid = r->valid, regular = r->valid && !r->singular;
    /* compare_mode calls this on invalid modes only for the exact report
     * (sa_result_report_ex(0)); the others leave invalid modes as
     * don't-cares (sa.h). */
    check_set(c, &rep->singular_modes, valid && r->singular, "singular modes");
    char what[512];
    for (uint32_t i = 0; i < m->n_equations; i++) {
        const sa_item *it = &rep->equations[i];
        snprintf(what, sizeof what, "active(%s)", m->equations[i].name);
        check_set(c, &it->active, valid && r->eq_active[i], what);
        for (size_t t = 0; t < it->n_offsets; t++) {
            int val = it->offsets[t].value;
            snprintf(what, sizeof what, "c(%s) = %d", m->equations[i].name, val);
            check_set(c, &it->offsets[t].modes, regular && r->eq_active[i] && r->c[i] == val,
                      what);
        }
        bool found = false;
        for (size_t t = 0; t < it->n_offsets; t++) found |= it->offsets[t].value == r->c[i];
        if (regular && r->eq_active[i] && !found)
            mismatch(c, "report: no offset case c(%s) = %d", m->equations[i].name, r->c[i]);
    }
    for (uint32_t j = 0; j < m->n_variables; j++) {
        const sa_item *it = &rep->variables[j];
        snprintf(what, sizeof what, "active(%s)", m->variables[j].name);
        check_set(c, &it->active, valid && r->var_active[j], what);
        for (size_t t = 0; t < it->n_offsets; t++) {
            int val = it->offsets[t].value;
            snprintf(what, sizeof what, "d(%s) = %d", m->variables[j].name, val);
            check_set(c, &it->offsets[t].modes,
                      regular && r->var_active[j] && r->d[j] == val, what);
        }
        bool found = false;
        for (size_t t = 0; t < it->n_offsets; t++) found |= it->offsets[t].value == r->d[j];
        if (regular && r->var_active[j] && !found)
            mismatch(c, "report: no offset case d(%s) = %d", m->variables[j].name, r->d[j]);
    }
    /* Diagnostics: one per (kind, item) at most (checked in check_report),
     * so the item's entry contains the mode iff the reference says so. */
    for (size_t t = 0; t < rep->n_diagnostics; t++) {
        const sa_diagnostic *dg = &rep->diagnostics[t];
        bool over = dg->kind == SA_DIAG_OVERDETERMINED;
        bool want = over ? r->overdetermined[dg->index] : r->underdetermined[dg->index];
        snprintf(what, sizeof what, "%s(%s)", over ? "overdetermined" : "underdetermined",
                 over ? m->equations[dg->index].name : m->variables[dg->index].name);
        check_set(c, &dg->modes, valid && r->singular && want, what);
    }
    for (uint32_t i = 0; i < m->n_equations; i++) {
        if (!r->overdetermined[i]) continue;
        bool listed = false;
        for (size_t t = 0; t < rep->n_diagnostics; t++)
            listed |= rep->diagnostics[t].kind == SA_DIAG_OVERDETERMINED &&
                      rep->diagnostics[t].index == i;
        if (!listed) mismatch(c, "report: no diagnostic overdetermined(%s)", m->equations[i].name);
    }
    for (uint32_t j = 0; j < m->n_variables; j++) {
        if (!r->underdetermined[j]) continue;
        bool listed = false;
        for (size_t t = 0; t < rep->n_diagnostics; t++)
            listed |= rep->diagnostics[t].kind == SA_DIAG_UNDERDETERMINED &&
                      rep->diagnostics[t].index == j;
        if (!listed)
            mismatch(c, "report: no diagnostic underdetermined(%s)", m->variables[j].name);
    }
}

/* Shape of the report, independent of modes. */
static void check_report(const cmp *c) {
    const mel_model *m = c->m;
    const sa_report *rep = c->rep;
    if (rep->n_modes != m->n_modes || rep->n_equations != m->n_equations ||
        rep->n_variables != m->n_variables)
        mismatch(c, "report: wrong sizes");
    for (uint32_t k = 0; k < m->n_modes; k++)
        if (strcmp(rep->mode_names[k], m->modes[k].name) != 0)
            mismatch(c, "report: mode name %u is %s", k, rep->mode_names[k]);
    const sa_item *items[2] = {rep->equations, rep->variables};
    uint32_t counts[2] = {rep->n_equations, rep->n_variables};
    for (int side = 0; side < 2; side++)
        for (uint32_t i = 0; i < counts[side]; i++)
            for (size_t t = 1; t < items[side][i].n_offsets; t++)
                if (items[side][i].offsets[t - 1].value >= items[side][i].offsets[t].value)
                    mismatch(c, "report: offsets of %s not sorted by value", items[side][i].name);
    for (size_t t = 0; t < rep->n_diagnostics; t++) {
        const sa_diagnostic *dg = &rep->diagnostics[t];
        if (dg->modes.n_cubes == 0) mismatch(c, "report: empty diagnostic %zu", t);
        uint32_t lim = dg->kind == SA_DIAG_OVERDETERMINED ? m->n_equations : m->n_variables;
        if (dg->index >= lim) mismatch(c, "report: diagnostic %zu out of range", t);
        if (t == 0) continue;
        const sa_diagnostic *pv = &rep->diagnostics[t - 1];
        /* equations first, then variables, in model order, one per item */
        if (pv->kind > dg->kind || (pv->kind == dg->kind && pv->index >= dg->index))
            mismatch(c, "report: diagnostics out of order at %zu", t);
    }
}

/* ---- Comparing one model -------------------------------------------------------- */

typedef struct stats {
    size_t models, modes, valid, singular, offsets_checked, inconsistent;
} stats;

static void compare_mode(cmp *c, const sa_result *res, const bool *mode, stats *st) {
    ref_mode rm;
    cr_assert_eq(ref_mode_compute(c->m, mode, &rm), MDAE_OK);
    sa_mode_view v;
    memset(&v, 0, sizeof v);
    c->mode = mode;
    c->rm = &rm;
    c->mode_bits = 0;
    for (uint32_t k = 0; k < c->m->n_modes && k < 64; k++)
        if (mode[k]) c->mode_bits |= (uint64_t)1 << k;
    int rc = sa_result_mode(res, mode, &v);
    if (rc != MDAE_OK) mismatch(c, "sa_result_mode failed: %s", mdae_err_name(rc));
    c->view = &v;
    c->rep = NULL; /* mismatches of the view name no report */
    compare_view(c);
    for (int k = 0; k < c->n_reps; k++) {
        if (!rm.valid && !c->rep_exact[k]) continue; /* don't-care */
        c->rep = c->reps[k];
        compare_report_mode(c);
    }
    st->modes++;
    st->valid += rm.valid;
    st->singular += rm.valid && rm.singular;
    st->offsets_checked += rm.valid && !rm.singular;
    c->view = NULL;
    c->rm = NULL;
    c->mode = NULL;
    sa_mode_view_close(&v);
    ref_mode_close(&rm);
}

static bool valid_mode(const mel_model *m, const bool *mode) {
    for (uint32_t k = 0; k < m->n_invariants; k++)
        if (!mel_guard_eval(m->invariants[k].cond, mode)) return false;
    return true;
}

#define ALL_MODES_MAX 12 /* enumerate all modes up to 2^12 */

/* Compare every mode if there are at most 2^ALL_MODES_MAX, otherwise
 * `samples` modes drawn uniformly among the valid ones (rejection sampling;
 * the rejected invalid modes are compared too, which only checks validity). */
static void compare_model(const char *label, const char *text, const mel_options *opt,
                          size_t samples, uint64_t seed, stats *st) {
    cmp c;
    memset(&c, 0, sizeof c);
    c.label = label;
    c.text = text;
    c.check_formulas = true;
    set_cache cache = {0, NULL};
    mel_model *m = NULL;
    mdae_diags diags;
    mdae_diags_init(&diags);
    int rc = mel_model_parse(text, strlen(text), opt, &m, &diags);
    if (rc != MDAE_OK) mismatch(&c, "does not parse: %s", mdae_err_name(rc));
    mdae_diags_close(&diags);
    c.m = m;
    st->models++;

    bool checked = false;
    uint32_t be = 0, bv = 0;
    uint64_t bx = 0;
    bool consistent = ref_model_consistent(m, &checked, &be, &bv, &bx);
    sa_result *res = NULL;
    mdae_diags_init(&diags);
    sa_options so = {.method = g_method};
    rc = sa_analyze(m, &so, &res, &diags);
    if (!consistent) {
        st->inconsistent++;
        if (rc != MDAE_E_MODEL)
            mismatch(&c, "%s uses %s in mode #%llu where it does not exist, but sa_analyze "
                     "returned %s", m->equations[be].name, m->variables[bv].name,
                     (unsigned long long)bx, mdae_err_name(rc));
        if (diags.errors == 0) mismatch(&c, "sa_analyze: MDAE_E_MODEL without an error");
        mdae_diags_close(&diags);
        mdae_diags_init(&diags);
        rc = sa_check(m, &diags);
        if (rc != MDAE_E_MODEL) mismatch(&c, "sa_check returned %s", mdae_err_name(rc));
        if (sa__check_light(m)) mismatch(&c, "sa_check.c's light check passed it");
        bool located = false;
        for (size_t k = 0; k < diags.count; k++)
            located |= diags.items[k].severity == MDAE_SEV_ERROR &&
                       diags.items[k].where.start.line > 0;
        if (!located) mismatch(&c, "sa_check: no located error");
        mdae_diags_close(&diags);
        mel_model_free(m);
        return;
    }
    if (rc != MDAE_OK) {
        for (size_t k = 0; k < diags.count; k++) {
            char *s = mdae_diag_format(&diags.items[k], label);
            cr_log_error("%s", s ? s : "?");
            mdae_free(s);
        }
        mismatch(&c, "sa_analyze returned %s on a consistent model", mdae_err_name(rc));
    }
    mdae_diags_close(&diags);
    mdae_diags_init(&diags);
    rc = sa_check(m, &diags);
    if (rc != MDAE_OK) mismatch(&c, "sa_check returned %s on a consistent model", mdae_err_name(rc));
    /* decided without the full encoding when there is nothing to say */
    if (!sa__check_light(m) && sa_result_valid_modes(res) > 0)
        mismatch(&c, "sa_check.c's light check did not decide a consistent model");
    mdae_diags_close(&diags);

    sa_report *reps[3] = {NULL, NULL, NULL};
    rc = sa_result_report(res, &reps[0]);
    if (rc != MDAE_OK) mismatch(&c, "sa_result_report returned %s", mdae_err_name(rc));
    rc = sa_result_report_ex(res, SA_REPORT_VALID_CARE, &reps[1]);
    if (rc != MDAE_OK) mismatch(&c, "sa_result_report_ex(VALID_CARE) returned %s", mdae_err_name(rc));
    c.reps[0] = reps[0], c.rep_name[0] = "sa_result_report";
    c.reps[1] = reps[1], c.rep_name[1] = "sa_result_report_ex(VALID_CARE)";
    c.n_reps = 2;
    if (m->n_modes <= ALL_MODES_MAX) {
        rc = sa_result_report_ex(res, 0, &reps[2]);
        if (rc != MDAE_OK) mismatch(&c, "sa_result_report_ex(0) returned %s", mdae_err_name(rc));
        c.reps[2] = reps[2], c.rep_name[2] = "sa_result_report_ex(0)", c.rep_exact[2] = true;
        c.n_reps = 3;
    }
    size_t n_sets = 0;
    for (int k = 0; k < c.n_reps; k++) {
        const sa_report *rep = c.reps[k];
        c.rep = rep;
        check_report(&c);
        n_sets += 1 + rep->n_diagnostics;
        for (uint32_t i = 0; i < rep->n_equations; i++) n_sets += 1 + rep->equations[i].n_offsets;
        for (uint32_t j = 0; j < rep->n_variables; j++) n_sets += 1 + rep->variables[j].n_offsets;
    }
    const sa_report *rep = reps[0];
    c.rep = rep;
    cache_init(&cache, n_sets);
    c.cache = &cache;
    c.name_len = calloc(m->n_modes + 1, sizeof *c.name_len);
    cr_assert_not_null(c.name_len);
    for (uint32_t k = 0; k < m->n_modes; k++) c.name_len[k] = strlen(m->modes[k].name);

    bool *mode = calloc(m->n_modes + 1, sizeof *mode);
    cr_assert_not_null(mode);
    if (m->n_modes <= ALL_MODES_MAX) {
        size_t valid = 0, singular = 0;
        for (uint64_t x = 0; x < ((uint64_t)1 << m->n_modes); x++) {
            ref_mode_from_index(x, m->n_modes, mode);
            size_t s0 = st->singular, v0 = st->valid;
            compare_mode(&c, res, mode, st);
            valid += st->valid - v0;
            singular += st->singular - s0;
        }
        if (rep->singular != (singular > 0))
            mismatch(&c, "report: singular=%d, the reference finds %zu singular modes",
                     rep->singular, singular);
        if (rep->valid_modes != (double)valid)
            mismatch(&c, "report: %.0f valid modes, the reference counts %zu", rep->valid_modes,
                     valid);
        if (sa_result_valid_modes(res) != (double)valid)
            mismatch(&c, "sa_result_valid_modes: %.0f, the reference counts %zu",
                     sa_result_valid_modes(res), valid);
        if (sa_result_singular(res) != (singular > 0))
            mismatch(&c, "sa_result_singular: %d, the reference finds %zu singular modes",
                     sa_result_singular(res), singular);
    } else {
        /* Formulas of big sets are long (building N=10: thousands of
         * literals, hundreds of sets): read them on the first modes only; the
         * cubes are checked on every mode. */
        uint64_t rs = seed;
        for (size_t n = 0; n < samples; n++) {
            c.check_formulas = n < 20;
            for (int tries = 0; tries < 10000; tries++) {
                for (uint32_t k = 0; k < m->n_modes; k++) mode[k] = ref_rand_next(&rs) & 1;
                if (valid_mode(m, mode)) break;
                if (tries == 0) compare_mode(&c, res, mode, st); /* checks valid=false */
            }
            compare_mode(&c, res, mode, st);
        }
    }
    free(mode);
    cache_close(&cache);
    free(c.name_len);
    for (int k = 0; k < 3; k++) sa_report_free(reps[k]);
    sa_result_free(res);
    mel_model_free(m);
}

/* ---- Random models ----------------------------------------------------------------- */

/* compare_model, but with MDAE_KEEP_GOING a mismatch only abandons this
 * model. */
static void compare_model_or_skip(const char *label, const char *text, uint64_t seed,
                                  stats *st) {
    jmp_buf jb;
    g_next_model = &jb;
    if (setjmp(jb) == 0) compare_model(label, text, NULL, 0, seed, st);
    g_next_model = NULL;
}

/* Models seeds base + first .. base + first + count - 1; `origin` is the
 * `first` of `test` when MDAE_RANDOM_MODELS=1, so a failing seed S is
 * reproduced by MDAE_SEED=S-origin in that test. */
static void random_models(uint64_t first, uint64_t count, const ref_random_opts *o,
                          const char *test, uint64_t origin, stats *st) {
    uint64_t base = env_u64("MDAE_SEED", 0x5A5EED00ull);
    for (uint64_t t = first; t < first + count; t++) {
        uint64_t seed = base + t;
        char *text = ref_random_model(seed, o);
        cr_assert_not_null(text);
        char label[256];
        snprintf(label, sizeof label,
                 "random model, seed %llu (rerun: MDAE_SEED=%llu MDAE_RANDOM_MODELS=1 "
                 "test_sa_vs_ref --filter 'sa_vs_ref/%s')",
                 (unsigned long long)seed, (unsigned long long)(seed - origin), test);
        compare_model_or_skip(label, text, seed, st);
        mdae_free(text);
    }
    cr_assert_eq(g_failures, 0, "%zu models disagree with the reference", g_failures);
}

static uint64_t random_count(uint64_t dflt) {
    return env_u64("MDAE_RANDOM_MODELS", dflt);
}

static void random_batch(int batch) {
    const uint64_t per = random_count(250);
    ref_random_opts o = {.nonsquare_percent = 15};
    stats st = {0};
    random_models((uint64_t)batch * per, per, &o,
                  "agrees_with_the_reference_on_random_models_batch_0", 0, &st);
    cr_log_info("random batch %d: %zu models, %zu modes, %zu valid, %zu singular", batch,
                st.models, st.modes, st.valid, st.singular);
    if (per >= 100) {
        /* The generator must exercise both sides of the comparison. */
        cr_assert_gt(st.singular, st.modes / 20, "too few singular modes");
        cr_assert_gt(st.offsets_checked, st.modes / 4, "too few nonsingular modes");
    }
}

/* 4 x 250 = 1,000 random models, in four tests so that --jobs=2 runs them in
 * parallel. */
Test(sa_vs_ref, agrees_with_the_reference_on_random_models_batch_0) { random_batch(0); }
Test(sa_vs_ref, agrees_with_the_reference_on_random_models_batch_1) { random_batch(1); }
Test(sa_vs_ref, agrees_with_the_reference_on_random_models_batch_2) { random_batch(2); }
Test(sa_vs_ref, agrees_with_the_reference_on_random_models_batch_3) { random_batch(3); }

/* Batch 0's models again, each path forced: whichever the automatic choice
 * takes for a model, both agree with the reference. */
Test(sa_vs_ref, agrees_with_the_reference_with_the_implicit_path_forced) {
    g_method = SA_METHOD_IMPLICIT;
    random_batch(0);
}
Test(sa_vs_ref, agrees_with_the_reference_with_enumeration_forced) {
    g_method = SA_METHOD_ENUMERATE;
    random_batch(0);
}
Test(sa_vs_ref, agrees_with_the_reference_with_the_primal_by_blocks) {
    g_method = SA_METHOD_BLOCKS;
    random_batch(0);
}

Test(sa_vs_ref, agrees_with_the_reference_on_random_models_with_deeper_orders) {
    /* Fewer, larger models with orders up to 5 and 4 mode variables. */
    ref_random_opts o = {.max_equations = 7, .max_order = 5, .nonsquare_percent = 10};
    stats st = {0};
    random_models(100000, random_count(100), &o,
                  "agrees_with_the_reference_on_random_models_with_deeper_orders", 100000, &st);
}

Test(sa_vs_ref, rejects_random_models_that_use_variables_outside_their_guard) {
    ref_random_opts o = {.violate = true, .nonsquare_percent = 10};
    stats st = {0};
    random_models(200000, random_count(100), &o,
                  "rejects_random_models_that_use_variables_outside_their_guard", 200000, &st);
    if (st.models >= 50) cr_assert_gt(st.inconsistent, st.models / 2);
}

/* Models as an editor has them (issue 36): each edit, one to three, leaves
 * the model with an equation or an unknown too many, so that most of its
 * valid modes are singular; the blocks of a union graph without a perfect
 * matching (sa_udm.c) and their diagnostics decide them. */
Test(sa_vs_ref, agrees_with_the_reference_on_random_models_singular_in_most_modes) {
    ref_random_opts o = {.max_equations = 9, .singular_edits = 3};
    stats st = {0};
    random_models(300000, random_count(300), &o,
                  "agrees_with_the_reference_on_random_models_singular_in_most_modes", 300000,
                  &st);
    cr_log_info("singular random models: %zu models, %zu valid modes, %zu singular", st.models,
                st.valid, st.singular);
    if (st.models >= 100) cr_assert_gt(st.singular, st.valid / 2, "too few singular modes");
}

Test(sa_vs_ref, agrees_with_the_reference_on_singular_random_models_by_blocks) {
    ref_random_opts o = {.max_equations = 9, .singular_edits = 3};
    stats st = {0};
    g_method = SA_METHOD_BLOCKS;
    random_models(300000, random_count(150), &o,
                  "agrees_with_the_reference_on_singular_random_models_by_blocks", 300000, &st);
}

/* ---- The paper's models --------------------------------------------------------------- */

static void model_file(const char *file, long n, size_t samples, stats *st) {
    char *text = tm_slurp(file);
    char label[256];
    mel_define def = {"N", n};
    mel_options opt;
    memset(&opt, 0, sizeof opt);
    if (n > 0) {
        opt.defines = &def;
        opt.n_defines = 1;
        snprintf(label, sizeof label, "%s with N=%ld", file, n);
    } else {
        snprintf(label, sizeof label, "%s", file);
    }
    compare_model(label, text, &opt, samples, 0xB0D1E5ull + (uint64_t)n, st);
    free(text);
}

Test(sa_vs_ref, agrees_on_every_mode_of_the_paper_examples) {
    static const char *const files[] = {"rldc2.mel", "water_tank.mel", "two_equations.mel",
                                        "clutch.mel", "cup_and_ball.mel",
                                        "singular_simple.mel"};
    stats st = {0};
    static const int methods[] = {SA_METHOD_AUTO, SA_METHOD_IMPLICIT, SA_METHOD_ENUMERATE,
                                  SA_METHOD_BLOCKS};
    for (size_t q = 0; q < 4; q++) {
        g_method = methods[q];
        for (size_t k = 0; k < sizeof files / sizeof *files; k++)
            model_file(files[k], 0, 0, &st);
    }
    cr_assert_gt(st.modes, 10);
}

Test(sa_vs_ref, refuses_the_bad_use_model_like_the_reference) {
    stats st = {0};
    model_file("bad_use.mel", 0, 0, &st);
    cr_assert_eq(st.inconsistent, 1);
}

static void family(const char *file, stats *st) {
    for (long n = 1; n <= 3; n++) model_file(file, n, 0, st);
}

Test(sa_vs_ref, agrees_on_every_mode_of_building_compressible_up_to_n3) {
    stats st = {0};
    family("building_compressible.mel", &st);
    cr_assert_gt(st.valid, 0);
}

Test(sa_vs_ref, agrees_on_every_mode_of_building_incompressible_up_to_n3) {
    stats st = {0};
    family("building_incompressible.mel", &st);
    cr_assert_gt(st.valid, 0);
}

Test(sa_vs_ref, agrees_on_every_mode_of_brake_up_to_n3) {
    stats st = {0};
    family("brake.mel", &st);
    cr_assert_gt(st.valid, 0);
}

Test(sa_vs_ref, agrees_on_every_mode_of_rldc_chain_up_to_n4) {
    stats st = {0};
    for (long n = 1; n <= 4; n++) model_file("rldc_chain.mel", n, 0, &st);
    cr_assert_gt(st.valid, 0);
}

/* ---- The families with one equation added or removed (issue 36) ------------------ */

/* How each family is edited: its loop index, an unknown of a chain
 * element (an added `xtra : equation VAR[K] = 0`) and an equation of the
 * loop body (left out for i = K). */
typedef struct edit_family {
    const char *file, *index, *var, *eq;
} edit_family;

static const edit_family edit_families[] = {
    {"brake.mel", "i", "x", "fel"},
    {"building_compressible.mel", "i", "Tr", "cmf"},
    {"building_incompressible.mel", "i", "Tr", "cmf"},
    {"rldc_chain.mel", "k", "x", "R"},
};

/* The family's text with the edit at K (an expression of N): added, or
 * the equation wrapped in `if INDEX <> K then ... end`. malloc'd. */
static char *edited(const edit_family *f, const char *text, bool add, const char *k) {
    size_t n = strlen(text);
    char *out = malloc(n + 256);
    cr_assert_not_null(out);
    if (add) {
        snprintf(out, n + 256, "%s\nxtra : equation %s[%s] = 0;\n", text, f->var, k);
        return out;
    }
    char pat[64];
    snprintf(pat, sizeof pat, "%s[%s] : equation", f->eq, f->index);
    const char *at = strstr(text, pat);
    cr_assert_not_null(at, "%s: no %s", f->file, pat);
    const char *semi = strchr(at, ';');
    cr_assert_not_null(semi);
    snprintf(out, n + 256, "%.*sif %s <> %s then %.*s end%s", (int)(at - text), text, f->index, k,
             (int)(semi - at), at, semi);
    return out;
}

static void edited_family(const edit_family *f, stats *st) {
    static const char *const where[] = {"1", "(N + 1) / 2", "N"};
    char *text = tm_slurp(f->file);
    for (int add = 0; add < 2; add++)
        for (size_t w = 0; w < 3; w++) {
            char *t = edited(f, text, add, where[w]);
            for (long n = 1; n <= 3; n++) {
                char label[256];
                mel_define def = {"N", n};
                mel_options opt;
                memset(&opt, 0, sizeof opt);
                opt.defines = &def;
                opt.n_defines = 1;
                snprintf(label, sizeof label, "%s with N=%ld, equation %s at %s", f->file, n,
                         add ? "added" : "removed", where[w]);
                size_t s0 = st->singular;
                compare_model(label, t, &opt, 0, 0xED17ull + (uint64_t)n, st);
                cr_assert_gt(st->singular, s0, "%s: no singular mode", label);
            }
            free(t);
        }
    free(text);
}

Test(sa_vs_ref, agrees_on_every_mode_of_the_brake_with_an_equation_added_or_removed) {
    stats st = {0};
    edited_family(&edit_families[0], &st);
}

Test(sa_vs_ref, agrees_on_every_mode_of_building_compressible_with_an_equation_added_or_removed) {
    stats st = {0};
    edited_family(&edit_families[1], &st);
}

Test(sa_vs_ref, agrees_on_every_mode_of_building_incompressible_with_an_equation_added_or_removed) {
    stats st = {0};
    edited_family(&edit_families[2], &st);
}

Test(sa_vs_ref, agrees_on_every_mode_of_rldc_chain_with_an_equation_added_or_removed) {
    stats st = {0};
    edited_family(&edit_families[3], &st);
}

Test(sa_vs_ref, agrees_on_sampled_modes_of_building_compressible_n10) {
    stats st = {0};
    model_file("building_compressible.mel", 10, 1000, &st);
    cr_assert_geq(st.valid, 1000);
}

Test(sa_vs_ref, agrees_on_sampled_modes_of_building_incompressible_n10) {
    stats st = {0};
    model_file("building_incompressible.mel", 10, 1000, &st);
    cr_assert_geq(st.valid, 1000);
}

Test(sa_vs_ref, agrees_on_the_modes_of_brake_n10) {
    /* 2^10 modes: few enough to compare them all. */
    stats st = {0};
    model_file("brake.mel", 10, 1000, &st);
    cr_assert_geq(st.valid, 1000);
}

Test(sa_vs_ref, agrees_on_sampled_modes_of_rldc_chain_n16) {
    /* 2^16 modes, more than ALL_MODES_MAX: exercises mode sampling on a
     * model the engine analyses quickly. */
    stats st = {0};
    model_file("rldc_chain.mel", 16, 1000, &st);
    cr_assert_geq(st.valid, 1000);
}
