/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_sa_hint.c -- sa_options.hint (engine/sa_hint.c and the
 * seeded costs of engine/sa_primal.c) never changes a result.
 *
 * Each model is analysed cold, then again with a hint: (a) its own result,
 * (b) the result of an unrelated model (a garbage hint: random models share
 * the names g1.., e1.., so it does match by name), (c) the result of a small
 * edit of the model (a derivative added, a guard negated, N vs N + 1), and
 * hints whose models have other mode variables (renamed, reordered).
 * The hinted result must equal the cold one on every mode (all of them when
 * there are at most 2^10, else 256 sampled): validity, singularity, active
 * sets, c, d, the DM parts and the chosen matching (matched_var); and the
 * two reports must be equal field by field, formulas and cubes included.
 * Why so strict: the hint is exact by LP duality, so S, hence the chosen
 * MWPM and everything after it, must be the very same -- also when the
 * chosen MWPM is the hint's, repaired near the edit (engine/sa_repair.c),
 * which is why a variant lays the same model out in another order.
 *
 * The random models (380, four hints each and the variants seeded back)
 * include deep derivatives and a garbage hint with large offsets, so that
 * besides the cheap passes the dynamic programme's fallback runs too; the
 * building gets bench_edit's edits; a seeded analysis is canceled at every
 * checkpoint in turn (under ASan: no leak).
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdg.h"
#include "mdae.h"
#include "mel.h"
#include "ref.h"
#include "sa.h"

#include "model_files.h"

static void begin(void) { cr_assert_eq(sa_begin(NULL), MDAE_OK); }
static void end(void) { sa_end(); }

TestSuite(sa_hint, .init = begin, .fini = end);

/* ---- Helpers ------------------------------------------------------------------ */

static mel_model *parse(const char *text, long long n, const char *what)
{
    mel_define d = {"N", n};
    mel_options mo = {0};
    mo.defines = &d;
    mo.n_defines = n > 0 ? 1 : 0;
    mel_model *m = NULL;
    int rc = mel_model_parse(text, strlen(text), &mo, &m, NULL);
    cr_assert_eq(rc, MDAE_OK, "%s: parse: %s\n%s", what, mdae_err_name(rc), text);
    return m;
}

/* sa_analyze with hint (may be NULL); NULL if the model is refused (the same
 * must then happen cold and hinted). */
static sa_result *analyze_ex(const mel_model *m, const sa_result *hint, int method, int seeded,
                             int *rc_out)
{
    sa_options o = {0};
    o.hint = hint;
    o.method = method;
    o.seeded = seeded;
    sa_result *r = NULL;
    mdae_diags dg;
    mdae_diags_init(&dg);
    int rc = sa_analyze(m, &o, &r, &dg);
    mdae_diags_close(&dg);
    *rc_out = rc;
    return rc == MDAE_OK ? r : NULL;
}

/* The seeded costs of the implicit primal (sa_primal.c). */
static sa_result *analyze(const mel_model *m, const sa_result *hint, int *rc_out)
{
    return analyze_ex(m, hint, SA_METHOD_IMPLICIT, SA_SEEDED_AUTO, rc_out);
}

/* m analysed with the hint and method of o, which must give cold, function
 * for function; its method in *mi. Returns it (owned). */
static sa_result *seeded_as_cold(const mel_model *m, const sa_options *o, const sa_result *cold,
                                 sa_method_info *mi, const char *what)
{
    sa_result *r = NULL;
    cr_assert_eq(sa_analyze(m, o, &r, NULL), MDAE_OK, "%s", what);
    const char *why = NULL;
    cr_assert(sa_result_same(cold, r, &why), "%s: %s differs", what, why);
    sa_result_method(r, mi);
    return r;
}

/* m analysed cold (into *cold) and seeded by hint, equal to it: the seeded
 * result, how it went in *mi. */
static sa_result *seeded_by(const mel_model *m, const sa_result *hint, sa_result **cold,
                            sa_method_info *mi, const char *what)
{
    int rc;
    *cold = analyze(m, NULL, &rc);
    cr_assert_not_null(*cold, "%s", what);
    sa_options o = {.hint = hint};
    return seeded_as_cold(m, &o, *cold, mi, what);
}

/* Hinted analyses whose primal was the hint's tight graphs alone
 * (sa_tight.c, SA_SEEDED_ALWAYS), counted by check_hinted: each test that
 * means to exercise that path says how many it expects at least. */
static unsigned seeded_tight_runs, seeded_runs;
/* Hinted analyses whose primal (or one of its blocks) was the hint's cost-0
 * matchings alone, and those whose primal ran the dynamic programme. */
static unsigned seeded_zero_runs, seeded_other_runs;
/* Of the former, those that needed the offsets of sampled modes too. */
static unsigned seeded_sampled_runs;
/* Of the cost-0 ones, those the hint's chosen matching repaired. */
static unsigned seeded_repaired_runs;
/* Of the seeded_tight ones, those that took more than one round (a later
 * round takes round 0's blocks, and their merges are put off to the end:
 * engine/sa_tight.c). */
static unsigned seeded_rounds_runs;
/* Hinted analyses that found some block solved in the hint's memo
 * (engine/sa_memo.c). */
static unsigned blocks_reused_runs;
/* Hinted analyses that took the hint's layout, all its equations' BDDs;
 * some of them only (sa_encode.c). */
static unsigned encoded_all_runs, encoded_some_runs;

static bool word_char(char ch)
{
    return ch == '_' || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
           (ch >= '0' && ch <= '9');
}

/* text with the whole-word `from` replaced by `to` (every one if all, else
 * the first), only after the first `after` (NULL: anywhere). malloc'ed. */
static char *subst(const char *text, const char *after, const char *from, const char *to,
                   bool all)
{
    size_t nf = strlen(from), nt = strlen(to), n = strlen(text);
    char *o = malloc(n * (nt + 1) + 1);
    cr_assert_not_null(o);
    const char *start = after != NULL ? strstr(text, after) : text;
    if (start == NULL)
        start = text + n;
    size_t k = 0;
    bool done = false;
    for (const char *p = text; *p;) {
        bool hit = !done && p >= start && strncmp(p, from, nf) == 0 &&
                   (p == text || !word_char(p[-1])) && !word_char(p[nf]);
        if (hit) {
            memcpy(o + k, to, nt);
            k += nt;
            p += nf;
            done = !all;
        } else {
            o[k++] = *p++;
        }
    }
    o[k] = '\0';
    return o;
}

/* text with the condition of its first `if ... then` negated (malloc'ed;
 * a copy if there is none). */
static char *negate_first_guard(const char *text)
{
    size_t n = strlen(text);
    char *o = malloc(n + 8);
    cr_assert_not_null(o);
    const char *a = strstr(text, "if ");
    const char *b = a != NULL ? strstr(a, " then") : NULL;
    if (b == NULL) {
        memcpy(o, text, n + 1);
        return o;
    }
    size_t la = (size_t)(a - text) + 3, lb = (size_t)(b - (a + 3));
    memcpy(o, text, la);
    memcpy(o + la, "!(", 2);
    memcpy(o + la + 2, a + 3, lb);
    memcpy(o + la + 2 + lb, ")", 1);
    memcpy(o + la + 3 + lb, b, strlen(b) + 1);
    return o;
}

/* The text with its unguarded equations (lines that start "e" and hold
 * ": equation") in the reverse order: the same model, laid out in another
 * order (its edges'
 * BDD variables then lie in another relative order, which the repair of
 * the hint's chosen matching must notice: engine/sa_repair.c). */
