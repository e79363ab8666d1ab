/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/ref/test_ref_reference.c -- the brute-force reference checked on its
 * own: hand-computed cases (a 2x2 MWPM, a singular mode's DM parts, RLDC2 of
 * RR-9322 Fig. 6, the index-3 pendulum) and, on small random matrices, against
 * even more naive enumerations (all permutations, all matchings, all offset
 * vectors). The engine is checked against this module in
 * tests/engine/test_sa_vs_ref.c, so this module must be right on its own.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref.h"

#include "model_files.h"

/* ---- Helpers ----------------------------------------------------------------- */

static mel_model *parse(const char *text) {
    mel_model *m = NULL;
    mdae_diags diags;
    mdae_diags_init(&diags);
    int rc = mel_model_parse(text, strlen(text), NULL, &m, &diags);
    if (rc != MDAE_OK) {
        for (size_t k = 0; k < diags.count; k++) {
            char *s = mdae_diag_format(&diags.items[k], "<test>");
            cr_log_error("%s", s ? s : "?");
            mdae_free(s);
        }
    }
    mdae_diags_close(&diags);
    cr_assert_eq(rc, MDAE_OK, "parse failed (%s):\n%s", mdae_err_name(rc), text);
    return m;
}

static mel_model *parse_file(const char *name) {
    char *text = tm_slurp(name);
    mel_model *m = parse(text);
    free(text);
    return m;
}

static uint32_t eq(const mel_model *m, const char *name) {
    long i = mel_model_find_equation(m, name);
    cr_assert_geq(i, 0, "no equation %s", name);
    return (uint32_t)i;
}

static uint32_t var(const mel_model *m, const char *name) {
    long j = mel_model_find_variable(m, name);
    cr_assert_geq(j, 0, "no variable %s", name);
    return (uint32_t)j;
}

/* Analyse mode `bits` (bit k = mode variable k). */
static void analyse(const mel_model *m, uint64_t bits, ref_mode *rm) {
    bool mode[64] = {false};
    ref_mode_from_index(bits, m->n_modes, mode);
    cr_assert_eq(ref_mode_compute(m, mode, rm), MDAE_OK);
}

/* Set the named mode variables of a mode given as "g1=1 g2=0". */
static uint64_t mode_bits(const mel_model *m, const char *spec) {
    uint64_t bits = 0;
    char name[64];
    int val, used;
    while (sscanf(spec, " %63[^=]=%d%n", name, &val, &used) == 2) {
        long k = mel_model_find_mode(m, name);
        cr_assert_geq(k, 0, "no mode variable %s", name);
        if (val) bits |= (uint64_t)1 << k;
        spec += used;
    }
    return bits;
}

/* ---- Hand-checked cases ---------------------------------------------------- */

Test(ref_reference, picks_the_heavier_assignment_of_a_2x2_system) {
    /* sigma = [[1, 0], [2, 2]]: e1-x e2-y weighs 3, e1-y e2-x weighs 2.
     * Pryce: d = (2, 2), c = (1, 0). */
    mel_model *m = parse("x : real; y : real;\n"
                         "e1 : equation der(x) + y = 0;\n"
                         "e2 : equation der(der(x)) + der(der(y)) = 0;\n");
    ref_mode rm;
    analyse(m, 0, &rm);
    cr_assert(rm.valid);
    cr_assert_not(rm.singular);
    cr_assert_eq(rm.weight, 3);
    cr_assert_eq(rm.match[eq(m, "e1")], (int)var(m, "x"));
    cr_assert_eq(rm.match[eq(m, "e2")], (int)var(m, "y"));
    cr_assert_eq(rm.c[eq(m, "e1")], 1);
    cr_assert_eq(rm.c[eq(m, "e2")], 0);
    cr_assert_eq(rm.d[var(m, "x")], 2);
    cr_assert_eq(rm.d[var(m, "y")], 2);
    ref_mode_close(&rm);
    mel_model_free(m);
}

