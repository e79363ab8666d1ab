/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_sa_probe.c -- the seeded rounds' samples answered from
 * the hint (engine/sa_probe.c, engine/sm_warm.h) inside whole analyses.
 *
 * Every analysis seeded here runs with sa_options.self_check, under which
 * each sample the hint answers is also solved whole and the two lessons
 * (the sample's singularity and every row's shift) must be equal, or the
 * analysis aborts (sa_tight.c, learn_shift): so the rounds, and
 * seededRounds, are the ones the whole solves gave. Each version is also
 * compared with its cold analysis (sa_result_same). Chains go on as an
 * editor's session does: each version seeded by the previous version's
 * seeded result. The repair itself is checked against sm_offsets on
 * random graphs in test_sa_probe_warm.c.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mdae.h"
#include "mel.h"
#include "ref.h"
#include "sa.h"

#include "model_files.h"

static void begin(void) { cr_assert_eq(sa_begin(NULL), MDAE_OK); }
static void end(void) { sa_end(); }

TestSuite(sa_probe, .init = begin, .fini = end);

static uint64_t next_random(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 17;
}

static mel_model *parse_n(const char *text, long long n, const char *label)
{
    mel_define d = {"N", n};
    mel_options mo = {0};
    mo.defines = n > 0 ? &d : NULL;
    mo.n_defines = n > 0 ? 1 : 0;
    mel_model *m = NULL;
    int rc = mel_model_parse(text, strlen(text), &mo, &m, NULL);
    cr_assert_eq(rc, MDAE_OK, "%s: %s", label, mdae_err_name(rc));
    return m;
}

/* m analysed cold, and seeded by hint with every warm sample checked;
 * both must agree. Returns the seeded result (owned), NULL if both
 * refused; *info its method. */
static sa_result *seeded_and_cold(const mel_model *m, const sa_result *hint, sa_method_info *info,
                                  const char *label)
{
    sa_options co = {0};
    co.seeded = SA_SEEDED_OFF;
    sa_result *cold = NULL, *seeded = NULL;
    int crc = sa_analyze(m, &co, &cold, NULL);
    sa_options so = {0};
    so.hint = hint;
    so.seeded = SA_SEEDED_ALWAYS;
    so.self_check = true;
    int src = sa_analyze(m, &so, &seeded, NULL);
    cr_assert_eq(src, crc, "%s: seeded %s, cold %s", label, mdae_err_name(src),
                 mdae_err_name(crc));
    if (cold != NULL) {
        const char *why = NULL;
        cr_assert(sa_result_same(cold, seeded, &why), "%s: %s differs", label, why);
        sa_result_method(seeded, info);
    }
    sa_result_free(cold);
    return seeded;
}

/* ---- Edits of a random model's text --------------------------------------------- */

/* The k-th (mod their number) place where `pick` accepts text + at; -1 if
 * none. */
static long nth_place(const char *text, bool (*pick)(const char *text, size_t at), uint64_t k)
{
    size_t n = 0, len = strlen(text);
    for (size_t at = 0; at < len; at++)
        n += pick(text, at);
    if (n == 0)
        return -1;
    k %= n;
    for (size_t at = 0; at < len; at++)
        if (pick(text, at) && k-- == 0)
            return (long)at;
    return -1;
}

static bool is_word_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '_';
}

/* A name `first` followed by digits, as a whole word, at text + at. */
static size_t name_at(const char *text, size_t at, char first)
{
    if (text[at] != first || (at > 0 && is_word_char(text[at - 1])))
        return 0;
    size_t n = 1;
    while (text[at + n] >= '0' && text[at + n] <= '9')
        n++;
    return n > 1 && !is_word_char(text[at + n]) ? n : 0;
}

/* Whether text + at lies on an equation's line. */
static bool in_equation(const char *text, size_t at)
{
    size_t line = at;
    while (line > 0 && text[line - 1] != '\n')
        line--;
    const char *eq = strstr(text + line, ": equation");
    const char *nl = strchr(text + line, '\n');
    return eq != NULL && (nl == NULL || eq < nl) && (size_t)(eq - text) < at;
}

/* A mode variable's use (in a guard of a statement, of an incidence, or
 * in an invariant), not its declaration. */
static bool mode_use(const char *text, size_t at)
{
    if (name_at(text, at, 'g') == 0)
        return false;
    bool starts_line = at == 0 || text[at - 1] == '\n';
    const char *decl = strstr(text + at, ": boolean"), *nl = strchr(text + at, '\n');
    return !(starts_line && decl != NULL && (nl == NULL || decl < nl));
}

/* An unknown read in an equation, not inside der() already. */
static bool plain_unknown(const char *text, size_t at)
{
    return name_at(text, at, 'x') > 0 && in_equation(text, at) &&
           !(at >= 4 && strncmp(text + at - 4, "der(", 4) == 0);
}

/* der(x<digits>) in an equation. */
static bool derivative(const char *text, size_t at)
{
    return strncmp(text + at, "der(", 4) == 0 && name_at(text, at + 4, 'x') > 0 &&
           text[at + 4 + name_at(text, at + 4, 'x')] == ')' && in_equation(text, at);
}

/* text with n bytes at `at` replaced by `to` (malloc'ed). */
static char *replaced(const char *text, size_t at, size_t n, const char *to)
{
    size_t len = strlen(text), nt = strlen(to);
    char *o = malloc(len - n + nt + 1);
    cr_assert_not_null(o);
    memcpy(o, text, at);
    memcpy(o + at, to, nt);
    memcpy(o + at + nt, text + at + n, len - at - n + 1);
    return o;
}

/* One random edit (malloc'ed; a copy if it found nothing to change): a
 * mode variable's use negated (a row's or an incidence's guard), an
 * unknown differentiated, or a derivative taken off. */