static char *reverse_equations(const char *text)
{
    size_t n = strlen(text), n_lines = 0;
    char *o = malloc(n + 2);
    const char **line = malloc((n + 2) * sizeof *line);
    size_t *len = malloc((n + 2) * sizeof *len);
    cr_assert(o != NULL && line != NULL && len != NULL);
    for (const char *p = text; *p != '\0';) {
        const char *q = strchr(p, '\n');
        size_t l = q != NULL ? (size_t)(q - p) + 1 : strlen(p);
        line[n_lines] = p;
        len[n_lines++] = l;
        p += l;
    }
    size_t *eq = malloc((n_lines + 1) * sizeof *eq), n_eq = 0;
    cr_assert_not_null(eq);
    for (size_t k = 0; k < n_lines; k++) {
        char buf[512];
        size_t l = len[k] < sizeof buf - 1 ? len[k] : sizeof buf - 1;
        memcpy(buf, line[k], l);
        buf[l] = '\0';
        if (buf[0] == 'e' && strstr(buf, ": equation") != NULL && buf[l - 1] == '\n')
            eq[n_eq++] = k;
    }
    size_t at = 0, next_eq = n_eq;
    for (size_t k = 0; k < n_lines; k++) {
        size_t from = k;
        if (n_eq > 0 && next_eq > 0 && eq[n_eq - next_eq] == k)
            from = eq[--next_eq];
        memcpy(o + at, line[from], len[from]);
        at += len[from];
    }
    o[at] = '\0';
    free(eq);
    free(line);
    free(len);
    return o;
}

static void same_set(const sa_set *a, const sa_set *b, uint32_t n_modes, const char *what,
                     const char *item)
{
    cr_assert_str_eq(a->formula, b->formula, "%s: %s: formula", what, item);
    cr_assert_eq(a->n_cubes, b->n_cubes, "%s: %s: cubes", what, item);
    for (size_t q = 0; q < a->n_cubes; q++)
        for (uint32_t v = 0; v < n_modes; v++)
            cr_assert_eq(sa_set_literal(a, q, v), sa_set_literal(b, q, v), "%s: %s: cubes",
                         what, item);
}

static void same_item(const sa_item *a, const sa_item *b, uint32_t n_modes, const char *what)
{
    cr_assert_str_eq(a->name, b->name, "%s", what);
    same_set(&a->active, &b->active, n_modes, what, a->name);
    cr_assert_eq(a->n_offsets, b->n_offsets, "%s: %s: offset cases", what, a->name);
    for (size_t k = 0; k < a->n_offsets; k++) {
        cr_assert_eq(a->offsets[k].value, b->offsets[k].value, "%s: %s: offset", what,
                     a->name);
        same_set(&a->offsets[k].modes, &b->offsets[k].modes, n_modes, what, a->name);
    }
}

static void same_reports(const sa_result *a, const sa_result *b, const char *what)
{
    sa_report *ra = NULL, *rb = NULL;
    int rca = sa_result_report(a, &ra), rcb = sa_result_report(b, &rb);
    cr_assert_eq(rca, rcb, "%s: report %s vs %s", what, mdae_err_name(rca),
                 mdae_err_name(rcb));
    if (rca != MDAE_OK)
        return;
    cr_assert_eq(ra->n_modes, rb->n_modes);
    cr_assert_eq(ra->valid_modes, rb->valid_modes, "%s: valid modes", what);
    cr_assert_eq(ra->singular, rb->singular, "%s: singular", what);
    same_set(&ra->singular_modes, &rb->singular_modes, ra->n_modes, what, "singular modes");
    cr_assert_eq(ra->n_equations, rb->n_equations);
    for (uint32_t i = 0; i < ra->n_equations; i++)
        same_item(&ra->equations[i], &rb->equations[i], ra->n_modes, what);
    cr_assert_eq(ra->n_variables, rb->n_variables);
    for (uint32_t j = 0; j < ra->n_variables; j++)
        same_item(&ra->variables[j], &rb->variables[j], ra->n_modes, what);
    cr_assert_eq(ra->n_diagnostics, rb->n_diagnostics, "%s: diagnostics", what);
    for (size_t k = 0; k < ra->n_diagnostics; k++) {
        cr_assert_eq(ra->diagnostics[k].kind, rb->diagnostics[k].kind, "%s", what);
        cr_assert_eq(ra->diagnostics[k].index, rb->diagnostics[k].index, "%s", what);
        same_set(&ra->diagnostics[k].modes, &rb->diagnostics[k].modes, ra->n_modes, what,
                 "diagnostic");
    }
    sa_report_free(ra);
    sa_report_free(rb);
}

/* Every mode (n_modes <= 10) or 256 sampled: the views agree field by field. */
static void same_modes(const mel_model *m, const sa_result *a, const sa_result *b,
                       const char *what)
{
    uint32_t nm = m->n_modes;
    uint64_t total = ref_modes_total(nm, 10, 256), rs = 0x6A17ull + nm;
    bool *mode = calloc(nm + 1, 1);
    cr_assert_not_null(mode);
    for (uint64_t x = 0; x < total; x++) {
        ref_modes_at(x, nm, 10, &rs, mode);
        sa_mode_view u = {0}, v = {0};
        cr_assert_eq(sa_result_mode(a, mode, &u), MDAE_OK);
        cr_assert_eq(sa_result_mode(b, mode, &v), MDAE_OK);
        cr_assert_eq(u.valid, v.valid, "%s: mode %llu", what, (unsigned long long)x);
        cr_assert_eq(u.singular, v.singular, "%s: mode %llu", what, (unsigned long long)x);
        for (uint32_t i = 0; i < m->n_equations; i++) {
            const char *nmq = m->equations[i].name;
            cr_assert_eq(u.eq_active[i], v.eq_active[i], "%s: %s", what, nmq);
            cr_assert_eq(u.c[i], v.c[i], "%s: mode %llu: c of %s", what,
                         (unsigned long long)x, nmq);
            cr_assert_eq(u.matched_var[i], v.matched_var[i], "%s: mode %llu: matched %s",
                         what, (unsigned long long)x, nmq);
            cr_assert_eq(u.overdetermined[i], v.overdetermined[i], "%s: %s", what, nmq);
        }
        for (uint32_t j = 0; j < m->n_variables; j++) {
            const char *nmq = m->variables[j].name;
            cr_assert_eq(u.var_active[j], v.var_active[j], "%s: %s", what, nmq);
            cr_assert_eq(u.d[j], v.d[j], "%s: mode %llu: d of %s", what,
                         (unsigned long long)x, nmq);
            cr_assert_eq(u.underdetermined[j], v.underdetermined[j], "%s: %s", what, nmq);
        }
        sa_mode_view_close(&u);
        sa_mode_view_close(&v);
    }
    free(mode);
}