Test(ref_reference, finds_the_dm_parts_of_a_singular_mode) {
    /* e1, e2 both need x1 (one of them is always left out); e3 takes x2 or
     * x3 (one of them is always left out). */
    mel_model *m = parse("x1 : real; x2 : real; x3 : real;\n"
                         "e1 : equation x1 = 0;\n"
                         "e2 : equation der(x1) = 1;\n"
                         "e3 : equation x2 + x3 = 0;\n");
    ref_mode rm;
    analyse(m, 0, &rm);
    cr_assert(rm.valid);
    cr_assert(rm.singular);
    cr_assert_eq(rm.max_matching, 2);
    cr_assert(rm.overdetermined[eq(m, "e1")]);
    cr_assert(rm.overdetermined[eq(m, "e2")]);
    cr_assert_not(rm.overdetermined[eq(m, "e3")]);
    cr_assert_not(rm.underdetermined[var(m, "x1")]);
    cr_assert(rm.underdetermined[var(m, "x2")]);
    cr_assert(rm.underdetermined[var(m, "x3")]);
    for (uint32_t i = 0; i < m->n_equations; i++) cr_assert_eq(rm.c[i], -1);
    for (uint32_t j = 0; j < m->n_variables; j++) cr_assert_eq(rm.d[j], -1);
    ref_mode_close(&rm);
    mel_model_free(m);
}

Test(ref_reference, reads_the_verdicts_of_singular_simple) {
    mel_model *m = parse_file("singular_simple.mel");
    ref_mode rm;
    analyse(m, mode_bits(m, "g=1 h=0"), &rm);
    cr_assert_not(rm.singular);
    cr_assert_eq(rm.match[eq(m, "e2")], (int)var(m, "x"));
    ref_mode_close(&rm);

    analyse(m, mode_bits(m, "g=1 h=1"), &rm);
    cr_assert(rm.singular);
    cr_assert_not(rm.overdetermined[eq(m, "e1")]);
    cr_assert(rm.overdetermined[eq(m, "e2")]);
    cr_assert(rm.overdetermined[eq(m, "e3")]);
    cr_assert_not(rm.underdetermined[var(m, "x")]);
    cr_assert(rm.underdetermined[var(m, "y")]);
    cr_assert(rm.underdetermined[var(m, "z")]);
    ref_mode_close(&rm);

    /* !g: e2 mentions nothing, so it is always unmatched; x, y, z compete
     * for e1 and e3, each can be left out. */
    analyse(m, mode_bits(m, "g=0 h=1"), &rm);
    cr_assert(rm.singular);
    cr_assert(rm.overdetermined[eq(m, "e2")]);
    cr_assert_not(rm.overdetermined[eq(m, "e1")]);
    cr_assert_not(rm.overdetermined[eq(m, "e3")]);
    cr_assert_not(rm.underdetermined[var(m, "x")]); /* e3 has only x */
    cr_assert(rm.underdetermined[var(m, "y")]);
    cr_assert(rm.underdetermined[var(m, "z")]);
    ref_mode_close(&rm);
    mel_model_free(m);
}

Test(ref_reference, matches_rldc2_figure_6_with_both_diodes_passing) {
    /* RR-9322 Fig. 6 (g1 = g2 = true): c = 1 for K3, Z1, Z2 and 0 for the
     * other equations; d = 1 for j1, j2, v1, v2, u1, u2 and 0 for the other
     * unknowns. Only three of L1-j1, L2-j2, C1-v1, C2-v2 fit in one perfect
     * matching (K3 needs v1 or v2), hence weight 3. */
    mel_model *m = parse_file("rldc2.mel");
    ref_mode rm;
    analyse(m, mode_bits(m, "g1=1 g2=1"), &rm);
    cr_assert(rm.valid);
    cr_assert_not(rm.singular);
    cr_assert_eq(rm.n_active_eqs, 14);
    cr_assert_eq(rm.weight, 3);
    static const char *const c1[] = {"K3", "Z1", "Z2"};
    for (uint32_t i = 0; i < m->n_equations; i++) {
        int want = 0;
        for (size_t k = 0; k < 3; k++)
            if (strcmp(m->equations[i].name, c1[k]) == 0) want = 1;
        cr_assert_eq(rm.c[i], want, "c(%s)", m->equations[i].name);
    }
    static const char *const d1[] = {"j1", "j2", "v1", "v2", "u1", "u2"};
    for (uint32_t j = 0; j < m->n_variables; j++) {
        int want = 0;
        for (size_t k = 0; k < 6; k++)
            if (strcmp(m->variables[j].name, d1[k]) == 0) want = 1;
        cr_assert_eq(rm.d[j], want, "d(%s)", m->variables[j].name);
    }
    /* The other three modes are nonsingular too (RR-9322 section 2). */
    for (uint64_t bits = 0; bits < 4; bits++) {
        ref_mode_close(&rm);
        analyse(m, bits, &rm);
        cr_assert(rm.valid);
        cr_assert_not(rm.singular, "mode %llu", (unsigned long long)bits);
    }
    ref_mode_close(&rm);
    mel_model_free(m);
}