static char *edit_model(const char *text, uint64_t *s)
{
    uint64_t kind = next_random(s) % 3, k = next_random(s);
    char to[64];
    long at;
    if (kind == 0 && (at = nth_place(text, mode_use, k)) >= 0) {
        size_t n = name_at(text, (size_t)at, 'g');
        if (at > 0 && text[at - 1] == '!')
            return replaced(text, (size_t)at - 1, 1, "");
        snprintf(to, sizeof to, "(!%.*s)", (int)n, text + at);
        return replaced(text, (size_t)at, n, to);
    }
    if (kind == 1 && (at = nth_place(text, plain_unknown, k)) >= 0) {
        size_t n = name_at(text, (size_t)at, 'x');
        snprintf(to, sizeof to, "der(%.*s)", (int)n, text + at);
        return replaced(text, (size_t)at, n, to);
    }
    if (kind == 2 && (at = nth_place(text, derivative, k)) >= 0) {
        size_t n = name_at(text, (size_t)at + 4, 'x');
        snprintf(to, sizeof to, "%.*s", (int)n, text + at + 4);
        return replaced(text, (size_t)at, n + 5, to);
    }
    char *o = malloc(strlen(text) + 1);
    cr_assert_not_null(o);
    strcpy(o, text);
    return o;
}

/* A chain of `steps` edits of text, each version seeded by the last seeded
 * result; the versions compared into *compared, those that went through
 * the seeded rounds into *tight. */
static void chain(const char *text, uint64_t seed, unsigned steps, unsigned *compared,
                  unsigned *tight, const char *what)
{
    char *cur = malloc(strlen(text) + 1);
    cr_assert_not_null(cur);
    strcpy(cur, text);
    mel_model *hm = NULL;
    sa_result *hint = NULL;
    mel_options mo = {0};
    if (mel_model_parse(cur, strlen(cur), &mo, &hm, NULL) != MDAE_OK ||
        sa_analyze(hm, NULL, &hint, NULL) != MDAE_OK) {
        mel_model_free(hm);
        free(cur);
        return;
    }
    for (unsigned step = 0; step < steps; step++) {
        char *next = edit_model(cur, &seed), label[128];
        free(cur);
        cur = next;
        snprintf(label, sizeof label, "%s, edit %u", what, step);
        mel_model *m = NULL;
        if (mel_model_parse(cur, strlen(cur), &mo, &m, NULL) != MDAE_OK) {
            mel_model_free(m);
            continue; /* an edit the front-end refuses: the hint stays */
        }
        sa_method_info mi = {0};
        sa_result *seeded = seeded_and_cold(m, hint, &mi, label);
        if (seeded == NULL) {
            mel_model_free(m);
            continue;
        }
        *compared += 1;
        *tight += mi.seeded_tight;
        sa_result_free(hint);
        mel_model_free(hm);
        hint = seeded;
        hm = m;
    }
    sa_result_free(hint);
    mel_model_free(hm);
    free(cur);
}

Test(sa_probe, chains_of_random_edits_learn_what_the_whole_solve_learns)
{
    ref_random_opts o = {.nonsquare_percent = 10, .max_order = 3, .max_modes = 8,
                         .max_equations = 30};
    unsigned compared = 0, tight = 0;
    for (uint64_t t = 0; t < 120; t++) {
        char *text = ref_random_model(0x5A3B1ull + t, &o), what[64];
        cr_assert_not_null(text);
        snprintf(what, sizeof what, "random model %llu", (unsigned long long)t);
        chain(text, t * 977 + 1, 8, &compared, &tight, what);
        mdae_free(text);
    }
    cr_log_info("%u versions compared, %u through the seeded rounds", compared, tight);
    cr_assert_gt(compared, 500);
    cr_assert_gt(tight, 50);
}

/* The brake, edits as an editor makes them (bench_edit's (a) and (b) on a
 * random car, each from the original text), each version seeded by the
 * last seeded result: the samples the valve's dead modes need are
 * answered from the hint. */
static void brake_chain(int n, unsigned steps, uint64_t seed)
{
    char *text = tm_slurp("brake.mel");
    char label[96];
    snprintf(label, sizeof label, "brake N=%d", n);
    mel_model *hm = parse_n(text, n, label);
    sa_result *hint = NULL;
    cr_assert_eq(sa_analyze(hm, NULL, &hint, NULL), MDAE_OK);
    for (unsigned step = 0; step < steps; step++) {
        int car = (int)(next_random(&seed) % (uint64_t)n) + 1;
        bool guard = next_random(&seed) % 2 == 0;
        const char *from = guard ? "if open[i] then" : "px[i] : equation b[i] = K*x[i];";
        char to[160];
        if (guard)
            snprintf(to, sizeof to, "if open[i] & i <> %d | !open[i] & i == %d then", car, car);
        else
            snprintf(to, sizeof to,
                     "px[i] : equation b[i] = K*x[i] + (if i == %d then der(x[i]) else 0);", car);
        const char *at = strstr(text, from);
        cr_assert_not_null(at);
        char *edited = replaced(text, (size_t)(at - text), strlen(from), to);
        snprintf(label, sizeof label, "brake N=%d, edit %u (car %d, %s)", n, step, car,
                 guard ? "guard" : "derivative");
        mel_model *m = parse_n(edited, n, label);
        sa_method_info mi = {0};
        sa_result *seeded = seeded_and_cold(m, hint, &mi, label);
        cr_assert_not_null(seeded);
        cr_assert(mi.seeded_tight, "%s: not through the seeded rounds", label);
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

Test(sa_probe, a_chain_of_brake_edits_learns_what_the_whole_solve_learns)
{
    brake_chain(12, 12, 0xB12Aull);
    brake_chain(40, 6, 0x40B7ull);
}