/* Analyse m with hint and compare with cold (a result of m without hint). */
static void check_hinted_by(const mel_model *m, const sa_result *cold, int cold_rc,
                            const sa_result *hint, int method, int seeded, const char *what)
{
    int rc;
    sa_result *r = analyze_ex(m, hint, method, seeded, &rc);
    cr_assert_eq(rc, cold_rc, "%s: %s hinted, %s cold", what, mdae_err_name(rc),
                 mdae_err_name(cold_rc));
    if (r == NULL)
        return;
    sa_method_info mi;
    sa_result_method(r, &mi);
    cr_assert(!mi.seeded_tight || seeded != SA_SEEDED_OFF, "%s", what);
    seeded_tight_runs += mi.seeded_tight;
    cr_assert_eq(mi.seeded_tight, mi.seeded_rounds > 0, "%s: %u seeded rounds", what,
                 mi.seeded_rounds);
    seeded_rounds_runs += mi.seeded_rounds > 1;
    seeded_zero_runs += mi.seeded_zero > 0;
    /* The blocks' seeded equations count in the whole's (reuse stats). */
    cr_assert(mi.seeded_zero == 0 || sa_result_seeded(r) > 0, "%s: seeded primal, 0 seeded", what);
    seeded_sampled_runs += mi.seeded_sampled > 0;
    seeded_repaired_runs += mi.seeded_repaired > 0;
    blocks_reused_runs += mi.blocks_reused > 0;
    cr_assert_leq(mi.encoded_from_hint, m->n_equations, "%s", what);
    encoded_all_runs += mi.encoded_from_hint == m->n_equations && m->n_equations > 0;
    encoded_some_runs += mi.encoded_from_hint > 0 && mi.encoded_from_hint < m->n_equations;
    seeded_other_runs += mi.seeded_zero == 0 && !mi.seeded_tight && sa_result_searched(r);
    cr_assert_eq(sa_result_valid_modes(r), sa_result_valid_modes(cold), "%s", what);
    cr_assert_eq(sa_result_singular(r), sa_result_singular(cold), "%s", what);
    same_modes(m, cold, r, what);
    same_reports(cold, r, what);
    sa_result_free(r);
}

/* The hinted result equals the cold one (cold_rc: its code, cold: NULL if
 * refused), seeded both ways: the implicit primal's seeded costs, and the
 * hint's tight graphs tried first whatever the method's estimate. */
static void check_hinted(const mel_model *m, const sa_result *cold, int cold_rc,
                         const sa_result *hint, const char *what)
{
    char label[300];
    check_hinted_by(m, cold, cold_rc, hint, SA_METHOD_IMPLICIT, SA_SEEDED_AUTO, what);
    snprintf(label, sizeof label, "%s (tight graphs of the hint first)", what);
    check_hinted_by(m, cold, cold_rc, hint, SA_METHOD_AUTO, SA_SEEDED_ALWAYS, label);
    /* Block by block: each block's primal is seeded by the hint too. */
    snprintf(label, sizeof label, "%s (by blocks)", what);
    check_hinted_by(m, cold, cold_rc, hint, SA_METHOD_BLOCKS, SA_SEEDED_OFF, label);
    seeded_runs++;
}

/* The model `text` against hints: itself, `other` (garbage) and each of
 * `edits` (variants whose results are the hint). Texts parse with N = n. */
static void check_text(const char *text, long long n, const char *other, long long n_other,
                       const char *const *edits, size_t n_edits, const char *what)
{
    char label[256];
    mel_model *m = parse(text, n, what);
    int cold_rc;
    sa_result *cold = analyze(m, NULL, &cold_rc);
    if (cold != NULL) {
        snprintf(label, sizeof label, "%s, own hint", what);
        check_hinted(m, cold, cold_rc, cold, label);
        int brc;
        sa_result *by_blocks = analyze_ex(m, NULL, SA_METHOD_BLOCKS, SA_SEEDED_AUTO, &brc);
        snprintf(label, sizeof label, "%s, own hint by blocks", what);
        if (by_blocks != NULL)
            check_hinted(m, cold, cold_rc, by_blocks, label);
        sa_result_free(by_blocks);
    }
    const char *hints[8];
    long long hn[8];
    size_t nh = 0;
    if (other != NULL) {
        hints[nh] = other;
        hn[nh++] = n_other;
    }
    for (size_t k = 0; k < n_edits && nh < 8; k++) {
        hints[nh] = edits[k];
        hn[nh++] = n;
    }
    for (size_t k = 0; k < nh; k++) {
        mel_model *hm = parse(hints[k], hn[k], what);
        int hrc;
        /* Every other hint solved block by block: its memo of solved
         * blocks (engine/sa_memo.c) is then read. */
        sa_result *h = k % 2 == 0 ? analyze_ex(hm, NULL, SA_METHOD_BLOCKS, SA_SEEDED_AUTO, &hrc)
                                  : analyze(hm, NULL, &hrc);
        if (h != NULL && k % 2 == 1) {
            /* As a session does: the hint's graph built, which leaves its
             * tight edges in it for the seeded analysis to read
             * (sa_result.tight_memo) instead of computing them. */
            cdg_graph *g = NULL;
            if (cdg_build(h, NULL, &g, NULL) == MDAE_OK)
                cdg_graph_free(g);
        }
        if (h != NULL) {
            snprintf(label, sizeof label, "%s, hint #%zu", what, k);
            check_hinted(m, cold, cold_rc, h, label);
            /* And the other way round: the cold result seeds the variant. */
            if (cold != NULL && k > 0) {
                snprintf(label, sizeof label, "%s, variant #%zu seeded by the model", what, k);
                check_hinted(hm, h, hrc, cold, label);
            }
            sa_result_free(h);
        }
        mel_model_free(hm);
    }
    sa_result_free(cold);
    mel_model_free(m);
}

/* ---- Random models -------------------------------------------------------------- */

/* A garbage hint with large, mode-dependent offsets on the random models'
 * names (e_k is differentiated 5 times per step down the chain). */
static const char big_offsets[] =
    "g1 : boolean; g2 : boolean; g3 : boolean;\n"
    "x1 : real; x2 : real; x3 : real; x4 : real; x5 : real; x6 : real; x7 : real;\n"
    "e1 : equation x1 + der(der(der(der(der(x2))))) = 0;\n"
    "e2 : equation x2 + (if g1 then der(der(der(der(der(x3))))) else x3) = 0;\n"
    "e3 : equation x3 + der(der(der(der(der(x4))))) = 0;\n"
    "e4 : equation x4 + (if g2 | g3 then der(der(der(der(der(x5))))) else 0) = 0;\n"
    "e5 : equation x5 + der(der(der(der(der(x6))))) = 0;\n"
    "e6 : equation x6 + (if !g1 then der(der(der(der(der(x7))))) else x7) = 0;\n"
    "e7 : equation x7 = 0;\n";

static void random_models(uint64_t first, uint64_t count, int max_order, bool big)
{
    ref_random_opts o = {.nonsquare_percent = 10, .max_order = max_order};
    for (uint64_t t = first; t < first + count; t++) {
        uint64_t seed = 0x41E7ull + t;
        char *text = ref_random_model(seed, &o);
        char *other = big ? NULL : ref_random_model(seed + 1000003, &o);
        if (big) {
            other = mdae_malloc(sizeof big_offsets);
            cr_assert_not_null(other);
            memcpy(other, big_offsets, sizeof big_offsets);
        }
        cr_assert(text != NULL && other != NULL);
        /* Edits: one more derivative; a guard negated; two mode variables
         * swapped in the declarations (same names, other BDD variables);
         * g1 renamed (the hint's g1 is absent here: restricted to false);
         * the equations declared in reverse order (another layout). */
        char *e1 = subst(text, ": equation", "x1", "der(x1)", false);
        char *e2 = negate_first_guard(text);
        char *e3 = subst(text, NULL, "g1 : boolean;\ng2 : boolean;",
                         "g2 : boolean;\ng1 : boolean;", false);
        char *e4 = subst(text, NULL, "g1", "q1", true);
        char *e5 = reverse_equations(text);
        const char *edits[] = {e1, e2, e3, e4, e5};
        char what[64];
        snprintf(what, sizeof what, "random model seed %llu", (unsigned long long)seed);
        check_text(text, 0, other, 0, edits, 5, what);
        free(e1);
        free(e5);
        free(e2);
        free(e3);
        free(e4);
        mdae_free(text);
        mdae_free(other);
    }
}