Test(ref_reference, gives_the_pendulum_index_3_offsets) {
    /* x'' = lambda x, y'' = lambda y - g, x^2 + y^2 = L^2. sigma: e1: x 2,
     * lam 0; e2: y 2, lam 0; e3: x 0, y 0. Every perfect matching weighs 2
     * (e3 must take x or y). Canonical offsets: c = (0, 0, 2) -- the
     * constraint is differentiated twice, index 3 -- d = (2, 2, 0). */
    mel_model *m = parse("x : real; y : real; lam : real;\n"
                         "pg : real = 9.81; pL : real = 1.0;\n"
                         "e1 : equation der(der(x)) = lam * x;\n"
                         "e2 : equation der(der(y)) = lam * y - pg;\n"
                         "e3 : equation x^2 + y^2 = pL^2;\n");
    ref_mode rm;
    analyse(m, 0, &rm);
    cr_assert_not(rm.singular);
    cr_assert_eq(rm.weight, 2);
    cr_assert_eq(rm.c[eq(m, "e1")], 0);
    cr_assert_eq(rm.c[eq(m, "e2")], 0);
    cr_assert_eq(rm.c[eq(m, "e3")], 2);
    cr_assert_eq(rm.d[var(m, "x")], 2);
    cr_assert_eq(rm.d[var(m, "y")], 2);
    cr_assert_eq(rm.d[var(m, "lam")], 0);
    ref_mode_close(&rm);
    mel_model_free(m);
}

Test(ref_reference, leaves_invalid_modes_empty) {
    mel_model *m = parse("g : boolean; h : boolean; x : real;\n"
                         "invariant g | h;\n"
                         "e : equation x = 0;\n");
    ref_mode rm;
    analyse(m, 0, &rm); /* g = h = false violates the invariant */
    cr_assert_not(rm.valid);
    cr_assert_not(rm.singular);
    cr_assert_eq(rm.n_active_eqs, 0);
    cr_assert_eq(rm.c[0], -1);
    cr_assert_eq(rm.match[0], -1);
    ref_mode_close(&rm);
    analyse(m, 1, &rm);
    cr_assert(rm.valid);
    cr_assert_eq(rm.c[0], 0);
    ref_mode_close(&rm);
    mel_model_free(m);
}

Test(ref_reference, handles_guarded_variables_and_nonsquare_modes) {
    /* Under g: x, y / e1, e2 (square); under !g: x / e1, e3 (2 x 1). */
    mel_model *m = parse("g : boolean; x : real;\n"
                         "if g then y : real; e2 : equation der(y) = x;\n"
                         "else e3 : equation der(x) = 1; end;\n"
                         "e1 : equation x = 2;\n");
    ref_mode rm;
    analyse(m, mode_bits(m, "g=1"), &rm);
    cr_assert_not(rm.singular);
    cr_assert_eq(rm.c[eq(m, "e1")], 0);
    cr_assert_eq(rm.c[eq(m, "e3")], -1);
    cr_assert_eq(rm.d[var(m, "y")], 1);
    ref_mode_close(&rm);
    analyse(m, mode_bits(m, "g=0"), &rm);
    cr_assert(rm.singular);
    cr_assert_not(rm.var_active[var(m, "y")]);
    cr_assert(rm.overdetermined[eq(m, "e1")]);
    cr_assert(rm.overdetermined[eq(m, "e3")]);
    cr_assert_not(rm.underdetermined[var(m, "x")]);
    ref_mode_close(&rm);
    mel_model_free(m);
}

Test(ref_reference, detects_a_variable_used_where_it_does_not_exist) {
    mel_model *m = parse_file("bad_use.mel");
    uint32_t e = 0, v = 0;
    uint64_t x = 0;
    bool checked = false;
    cr_assert_not(ref_model_consistent(m, &checked, &e, &v, &x));
    cr_assert(checked);
    cr_assert_str_eq(m->equations[e].name, "e2");
    cr_assert_str_eq(m->variables[v].name, "y");
    mel_model_free(m);
    m = parse_file("rldc2.mel");
    cr_assert(ref_model_consistent(m, &checked, NULL, NULL, NULL));
    mel_model_free(m);
}

/* ---- Against naive enumerations on random square matrices ------------------ */

#define NMAX 5

typedef struct brute {
    int n;
    int w[NMAX][NMAX]; /* sigma or -1 */
    long best;         /* max weight of a perfect matching, -1 if none */
    int n_best;        /* number of MWPMs stored */
    int best_perm[64][NMAX];
    int max_card;      /* maximum matching cardinality */
    bool row_free[NMAX], col_free[NMAX]; /* left out by some max matching */
} brute;

static void perms(brute *b, int r, bool *used, int *perm, long weight) {
    if (r == b->n) {
        if (weight > b->best) {
            b->best = weight;
            b->n_best = 0;
        }
        if (weight == b->best && b->n_best < 64)
            memcpy(b->best_perm[b->n_best++], perm, sizeof(int) * NMAX);
        return;
    }
    for (int k = 0; k < b->n; k++) {
        if (used[k] || b->w[r][k] < 0) continue;
        used[k] = true;
        perm[r] = k;
        perms(b, r + 1, used, perm, weight + b->w[r][k]);
        used[k] = false;
    }
}

/* All matchings (each row takes a free column or nothing). */
static void matchings(brute *b, int r, bool *used, int *row_col, int card) {
    /* r >= NMAX never holds (n <= NMAX); said so that an optimising gcc
     * does not warn about w[r] past the array after inlining the recursion. */
    if (r == b->n || r >= NMAX) {
        if (card > b->max_card) {
            b->max_card = card;
            memset(b->row_free, 0, sizeof b->row_free);
            memset(b->col_free, 0, sizeof b->col_free);
        }
        if (card == b->max_card) {
            for (int i = 0; i < b->n; i++)
                if (row_col[i] < 0) b->row_free[i] = true;
            for (int k = 0; k < b->n; k++)
                if (!used[k]) b->col_free[k] = true;
        }
        return;
    }
    row_col[r] = -1;
    matchings(b, r + 1, used, row_col, card);
    for (int k = 0; k < b->n; k++) {
        if (used[k] || b->w[r][k] < 0) continue;
        used[k] = true;
        row_col[r] = k;
        matchings(b, r + 1, used, row_col, card + 1);
        used[k] = false;
    }
}

/* A random n x n model: x_j in e_i with probability 1/2 at order 0..3. */
static char *matrix_model(uint64_t *st, int n, brute *b) {
    size_t cap = 4096, len = 0;
    char *s = malloc(cap);
    cr_assert_not_null(s);
    memset(b, 0, sizeof *b);
    b->n = n;
    b->best = -1;
    for (int j = 0; j < n; j++) len += (size_t)snprintf(s + len, cap - len, "x%d : real;\n", j);
    for (int i = 0; i < n; i++) {
        len += (size_t)snprintf(s + len, cap - len, "e%d : equation 0", i);
        for (int j = 0; j < n; j++) {
            b->w[i][j] = -1;
            if (ref_rand_next(st) % 100 < 50) continue;
            int o = (int)(ref_rand_next(st) % 4);
            b->w[i][j] = o;
            len += (size_t)snprintf(s + len, cap - len, " + ");
            for (int k = 0; k < o; k++) len += (size_t)snprintf(s + len, cap - len, "der(");
            len += (size_t)snprintf(s + len, cap - len, "x%d", j);
            for (int k = 0; k < o; k++) len += (size_t)snprintf(s + len, cap - len, ")");
        }
        len += (size_t)snprintf(s + len, cap - len, " = 0;\n");
    }
    bool used[NMAX] = {false};
    int perm[NMAX] = {0};
    perms(b, 0, used, perm, 0);
    int row_col[NMAX];
    b->max_card = -1;
    matchings(b, 0, used, row_col, 0);
    return s;
}

/* Is (c) with d_j = max_i sigma_ij + c_i a dual optimum (sum d - sum c equals
 * the MWPM weight, every column covered)? */