/* At least `least` of the hinted analyses since the counters were reset
 * went through the hint's tight graphs alone, some primal was the hint's
 * cost-0 matchings alone, (sampled_too) some needed sampled modes' offsets
 * too and some hint's tight graphs more than one round, and (dp_too) some hinted primal ran the dynamic
 * programme; some analysis took the hint's encoding whole, and
 * (layout_kept) some edit took its layout with part of its functions
 * (else the test would not exercise these paths). */
static void expect_seeded_tight(unsigned least, bool dp_too, bool sampled_too, bool layout_kept,
                                const char *what)
{
    cr_log_info("%s: %u of %u hinted analyses by the hint's tight graphs alone, %u in more "
                "than one round",
                what, seeded_tight_runs, seeded_runs, seeded_rounds_runs);
    cr_assert_geq(seeded_tight_runs, least, "%s: only %u of %u by the hint's tight graphs", what,
                  seeded_tight_runs, seeded_runs);
    /* Both ways of the seeded primal ran (engine/sa_primal.c). */
    cr_log_info("%s: %u analyses by the hint's cost-0 matchings (%u with sampled modes' too, %u "
                "by its chosen matching repaired), %u by the dynamic programme",
                what, seeded_zero_runs, seeded_sampled_runs, seeded_repaired_runs,
                seeded_other_runs);
    cr_assert(!sampled_too || seeded_sampled_runs > 0, "%s: no primal needed sampled modes' offsets",
              what);
    cr_assert(!sampled_too || seeded_rounds_runs > 0, "%s: no seeded analysis took two rounds",
              what);
    cr_assert_gt(seeded_zero_runs, 0, "%s: no primal was the hint's cost-0 matchings", what);
    cr_assert_gt(seeded_repaired_runs, 0, "%s: no primal repaired the hint's chosen matching",
                 what);
    cr_assert(!dp_too || seeded_other_runs > 0, "%s: no hinted primal ran the dynamic programme",
              what);
    cr_log_info("%s: %u analyses found blocks in the hint's memo", what, blocks_reused_runs);
    cr_assert_gt(blocks_reused_runs, 0, "%s: no block was found in the hint's memo", what);
    blocks_reused_runs = 0;
    cr_log_info("%s: %u analyses took the hint's layout and every equation's functions, %u "
                "some of them",
                what, encoded_all_runs, encoded_some_runs);
    cr_assert_gt(encoded_all_runs, 0, "%s: no analysis took the hint's encoding", what);
    cr_assert(!layout_kept || encoded_some_runs > 0, "%s: no edit kept the hint's layout", what);
    encoded_all_runs = encoded_some_runs = 0;
    seeded_tight_runs = seeded_runs = seeded_zero_runs = seeded_other_runs = 0;
    seeded_sampled_runs = seeded_repaired_runs = seeded_rounds_runs = 0;
}

Test(sa_hint, random_models_batch_0_get_the_cold_result_whatever_the_hint)
{
    random_models(0, 110, 0, false);
    expect_seeded_tight(1, true, true, true, "random batch 0");
}

Test(sa_hint, random_models_batch_1_get_the_cold_result_whatever_the_hint)
{
    random_models(110, 110, 0, false);
    expect_seeded_tight(1, true, true, true, "random batch 1");
}

/* Deeper derivatives, and a garbage hint with large offsets: the reduced
 * costs are then large, so the optimum is often beyond the cheap elements'
 * budgets and the dynamic programme runs on the modes left
 * (engine/sa_primal.c). */
Test(sa_hint, random_models_with_deep_orders_get_the_cold_result_whatever_the_hint)
{
    random_models(220, 80, 12, false);
    random_models(300, 80, 0, true);
    expect_seeded_tight(1, true, true, true, "random, deep orders");
}

/* ---- The corpus ------------------------------------------------------------------ */

/* edits: pairs {from, to} of whole-word replacements (the first one), each
 * a variant of the text whose result seeds the model and vice versa. */
static void family(const char *file, const char *other_file, long long lo, long long hi,
                   const char *const (*edits)[2], size_t n_edits)
{
    char *text = tm_slurp(file);
    char *other = tm_slurp(other_file);
    char *variants[4] = {NULL, NULL, NULL, NULL};
    cr_assert_leq(n_edits, 4);
    for (size_t k = 0; k < n_edits; k++) {
        variants[k] = subst(text, NULL, edits[k][0], edits[k][1], false);
        cr_assert_str_neq(variants[k], text, "%s: edit %zu not applied", file, k);
    }
    for (long long n = lo; n <= hi; n++) {
        char what[128];
        snprintf(what, sizeof what, "%s N=%lld", file, n);
        /* Own result, an unrelated model as the garbage hint (the two
         * buildings share most names, with other incidences), and the
         * edits. */
        check_text(text, n, other, n, (const char *const *)variants, n_edits, what);
        /* (c) N + 1 seeds N and N seeds N + 1. */
        mel_model *m = parse(text, n, what);
        mel_model *h = parse(text, n + 1, what);
        int rc, hrc;
        sa_result *cold = analyze(m, NULL, &rc);
        sa_result *hr = analyze(h, NULL, &hrc);
        cr_assert_not_null(cold);
        cr_assert_not_null(hr);
        snprintf(what, sizeof what, "%s N=%lld seeded by N=%lld", file, n, n + 1);
        check_hinted(m, cold, rc, hr, what);
        snprintf(what, sizeof what, "%s N=%lld seeded by N=%lld", file, n + 1, n);
        check_hinted(h, hr, hrc, cold, what);
        sa_result_free(cold);
        sa_result_free(hr);
        mel_model_free(m);
        mel_model_free(h);
    }
    for (size_t k = 0; k < n_edits; k++)
        free(variants[k]);
    free(text);
    free(other);
}

/* The edits of tests/bench/bench_edit.c, on room 2: (a) an incidence added,
 * (b) a guard flipped. */
Test(sa_hint, building_compressible_gets_the_cold_result_seeded_by_its_neighbours)
{
    static const char *const edits[][2] = {
        {"rimf[i] : equation mu_in[i] = flow_vent(Pin - Pr[i]);",
         "rimf[i] : equation mu_in[i] = flow_vent(Pin - Pr[i]) + "
         "(if i == 2 then der(Tr[i]) else 0);"},
        {"if open[i] then", "if open[i] & i <> 2 | !open[i] & i == 2 then"},
    };
    family("building_compressible.mel", "building_incompressible.mel", 2, 3, edits, 2);
    expect_seeded_tight(0, false, true, true, "building");
}

/* The building at N = 20: its union graph is one block of most of its
 * equations, whose modes cannot be enumerated, so an edit's analysis seeds
 * that block's primal problem (engine/sa_blocks.c, eq_whole): the previous
 * chosen matching repaired near the edit (engine/sa_repair.c), a sampled
 * mode's offsets where the previous ones leave modes, and for N + 1 the new
 * room seeded by its neighbour (engine/sa_hint.c). Each edit's seeded result
 * must be its cold one, function for function; each is a repair (the
 * building's edits are cheap because of it: tests/bench/README.md). */
/* bench_edit's three edits of a model at N = n, on instance k: (a) the
 * equation `eq` becomes `eq_to` (a derivative added), (b) the guard
 * `if open[i]` negated, (c) N + 1; texts[v] at ns[v], and the original
 * parsed at n (om). edits_free releases them. */
typedef struct edit_set {
    char *text, *edited[2];
    const char *texts[3];
    long long ns[3];
    mel_model *om;
} edit_set;