static bool dual_optimal(const brute *b, const int *c) {
    long sum = 0;
    for (int j = 0; j < b->n; j++) {
        int dj = -1;
        for (int i = 0; i < b->n; i++)
            if (b->w[i][j] >= 0 && b->w[i][j] + c[i] > dj) dj = b->w[i][j] + c[i];
        if (dj < 0) return false;
        sum += dj;
    }
    for (int i = 0; i < b->n; i++) sum -= c[i];
    return sum == b->best;
}

/* Every c in [0, lim]^n that is a dual optimum is >= ours, componentwise. */
static void check_smallest(const brute *b, const int *ours, int lim) {
    int c[NMAX] = {0};
    for (;;) {
        if (dual_optimal(b, c))
            for (int i = 0; i < b->n; i++)
                cr_assert_geq(c[i], ours[i], "a smaller dual optimum exists");
        int i = 0;
        while (i < b->n && c[i] == lim) c[i++] = 0;
        if (i == b->n) break;
        c[i]++;
    }
}

Test(ref_reference, agrees_with_enumeration_on_random_matrices) {
    uint64_t st = 20260101;
    int nonsingular = 0, singular = 0;
    for (int t = 0; t < 400; t++) {
        int n = 1 + (int)(ref_rand_next(&st) % NMAX);
        brute b;
        char *text = matrix_model(&st, n, &b);
        mel_model *m = parse(text);
        ref_mode rm;
        analyse(m, 0, &rm);
        /* Variables and equations are declared in index order. */
        cr_assert_eq(rm.singular, b.best < 0, "singular?\n%s", text);
        cr_assert_eq(rm.max_matching, b.max_card, "max matching\n%s", text);
        if (!rm.singular) {
            nonsingular++;
            cr_assert_eq(rm.weight, b.best, "MWPM weight\n%s", text);
            long w = -1;
            cr_assert(ref_mode_check_matching(&rm, rm.match, &w, NULL));
            cr_assert_eq(w, b.best);
            /* Every MWPM gives the same offsets (Pryce). */
            int c[NMAX], d[NMAX];
            for (int k = 0; k < b.n_best; k++) {
                cr_assert_eq(ref_pryce_offsets(&rm, b.best_perm[k], c, d), MDAE_OK);
                for (int i = 0; i < n; i++) cr_assert_eq(c[i], rm.c[i], "%s", text);
                for (int j = 0; j < n; j++) cr_assert_eq(d[j], rm.d[j], "%s", text);
            }
            /* Feasible and tight on the matching. */
            for (int i = 0; i < n; i++) {
                cr_assert_geq(rm.c[i], 0);
                for (int j = 0; j < n; j++)
                    if (b.w[i][j] >= 0) cr_assert_geq(rm.d[j] - rm.c[i], b.w[i][j]);
                cr_assert_eq(rm.d[rm.match[i]] - rm.c[i], b.w[i][rm.match[i]]);
            }
            if (n <= 4) check_smallest(&b, rm.c, 3 * n);
        } else {
            singular++;
            for (int i = 0; i < n; i++)
                cr_assert_eq(rm.overdetermined[i], b.row_free[i], "over e%d\n%s", i, text);
            for (int j = 0; j < n; j++)
                cr_assert_eq(rm.underdetermined[j], b.col_free[j], "under x%d\n%s", j, text);
        }
        ref_mode_close(&rm);
        mel_model_free(m);
        free(text);
    }
    cr_assert_gt(nonsingular, 50);
    cr_assert_gt(singular, 50);
}

Test(ref_reference, offsets_do_not_converge_with_a_non_maximum_matching) {
    /* e1-y e2-x weighs 2 < 3: Pryce's fixpoint must not converge. */
    mel_model *m = parse("x : real; y : real;\n"
                         "e1 : equation der(x) + y = 0;\n"
                         "e2 : equation der(der(x)) + der(der(y)) = 0;\n");
    ref_mode rm;
    analyse(m, 0, &rm);
    int match[2] = {(int)var(m, "y"), (int)var(m, "x")};
    int c[2], d[2];
    cr_assert_eq(ref_pryce_offsets(&rm, match, c, d), MDAE_E_INVAL);
    const char *why = NULL;
    long w = 0;
    cr_assert(ref_mode_check_matching(&rm, match, &w, &why));
    cr_assert_eq(w, 2);
    int bad[2] = {(int)var(m, "x"), (int)var(m, "x")};
    cr_assert_not(ref_mode_check_matching(&rm, bad, NULL, &why));
    cr_assert_str_eq(why, "a variable is matched twice");
    ref_mode_close(&rm);
    mel_model_free(m);
}