static void edits_make(edit_set *e, const char *file, long long n, int k, const char *eq,
                       const char *eq_to, const char *label)
{
    char guard[128];
    snprintf(guard, sizeof guard, "if open[i] & i <> %d | !open[i] & i == %d then", k, k);
    e->text = tm_slurp(file);
    e->edited[0] = subst(e->text, NULL, eq, eq_to, false);
    e->edited[1] = subst(e->text, NULL, "if open[i] then", guard, false);
    e->texts[0] = e->edited[0];
    e->texts[1] = e->edited[1];
    e->texts[2] = e->text;
    e->ns[0] = e->ns[1] = n;
    e->ns[2] = n + 1;
    e->om = parse(e->text, n, label);
}

static void edits_free(edit_set *e)
{
    mel_model_free(e->om);
    free(e->edited[0]);
    free(e->edited[1]);
    free(e->text);
}

Test(sa_hint, the_buildings_large_block_is_seeded_by_the_previous_version)
{
    /* (model text, N) seeded by the original at N = 20. */
    edit_set ed;
    edits_make(&ed, "building_compressible.mel", 20, 10,
               "rimf[i] : equation mu_in[i] = flow_vent(Pin - Pr[i]);",
               "rimf[i] : equation mu_in[i] = flow_vent(Pin - Pr[i]) + "
               "(if i == 10 then der(Tr[i]) else 0);",
               "building N=20");
    int rc;
    sa_result *hint = analyze(ed.om, NULL, &rc);
    cr_assert_not_null(hint);
    uint32_t sampled = 0;
    for (size_t k = 0; k < 3; k++) {
        mel_model *m = parse(ed.texts[k], ed.ns[k], "building variant");
        sa_result *cold;
        sa_method_info mi;
        sa_result *seeded = seeded_by(m, hint, &cold, &mi, "building variant");
        cr_assert_gt(mi.blocks, 1, "variant %zu: by blocks", k);
        cr_assert_gt(mi.seeded_zero, 0, "variant %zu: its block by the cost-0 matchings", k);
        cr_assert_gt(mi.seeded_repaired, 0, "variant %zu: the previous matching repaired", k);
        cr_assert_gt(sa_result_seeded(seeded), 300, "variant %zu: its block's equations seeded", k);
        sampled += mi.seeded_sampled;
        sa_result_free(seeded);
        sa_result_free(cold);
        mel_model_free(m);
    }
    cr_assert_gt(sampled, 0, "the negated guard needs a sampled mode's offsets");
    sa_result_free(hint);
    edits_free(&ed);
}

Test(sa_hint, brake_gets_the_cold_result_seeded_by_its_neighbours)
{
    family("brake.mel", "rldc_chain.mel", 2, 4, NULL, 0);
    expect_seeded_tight(1, false, false, false, "brake");
}

/* The graph of seeded, built with hint (whose graph was built: its
 * union-SCCs are in its memo), is the cold result's, DOT for DOT (blocks,
 * edges, guards); returns how many union-SCCs came from the memo. */
static size_t same_graph(const sa_result *cold, const sa_result *seeded, const sa_result *hint,
                         const char *what)
{
    cdg_graph *gc = NULL, *gs = NULL;
    sa_options o = {.hint = hint};
    cr_assert_eq(cdg_build(cold, NULL, &gc, NULL), MDAE_OK, "%s", what);
    cr_assert_eq(cdg_build(seeded, &o, &gs, NULL), MDAE_OK, "%s", what);
    char *dc = NULL, *ds = NULL;
    cr_assert_eq(cdg_graph_dot(gc, &dc), MDAE_OK);
    cr_assert_eq(cdg_graph_dot(gs, &ds), MDAE_OK);
    cr_assert_str_eq(dc, ds, "%s: the dependency graphs differ", what);
    cr_assert_eq(cdg_graph_n_sccs(gc), cdg_graph_n_sccs(gs), "%s", what);
    cr_assert_eq(cdg_graph_sccs_reused(gc), 0, "%s: cold, nothing from a memo", what);
    size_t reused = cdg_graph_sccs_reused(gs);
    mdae_free(dc);
    mdae_free(ds);
    cdg_graph_free(gs);
    cdg_graph_free(gc);
    return reused;
}

/* The brake's edit k of railcar 20 (text at N = 40) made on railcar 21
 * instead, seeded by prev, the first edit's result (an editor's session:
 * the first undone, the second made): the hint's first tight graph has no
 * perfect matching there, the sampled rounds cover it, and the result is
 * the cold one. */
static void next_edit(const char *text, const sa_result *prev, size_t k)
{
    char *next = subst(text, NULL, k == 0 ? "i == 20 then der" : "i <> 20 | !open[i] & i == 20",
                       k == 0 ? "i == 21 then der" : "i <> 21 | !open[i] & i == 21", false);
    cr_assert_str_neq(next, text, "edit %zu moved", k);
    mel_model *m = parse(next, 40, "brake, next edit");
    sa_result *cold;
    sa_method_info mi;
    sa_result *seeded = seeded_by(m, prev, &cold, &mi, "brake, next edit");
    cr_assert(mi.seeded_tight, "next edit %zu: by the hint's tight graphs", k);
    cr_assert_gt(mi.blocks_reused, 0, "next edit %zu: blocks from the memo", k);
    cr_assert_gt(same_graph(cold, seeded, prev, "next edit"), 100, "next edit %zu", k);
    sa_result_free(seeded);
    sa_result_free(cold);
    mel_model_free(m);
    free(next);
}

/* bench_edit's "(b) guard next" at N = 100: car 51's valve negated, seeded
 * by the version with car 50's negated. The hint's offsets are right in a
 * quarter of the modes; both valve rows need +1 wherever they are active,
 * and no mode has both active. A shift taken afresh from each sample took
 * four rounds, one per combination of the two valves; kept from one
 * sample to the next (engine/sa_tight.c, learn_shift), three; with a
 * second sample drawn where the other car's block of round 0 fails before
 * the round solves (learn_failures), two; with both rows' shifts learned
 * before round 0 where each has no tight edge, and applied there only
 * (learn_dead), one. The result is the cold one in every mode
 * (seeded_by). */
Test(sa_hint, a_guard_edit_after_another_keeps_what_each_sample_showed)
{
    edit_set ed;
    edits_make(&ed, "brake.mel", 100, 50, "px[i] : equation b[i] = K*x[i];",
               "px[i] : equation b[i] = K*x[i];", "brake N=100");
    char *next = subst(ed.texts[1], NULL, "i <> 50 | !open[i] & i == 50",
                       "i <> 51 | !open[i] & i == 51", false);
    cr_assert_str_neq(next, ed.texts[1]);
    mel_model *m1 = parse(ed.texts[1], 100, "car 50 negated");
    mel_model *m2 = parse(next, 100, "car 51 negated");
    int rc;
    sa_result *hint = analyze_ex(m1, NULL, SA_METHOD_AUTO, SA_SEEDED_AUTO, &rc);
    cr_assert_not_null(hint);
    sa_result *cold;
    sa_method_info mi;
    sa_result *seeded = seeded_by(m2, hint, &cold, &mi, "car 51 after car 50");
    cr_log_info("car 51 after car 50: %u seeded rounds", mi.seeded_rounds);
    cr_assert(mi.seeded_tight, "by the hint's tight graphs");
    cr_assert_eq(mi.seeded_rounds, 1, "%u rounds", mi.seeded_rounds);
    sa_result_free(seeded);
    sa_result_free(cold);
    sa_result_free(hint);
    mel_model_free(m2);
    mel_model_free(m1);
    free(next);
    edits_free(&ed);
}

/* bench_edit's edits of the brake, seeded by the original (N = 40, car 20):
 * every block the edit left alone is found in the original's memo
 * (engine/sa_memo.c), in each of the seeded rounds: a guard flipped solves
 * the same blocks again in the modes the first round left, which the memo
 * gives restricted to them. The result is the cold one, function for
 * function, and the edit's own memo serves the next edit. */
Test(sa_hint, the_brakes_unchanged_blocks_come_from_the_previous_versions_memo)
{
    edit_set ed;
    edits_make(&ed, "brake.mel", 40, 20, "px[i] : equation b[i] = K*x[i];",
               "px[i] : equation b[i] = K*x[i] + (if i == 20 then der(x[i]) else 0);",
               "brake N=40");
    int rc;
    sa_result *hint = analyze_ex(ed.om, NULL, SA_METHOD_AUTO, SA_SEEDED_AUTO, &rc);
    cr_assert_not_null(hint);
    sa_method_info hi;
    sa_result_method(hint, &hi);
    cr_assert_gt(hi.blocks_tight, 0, "the original: its large block by tight graphs");
    cdg_graph *hg = NULL; /* as a session does: its union-SCCs into its memo */
    cr_assert_eq(cdg_build(hint, NULL, &hg, NULL), MDAE_OK);
    for (size_t k = 0; k < 3; k++) {
        mel_model *m = parse(ed.texts[k], ed.ns[k], "brake variant");
        sa_result *cold;
        sa_method_info mi;
        sa_result *seeded = seeded_by(m, hint, &cold, &mi, "brake variant");
        cr_assert(mi.seeded_tight, "variant %zu: by the hint's tight graphs", k);
        cr_assert_gt(mi.blocks_reused, 0, "variant %zu: blocks from the memo", k);
        /* The layout is the hint's but for N + 1; (a) changed px[20], (b)
         * ve1[20] and ve2[20]: every other equation's functions are the
         * hint's (engine/sa_encode.c). */
        static const uint32_t encoded_anew[] = {1, 2};
        if (k < 2)
            cr_assert_eq(mi.encoded_from_hint, m->n_equations - encoded_anew[k],
                         "variant %zu: %u of %u equations' functions from the hint", k,
                         mi.encoded_from_hint, m->n_equations);
        else
            cr_assert_eq(mi.encoded_from_hint, 0, "N + 1: another layout");
        cr_log_info("variant %zu: %u blocks reused, %u seeded rounds", k, mi.blocks_reused,
                    mi.seeded_rounds);
        /* (b) too: ve1[20]'s shift learned, before round 0, where it has
         * no tight edge (learn_dead) */
        cr_assert_eq(mi.seeded_rounds, 1, "variant %zu: %u rounds", k, mi.seeded_rounds);
        /* Its graph: every railcar's union-SCCs but the edited one's from
         * the original's memo (N + 1: all but the last railcar's). */
        size_t sccs = same_graph(cold, seeded, hint, "brake variant");
        cr_log_info("variant %zu: %zu union-SCCs from the memo", k, sccs);
        cr_assert_gt(sccs, 100, "variant %zu: %zu union-SCCs from the memo", k, sccs);
        /* Seeded by itself: everything from its own memo. */
        sa_options o = {.hint = seeded};
        sa_result *again = seeded_as_cold(m, &o, cold, &mi, "brake variant seeded by itself");
        cr_assert_gt(mi.blocks_reused, 0, "variant %zu again: blocks from the memo", k);
        cr_assert_eq(mi.encoded_from_hint, m->n_equations, "variant %zu again", k);
        if (k < 2) {
            cdg_graph *sg = NULL; /* its own graph first, as a session does */
            cr_assert_eq(cdg_build(seeded, &o, &sg, NULL), MDAE_OK);
            next_edit(ed.texts[k], seeded, k);
            cdg_graph_free(sg);
        }
        sa_result_free(again);
        sa_result_free(seeded);
        sa_result_free(cold);
        mel_model_free(m);
    }
    cdg_graph_free(hg);
    sa_result_free(hint);
    edits_free(&ed);
}

/* A block whose only change is a weight is solved again: its optimal
 * matching is the other one. Two blocks ({e1, e2} x {x1, x2} and f), so
 * that the analysis goes block by block; the hint solved by blocks keeps
 * both in its memo. Dropping the weights from the memo's key fails here. */
Test(sa_hint, a_block_whose_weights_changed_is_not_taken_from_the_memo)
{
    static const char before[] = "g : boolean;\n"
                                 "x1 : real; x2 : real; y1 : real; y2 : real;\n"
                                 "e1 : equation der(x1) + x2 = 0;\n"
                                 "e2 : equation x1 + x2 = 0;\n"
                                 "f1 : equation y1 + (if g then y2 else 0) = 0;\n"
                                 "f2 : equation y2 = 0;\n";
    char *after = subst(before, NULL, "der(x1) + x2", "x1 + der(x2)", false);
    mel_model *hm = parse(before, 0, "before"), *m = parse(after, 0, "after");
    int rc;
    sa_result *hint = analyze_ex(hm, NULL, SA_METHOD_BLOCKS, SA_SEEDED_AUTO, &rc);
    sa_result *cold = analyze(m, NULL, &rc);
    cr_assert(hint != NULL && cold != NULL);
    sa_options o = {.hint = hint, .method = SA_METHOD_BLOCKS};
    sa_method_info mi;
    sa_result *seeded = seeded_as_cold(m, &o, cold, &mi, "a weight changed");
    cr_assert_gt(mi.blocks, 1, "by blocks");
    cr_assert_gt(mi.blocks_reused, 0, "the unchanged blocks from the memo");
    cr_assert_lt(mi.blocks_reused, mi.blocks, "the changed one solved");
    sa_result_free(seeded);
    sa_result_free(cold);
    sa_result_free(hint);
    mel_model_free(m);
    mel_model_free(hm);
    free(after);
}

Test(sa_hint, small_corpus_models_get_the_cold_result_whatever_the_hint)
{
    static const char *const files[] = {"rldc2.mel",        "water_tank.mel",
                                        "two_equations.mel", "clutch.mel",
                                        "cup_and_ball.mel",  "singular_simple.mel"};
    size_t nf = sizeof files / sizeof *files;
    for (size_t k = 0; k < nf; k++) {
        char *text = tm_slurp(files[k]);
        char *other = tm_slurp(files[(k + 1) % nf]);
        check_text(text, 0, other, 0, NULL, 0, files[k]);
        free(text);
        free(other);
    }
}

/* The hint's model has other mode variables: one of ours is missing there,
 * one of its own is not ours, and they are declared in another order. */
Test(sa_hint, a_hint_with_other_mode_variables_gets_the_cold_result)
{
    char *text = tm_slurp("rldc2.mel");
    char *renamed = subst(text, NULL, "g1", "zz", true);
    char *extra = malloc(strlen(renamed) + 64);
    cr_assert_not_null(extra);
    /* A mode variable only the hint has, declared first. */
    snprintf(extra, strlen(renamed) + 64, "hx : boolean;\n%s", renamed);
    const char *edits[] = {renamed, extra};
    check_text(text, 0, NULL, 0, edits, 2, "rldc2 vs renamed modes");
    free(extra);
    free(renamed);
    free(text);
}

/* ---- Failures -------------------------------------------------------------------- */

typedef struct cancel_at {
    int n;     /* cancel at the n-th checkpoint from "weights" on */
    int seen;  /* checkpoints counted so far */
    bool armed;
} cancel_at;

static int cancel_cb(void *ctx, const char *phase, size_t done, size_t total)
{
    (void)done;
    (void)total;
    cancel_at *ca = ctx;
    if (strcmp(phase, "weights") == 0 || strcmp(phase, "seeded") == 0)
        ca->armed = true;
    return ca->armed && ++ca->seen >= ca->n;
}