/* ---- The random model generator ---------------------------------------------- */

Test(ref_reference, random_models_are_reproducible_and_parse) {
    ref_random_opts o = {.nonsquare_percent = 15};
    int with_modes = 0, guarded_vars = 0, inconsistent = 0;
    for (uint64_t seed = 1; seed <= 300; seed++) {
        char *a = ref_random_model(seed, &o), *b = ref_random_model(seed, &o);
        cr_assert_not_null(a);
        cr_assert_str_eq(a, b);
        mel_model *m = parse(a);
        cr_assert_leq(m->n_modes, 4);
        cr_assert_geq(m->n_equations, 1);
        with_modes += m->n_modes > 0;
        for (uint32_t j = 0; j < m->n_variables; j++)
            guarded_vars += m->variables[j].guard->op != MEL_G_TRUE;
        inconsistent += !ref_model_consistent(m, NULL, NULL, NULL, NULL);
        mel_model_free(m);
        mdae_free(a);
        mdae_free(b);
    }
    cr_assert_gt(with_modes, 150);
    cr_assert_gt(guarded_vars, 30);
    cr_assert_eq(inconsistent, 0, "models without `violate` must be consistent");

    /* With `violate`, most models use a variable outside its guard. */
    o.violate = true;
    inconsistent = 0;
    for (uint64_t seed = 1; seed <= 100; seed++) {
        char *a = ref_random_model(seed, &o);
        mel_model *m = parse(a);
        inconsistent += !ref_model_consistent(m, NULL, NULL, NULL, NULL);
        mel_model_free(m);
        mdae_free(a);
    }
    cr_assert_gt(inconsistent, 50);
}

/* ---- Block triangular form ---------------------------------------------------- */

Test(ref_reference, finds_the_rldc2_blocks_of_figure_8) {
    /* RR-9322 Fig. 7: with both diodes passing, K1, C1, K3 (differentiated)
     * and C2 form the only cycle; every other equation is a block alone. */
    mel_model *m = parse_file("rldc2.mel");
    ref_mode rm;
    analyse(m, mode_bits(m, "g1=1 g2=1"), &rm);
    ref_blocks b;
    cr_assert_eq(ref_mode_blocks(&rm, &b), MDAE_OK);
    cr_assert_eq(b.n_blocks, 11);
    int big = b.block_of_eq[eq(m, "K1")];
    cr_assert_eq(b.block_of_eq[eq(m, "C1")], big);
    cr_assert_eq(b.block_of_eq[eq(m, "K3")], big);
    cr_assert_eq(b.block_of_eq[eq(m, "C2")], big);
    for (uint32_t i = 0; i < m->n_equations; i++) {
        cr_assert_geq(b.block_of_eq[i], 0);
        if (b.block_of_eq[i] == big) continue;
        for (uint32_t k = 0; k < m->n_equations; k++)
            if (k != i) cr_assert_neq(b.block_of_eq[k], b.block_of_eq[i]);
    }
    /* Topological numbering: dependencies first. */
    for (uint32_t x = 0; x < b.n_blocks; x++)
        for (uint32_t y = 0; y < b.n_blocks; y++)
            if (b.dep[x * b.n_blocks + y]) cr_assert_lt(x, y);
    ref_blocks_close(&b);
    ref_mode_close(&rm);
    mel_model_free(m);
}