/* A seeded analysis canceled at every checkpoint where the hint is carried
 * and used fails cleanly (no leak under ASan, the hint untouched), and the
 * next one still equals the cold result. */
Test(sa_hint, a_seeded_analysis_canceled_anywhere_fails_cleanly)
{
    char *text = tm_slurp("building_compressible.mel");
    mel_model *m = parse(text, 3, "building N=3");
    mel_model *hm = parse(text, 4, "building N=4");
    int rc;
    sa_result *cold = analyze(m, NULL, &rc);
    sa_result *hint = analyze(hm, NULL, &rc);
    cr_assert(cold != NULL && hint != NULL);
    /* The implicit primal's seeded costs, then the hint's tight graphs
     * first (they cover N = 3 from N = 4: checked below), then seeded by
     * the variant whose door 2 is negated (the cost-0 matchings leave
     * modes to those of a sampled mode, whose frame a cancel must free). */
    char *flipped = subst(text, NULL, "if open[i] then", "if open[i] & i <> 2 | !open[i] & i == 2 then",
                          false);
    mel_model *fm = parse(flipped, 3, "building N=3, door 2 negated");
    sa_result *fr = analyze(fm, NULL, &rc);
    cr_assert_not_null(fr);
    uint32_t sampled = 0;
    for (int way = 0; way < 3; way++) {
        int canceled = 0;
        for (int n = 1; n < 10000; n++) {
            cancel_at ca = {n, 0, false};
            sa_options o = {0};
            o.method = way == 1 ? SA_METHOD_AUTO : SA_METHOD_IMPLICIT;
            o.seeded = way == 1 ? SA_SEEDED_ALWAYS : SA_SEEDED_AUTO;
            o.progress = cancel_cb;
            o.progress_ctx = &ca;
            o.hint = way == 2 ? fr : hint;
            sa_result *r = NULL;
            rc = sa_analyze(m, &o, &r, NULL);
            if (rc == MDAE_OK) {
                sa_method_info mi;
                sa_result_method(r, &mi);
                cr_assert(way != 1 || mi.seeded_tight, "N=3 not covered by N=4's offsets");
                sampled += mi.seeded_sampled;
                sa_result_free(r);
                break;
            }
            cr_assert_eq(rc, MDAE_E_CANCELED);
            cr_assert_null(r);
            canceled++;
        }
        cr_assert_geq(canceled, 3, "only %d checkpoints", canceled);
    }
    cr_assert_gt(sampled, 0, "no cancel fell among the sampled modes' cost-0 matchings");
    check_hinted(m, cold, MDAE_OK, hint, "building N=3 seeded by N=4 after cancellations");
    check_hinted(hm, hint, MDAE_OK, cold, "building N=4 seeded by N=3 after cancellations");
    sa_result_free(cold);
    sa_result_free(hint);
    sa_result_free(fr);
    mel_model_free(m);
    mel_model_free(hm);
    mel_model_free(fm);
    free(flipped);
    free(text);
}

/* ---- Chains of random edits ------------------------------------------------------- */

/* A small generator of choices for the chains (splitmix64). */
static uint64_t chain_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Whether p lies after `after` on its line. */
static bool on_line_after(const char *text, const char *p, const char *after)
{
    const char *line = p;
    while (line > text && line[-1] != '\n')
        line--;
    const char *a = strstr(line, after);
    return a != NULL && a < p;
}

/* The start of the k-th (mod their number) whole-word occurrence of a
 * word starting with `prefix` and ending in digits, on a line after its
 * `after`; NULL if there is none. */
static const char *nth_word(const char *text, const char *after, const char *prefix, uint64_t k)
{
    size_t np = strlen(prefix), n = 0;
    for (int pass = 0; pass < 2; pass++) {
        size_t at = 0;
        for (const char *p = text; *p; p++) {
            if (strncmp(p, prefix, np) != 0 || (p > text && word_char(p[-1])) ||
                !(p[np] >= '0' && p[np] <= '9') || !on_line_after(text, p, after))
                continue;
            const char *q = p + np;
            while (*q >= '0' && *q <= '9')
                q++;
            if (word_char(*q))
                continue;
            if (pass == 1 && at == k % n)
                return p;
            at++;
        }
        n = at;
        if (n == 0)
            return NULL;
    }
    return NULL;
}

/* text with [a, b) replaced by `to` (malloc'ed). */
static char *splice(const char *text, const char *a, const char *b, const char *to)
{
    size_t n = strlen(text), nt = strlen(to);
    char *o = malloc(n + nt + 1);
    cr_assert_not_null(o);
    size_t la = (size_t)(a - text);
    memcpy(o, text, la);
    memcpy(o + la, to, nt);
    memcpy(o + la + nt, b, strlen(b) + 1);
    return o;
}

/* One random edit of a random model's text (malloc'ed; a copy when the
 * drawn edit finds nothing to change): a variable's occurrence in an
 * equation wrapped in der(), a der() of a variable taken off, or a guard
 * negated. */
static char *random_edit(const char *text, uint64_t *seed)
{
    uint64_t kind = chain_next(seed) % 3, k = chain_next(seed);
    char buf[64];
    if (kind == 0) {
        const char *p = nth_word(text, ": equation", "x", k);
        if (p != NULL) {
            size_t n = 1;
            while (p[n] >= '0' && p[n] <= '9')
                n++;
            snprintf(buf, sizeof buf, "der(%.*s)", (int)n, p);
            return splice(text, p, p + n, buf);
        }
    } else if (kind == 1) {
        const char *p = nth_word(text, ": equation", "x", k);
        if (p != NULL && p - text >= 4 && strncmp(p - 4, "der(", 4) == 0) {
            size_t n = 1;
            while (p[n] >= '0' && p[n] <= '9')
                n++;
            if (p[n] == ')') {
                snprintf(buf, sizeof buf, "%.*s", (int)n, p);
                return splice(text, p - 4, p + n + 1, buf);
            }
        }
    } else {
        size_t n = 0;
        for (const char *q = strstr(text, "if "); q != NULL; q = strstr(q + 3, "if "))
            n++;
        if (n > 0) {
            const char *a = strstr(text, "if ");
            for (uint64_t s = k % n; s > 0; s--)
                a = strstr(a + 3, "if ");
            char *tail = negate_first_guard(a);
            char *o = splice(text, a, a + strlen(a), tail);
            free(tail);
            return o;
        }
    }
    char *o = malloc(strlen(text) + 1);
    cr_assert_not_null(o);
    strcpy(o, text);
    return o;
}

/* Versions of the chains analysed through the hint's tight graphs, and
 * with some block found in the hint's memo. */
static unsigned chain_seeded_tight, chain_blocks_reused;

/* A chain of `steps` random edits of `text`, each version analysed seeded
 * by the previous version's seeded result (as a session does: the hint is
 * always the last answer, never a cold one), and each equal to its cold
 * analysis, function for function and report for report; a refused
 * version (both ways) leaves the hint as it was. Returns how many
 * versions were compared. */