Test(ref_reference, blocks_do_not_depend_on_the_chosen_matching) {
    /* Re-run the BTF with every MWPM of random matrices: same partition. */
    uint64_t st = 777;
    int checked = 0;
    for (int t = 0; t < 200; t++) {
        int n = 2 + (int)(ref_rand_next(&st) % (NMAX - 1));
        brute bf;
        char *text = matrix_model(&st, n, &bf);
        mel_model *m = parse(text);
        ref_mode rm;
        analyse(m, 0, &rm);
        if (!rm.singular) {
            ref_blocks b0;
            cr_assert_eq(ref_mode_blocks(&rm, &b0), MDAE_OK);
            int *saved = malloc(sizeof(int) * (size_t)n);
            memcpy(saved, rm.match, sizeof(int) * (size_t)n);
            for (int k = 0; k < bf.n_best; k++) {
                memcpy(rm.match, bf.best_perm[k], sizeof(int) * (size_t)n);
                ref_blocks b1;
                cr_assert_eq(ref_mode_blocks(&rm, &b1), MDAE_OK);
                cr_assert_eq(b1.n_blocks, b0.n_blocks, "%s", text);
                for (int i = 0; i < n; i++)
                    for (int i2 = 0; i2 < n; i2++)
                        cr_assert_eq(b0.block_of_eq[i] == b0.block_of_eq[i2],
                                     b1.block_of_eq[i] == b1.block_of_eq[i2], "%s", text);
                ref_blocks_close(&b1);
                checked++;
            }
            memcpy(rm.match, saved, sizeof(int) * (size_t)n);
            free(saved);
            ref_blocks_close(&b0);
        }
        ref_mode_close(&rm);
        mel_model_free(m);
        free(text);
    }
    cr_assert_gt(checked, 100);
}

/* DM parts of non-square modes (nr equations, nc variables), against all
 * matchings enumerated. */
typedef struct rect {
    int nr, nc;
    int w[NMAX][NMAX];
    int max_card;
    bool row_free[NMAX], col_free[NMAX];
} rect;

static void rect_matchings(rect *b, int r, bool *used, int *row_col, int card) {
    if (r == b->nr || r >= NMAX) { /* r >= NMAX: as in matchings() */
        if (card > b->max_card) {
            b->max_card = card;
            memset(b->row_free, 0, sizeof b->row_free);
            memset(b->col_free, 0, sizeof b->col_free);
        }
        if (card == b->max_card) {
            for (int i = 0; i < b->nr; i++)
                if (row_col[i] < 0) b->row_free[i] = true;
            for (int k = 0; k < b->nc; k++)
                if (!used[k]) b->col_free[k] = true;
        }
        return;
    }
    row_col[r] = -1;
    rect_matchings(b, r + 1, used, row_col, card);
    for (int k = 0; k < b->nc; k++) {
        if (used[k] || b->w[r][k] < 0) continue;
        used[k] = true;
        row_col[r] = k;
        rect_matchings(b, r + 1, used, row_col, card + 1);
        used[k] = false;
    }
}

Test(ref_reference, finds_the_dm_parts_of_non_square_modes) {
    uint64_t st = 4242;
    int checked = 0;
    for (int t = 0; t < 300; t++) {
        rect b;
        memset(&b, 0, sizeof b);
        b.nr = 1 + (int)(ref_rand_next(&st) % NMAX);
        b.nc = 1 + (int)(ref_rand_next(&st) % NMAX);
        char text[4096];
        size_t len = 0;
        for (int j = 0; j < b.nc; j++)
            len += (size_t)snprintf(text + len, sizeof text - len, "x%d : real;\n", j);
        for (int i = 0; i < b.nr; i++) {
            len += (size_t)snprintf(text + len, sizeof text - len, "e%d : equation 0", i);
            for (int j = 0; j < b.nc; j++) {
                b.w[i][j] = -1;
                if (ref_rand_next(&st) % 100 < 60) continue;
                b.w[i][j] = 0;
                len += (size_t)snprintf(text + len, sizeof text - len, " + x%d", j);
            }
            len += (size_t)snprintf(text + len, sizeof text - len, " = 0;\n");
        }
        bool used[NMAX] = {false};
        int row_col[NMAX];
        b.max_card = -1;
        rect_matchings(&b, 0, used, row_col, 0);
        mel_model *m = parse(text);
        ref_mode rm;
        analyse(m, 0, &rm);
        bool square_perfect = b.nr == b.nc && b.max_card == b.nr;
        cr_assert_eq(rm.singular, !square_perfect, "%s", text);
        cr_assert_eq(rm.max_matching, b.max_card, "%s", text);
        if (rm.singular) {
            for (int i = 0; i < b.nr; i++)
                cr_assert_eq(rm.overdetermined[i], b.row_free[i], "over e%d\n%s", i, text);
            for (int j = 0; j < b.nc; j++)
                cr_assert_eq(rm.underdetermined[j], b.col_free[j], "under x%d\n%s", j, text);
            checked += b.nr != b.nc;
        }
        ref_mode_close(&rm);
        mel_model_free(m);
    }
    cr_assert_gt(checked, 100);
}