static unsigned chain_of_edits(const char *text, uint64_t seed, unsigned steps, const char *what)
{
    char label[128];
    char *cur = malloc(strlen(text) + 1);
    cr_assert_not_null(cur);
    strcpy(cur, text);
    mel_model *hm = parse(cur, 0, what);
    int rc;
    sa_result *hint = analyze_ex(hm, NULL, SA_METHOD_AUTO, SA_SEEDED_AUTO, &rc);
    unsigned compared = 0;
    for (unsigned step = 0; step < steps; step++) {
        char *next = random_edit(cur, &seed);
        free(cur);
        cur = next;
        snprintf(label, sizeof label, "%s, edit %u", what, step);
        mel_model *m = parse(cur, 0, label);
        int crc, src;
        sa_result *cold = analyze_ex(m, NULL, SA_METHOD_AUTO, SA_SEEDED_OFF, &crc);
        sa_result *seeded = analyze_ex(m, hint, SA_METHOD_AUTO, SA_SEEDED_ALWAYS, &src);
        cr_assert_eq(src, crc, "%s: %s seeded, %s cold\n%s", label, mdae_err_name(src),
                     mdae_err_name(crc), cur);
        if (cold != NULL) {
            const char *why = NULL;
            cr_assert(sa_result_same(cold, seeded, &why), "%s: %s differs\n%s", label, why, cur);
            same_modes(m, cold, seeded, label);
            same_reports(cold, seeded, label);
            sa_method_info mi;
            sa_result_method(seeded, &mi);
            chain_seeded_tight += mi.seeded_tight;
            chain_blocks_reused += mi.blocks_reused > 0;
            compared++;
        }
        sa_result_free(cold);
        if (seeded != NULL) { /* the next edit's hint, its model kept with it */
            sa_result_free(hint);
            mel_model_free(hm);
            hint = seeded;
            hm = m;
        } else {
            mel_model_free(m);
        }
    }
    sa_result_free(hint);
    mel_model_free(hm);
    free(cur);
    return compared;
}

Test(sa_hint, chains_of_random_edits_get_the_cold_result_at_every_step)
{
    ref_random_opts o = {.nonsquare_percent = 10, .max_order = 3};
    unsigned compared = 0;
    for (uint64_t t = 0; t < 150; t++) {
        uint64_t seed = 0xC4A1ull + t;
        char *text = ref_random_model(seed, &o);
        cr_assert_not_null(text);
        char what[64];
        snprintf(what, sizeof what, "random model seed %llu", (unsigned long long)seed);
        compared += chain_of_edits(text, seed * 31 + 7, 10, what);
        mdae_free(text);
    }
    cr_log_info("random edit chains: %u versions compared with their cold analyses, %u through "
                "the hint's tight graphs, %u with blocks from the hint's memo",
                compared, chain_seeded_tight, chain_blocks_reused);
    cr_assert_gt(compared, 1000, "the chains compared too few versions");
    cr_assert_gt(chain_seeded_tight, 0, "no version went through the hint's tight graphs");
}

/* The brake at N = 12, a chain of edits as an editor makes them: a car's
 * piston equation gains a derivative or a car's valve guard is negated,
 * each from the original text, the car drawn at random; each version
 * seeded by the last seeded result. */
Test(sa_hint, a_chain_of_brake_edits_gets_the_cold_result_at_every_step)
{
    char *text = tm_slurp("brake.mel");
    uint64_t seed = 0xB4A6Eull;
    mel_model *hm = parse(text, 12, "brake N=12");
    int rc;
    sa_result *hint = analyze_ex(hm, NULL, SA_METHOD_AUTO, SA_SEEDED_AUTO, &rc);
    cr_assert_not_null(hint);
    for (unsigned step = 0; step < 10; step++) {
        char to[160], label[64];
        int car = (int)(chain_next(&seed) % 12) + 1;
        bool guard = chain_next(&seed) % 2 == 0;
        if (guard)
            snprintf(to, sizeof to, "if open[i] & i <> %d | !open[i] & i == %d then", car, car);
        else
            snprintf(to, sizeof to,
                     "px[i] : equation b[i] = K*x[i] + (if i == %d then der(x[i]) else 0);", car);
        char *edited = subst(text, NULL, guard ? "if open[i] then" : "px[i] : equation b[i] = K*x[i];",
                             to, false);
        snprintf(label, sizeof label, "brake edit %u (car %d, %s)", step, car,
                 guard ? "guard" : "derivative");
        mel_model *m = parse(edited, 12, label);
        sa_result *cold;
        sa_method_info mi;
        sa_result *seeded = seeded_by(m, hint, &cold, &mi, label);
        same_reports(cold, seeded, label);
        sa_result_free(cold);
        sa_result_free(hint);
        mel_model_free(hm);
        hint = seeded;
        hm = m;
        free(edited);
    }
    sa_result_free(hint);
    mel_model_free(hm);
    free(text);
}

/* ---- Blocks found by place (engine/sa_blocks.c, "The blocks kept by
 * place") ------------------------------------------------------------------ */

/* Three blocks, A = {e1, e2} x {x1, x2}, B = {f1, f2} x {y1, y2} and C =
 * {h1, h2} x {z1, z2}, B and C reading A's and B's columns; e2's edge to
 * y1 is active in no valid mode (g & h, which the invariant excludes), so
 * A and B are apart. The edit makes it active where g & !h: the same edges, row
 * by row (the blocks are found by place), but A and B now on a cycle, one
 * block; C unchanged. Each version analysed seeded by the previous one's
 * result (the first by a cold one), back and forth, every way: the records
 * of A and B are at the new block's rows and must not be taken. */
Test(sa_hint, an_edge_that_closes_a_cycle_through_kept_blocks_gets_the_cold_result)
{
    static const char before[] = "g : boolean; h : boolean;\n"
                                 "invariant !(g & h);\n"
                                 "x1 : real; x2 : real; y1 : real; y2 : real;\n"
                                 "z1 : real; z2 : real;\n"
                                 "e1 : equation der(x1) + x2 = 0;\n"
                                 "e2 : equation x1 + x2 + (if g & h then y1 else 0) = 0;\n"
                                 "f1 : equation y1 + y2 + x1 = 0;\n"
                                 "f2 : equation y1 + (if h then y2 else 0) = 0;\n"
                                 "h1 : equation z1 + z2 + y2 = 0;\n"
                                 "h2 : equation der(z1) + z2 = 0;\n";
    char *after = subst(before, NULL, "if g & h then y1", "if g & !h then y1", false);
    const char *texts[2] = {before, after};
    mel_model *m[2] = {parse(before, 0, "apart"), parse(after, 0, "on a cycle")};
    sa_result *cold[2];
    int rc;
    for (int k = 0; k < 2; k++) {
        cold[k] = analyze_ex(m[k], NULL, SA_METHOD_BLOCKS, SA_SEEDED_OFF, &rc);
        cr_assert_not_null(cold[k], "%s", texts[k]);
    }
    static const int how[][2] = {{SA_METHOD_BLOCKS, SA_SEEDED_OFF},
                                 {SA_METHOD_AUTO, SA_SEEDED_ALWAYS},
                                 {SA_METHOD_IMPLICIT, SA_SEEDED_AUTO}};
    unsigned reused = 0;
    for (size_t w = 0; w < sizeof how / sizeof *how; w++) {
        sa_result *hint = analyze_ex(m[0], NULL, how[w][0], SA_SEEDED_OFF, &rc);
        cr_assert_not_null(hint);
        for (int step = 1; step <= 6; step++) {
            char label[96];
            snprintf(label, sizeof label, "way %zu, version %d (%s)", w, step,
                     step % 2 ? "on a cycle" : "apart");
            sa_options o = {.hint = hint, .method = how[w][0], .seeded = how[w][1]};
            sa_method_info mi;
            sa_result *r = seeded_as_cold(m[step % 2], &o, cold[step % 2], &mi, label);
            same_reports(cold[step % 2], r, label);
            reused += mi.blocks_reused;
            sa_result_free(hint);
            hint = r;
        }
        sa_result_free(hint);
    }
    cr_assert_gt(reused, 0, "no block was reused");
    for (int k = 0; k < 2; k++) {
        sa_result_free(cold[k]);
        mel_model_free(m[k]);
    }
    free(after);
}
