/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_sm_single.c -- the engine's single-mode path
 * (engine/sm.h) against the brute-force reference (tests/ref), which
 * shares nothing with it but the front-end.
 *
 * On every mode of 520 random models (up to 10 mode variables, 60
 * equations, orders up to 3, some non-square) and of the paper models:
 * validity, activity, singularity, canonical offsets c and d, the DM parts,
 * and that the chosen matching is a perfect matching of the reference's
 * maximum weight. The lexicographic choice is checked against an
 * exhaustive search over all perfect matchings of small random graphs, in
 * random edge orders. Bad graphs are refused; allocation failures are
 * reported, never crashes.
 */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "mdae.h"
#include "mel.h"
#include "ref.h"
#include "sm.h"

#include "fail_alloc.h"
#include "model_files.h"

static size_t compare_model(const mel_model *m, const char *label)
{
    size_t modes = 0;
    bool mode[64] = {false};
    uint64_t st = 0x1234;
    uint64_t total = ref_modes_total(m->n_modes, 12, 300);
    for (uint64_t x = 0; x < total; x++) {
        ref_modes_at(x, m->n_modes, 12, &st, mode);
        sm_mode v;
        ref_mode rm;
        cr_assert_eq(sm_model_mode(m, mode, &v), MDAE_OK, "%s", label);
        cr_assert_eq(ref_mode_compute(m, mode, &rm), MDAE_OK);
        cr_assert_eq(v.valid, rm.valid, "%s mode %llu: valid", label, (unsigned long long)x);
        if (!rm.valid) { /* nothing else is defined in an invalid mode */
            for (uint32_t i = 0; i < m->n_equations; i++)
                cr_assert_eq(v.c[i], -1);
            ref_mode_close(&rm);
            sm_mode_close(&v);
            continue;
        }
        cr_assert_eq(v.singular, rm.singular, "%s mode %llu: singular", label,
                     (unsigned long long)x);
        for (uint32_t i = 0; i < m->n_equations; i++) {
            cr_assert_eq(v.eq_active[i], rm.eq_active[i], "%s: active %s", label,
                         m->equations[i].name);
            cr_assert_eq(v.c[i], rm.c[i], "%s mode %llu: c(%s)", label, (unsigned long long)x,
                         m->equations[i].name);
            cr_assert_eq(v.overdetermined[i], rm.overdetermined[i], "%s mode %llu: over %s",
                         label, (unsigned long long)x, m->equations[i].name);
        }
        for (uint32_t j = 0; j < m->n_variables; j++) {
            cr_assert_eq(v.var_active[j], rm.var_active[j]);
            cr_assert_eq(v.d[j], rm.d[j], "%s mode %llu: d(%s)", label, (unsigned long long)x,
                         m->variables[j].name);
            cr_assert_eq(v.underdetermined[j], rm.underdetermined[j],
                         "%s mode %llu: under %s", label, (unsigned long long)x,
                         m->variables[j].name);
        }
        if (rm.valid && !rm.singular) {
            long w = -1;
            const char *why = NULL;
            cr_assert(ref_mode_check_matching(&rm, v.matched_var, &w, &why), "%s: %s", label,
                      why);
            cr_assert_eq(w, rm.weight, "%s mode %llu: weight", label, (unsigned long long)x);
        }
        modes += rm.valid;
        ref_mode_close(&rm);
        sm_mode_close(&v);
    }
    return modes;
}

static void random_models(uint64_t first, uint64_t n, const ref_random_opts *o)
{
    size_t modes = 0;
    for (uint64_t s = first; s < first + n; s++) {
        char *text = ref_random_model(s, o);
        cr_assert_not_null(text);
        mel_model *m = NULL;
        cr_assert_eq(mel_model_parse(text, strlen(text), NULL, &m, NULL), MDAE_OK);
        char label[64];
        snprintf(label, sizeof label, "random model %llu", (unsigned long long)s);
        modes += compare_model(m, label);
        mel_model_free(m);
        mdae_free(text);
    }
    cr_assert_gt(modes, n, "the models have valid modes");
}

Test(sm_single, agrees_with_the_reference_on_random_models)
{
    ref_random_opts o = {.max_modes = 6, .max_equations = 20, .nonsquare_percent = 20};
    random_models(1, 400, &o);
}

Test(sm_single, agrees_with_the_reference_on_larger_random_models)
{
    ref_random_opts o = {.max_modes = 10, .max_equations = 60, .max_order = 3,
                         .nonsquare_percent = 15};
    random_models(1000, 120, &o);
}

Test(sm_single, agrees_with_the_reference_on_the_paper_models)
{
    static const struct {
        const char *file;
        long n;
    } files[] = {{"rldc2.mel", 0},          {"water_tank.mel", 0},
                 {"two_equations.mel", 0},  {"clutch.mel", 0},
                 {"cup_and_ball.mel", 0},   {"singular_simple.mel", 0},
                 {"brake.mel", 4},          {"building_compressible.mel", 2},
                 {"rldc_chain.mel", 5}};
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        char *text = tm_slurp(files[k].file);
        mel_define def = {"N", files[k].n};
        mel_options mo = {0};
        mo.defines = &def;
        mo.n_defines = files[k].n > 0;
        mel_model *m = NULL;
        cr_assert_eq(mel_model_parse(text, strlen(text), &mo, &m, NULL), MDAE_OK, "%s",
                     files[k].file);
        compare_model(m, files[k].file);
        mel_model_free(m);
        free(text);
    }
}

/* ---- The lexicographic choice ------------------------------------------------------ */

typedef struct small {
    uint32_t n;            /* rows = cols */
    size_t first[9];
    uint32_t col[64];
    int sigma[64];
    uint32_t order[64];    /* edge indices, by priority */
    size_t ne;
} small;

/* A random graph of 1 to 6 rows into g (zeroed first): n_cols = rows, or
 * rows + 0..spread-1 when spread > 0 (one draw more); each (row, column) an
 * edge with probability percent / 100, of weight 0..2. */
static uint32_t random_small(uint64_t *st, int percent, uint32_t spread, small *g)
{
    *g = (small){0};
    g->n = 1 + (uint32_t)(ref_rand_next(st) % 6);
    uint32_t n_cols = g->n + (spread > 0 ? (uint32_t)(ref_rand_next(st) % spread) : 0);
    for (uint32_t r = 0; r < g->n; r++) {
        g->first[r] = g->ne;
        for (uint32_t j = 0; j < n_cols; j++)
            if (ref_rand_next(st) % 100 < (uint64_t)percent) {
                g->col[g->ne] = j;
                g->sigma[g->ne] = (int)(ref_rand_next(st) % 3);
                g->ne++;
            }
    }
    g->first[g->n] = g->ne;
    return n_cols;
}

/* Among all perfect matchings (rows 0..n-1, column of each), those of
 * maximum weight; the lexicographically smallest edge set in the order,
 * edges false before true. Exhaustive: n <= 6. */
static bool best_exhaustive(const small *g, int *best_edge)
{
    int pick[8], used = 0;
    long best_w = -1;
    bool best_set[64] = {false}, cur_set[64];
    int stack_e[8];
    /* Iterate over all choices of one edge per row. */
    size_t idx[8] = {0};
    for (uint32_t r = 0; r < g->n; r++)
        if (g->first[r] == g->first[r + 1])
            return false;
    for (;;) {
        used = 0;
        bool ok = true;
        long w = 0;
        for (uint32_t r = 0; r < g->n && ok; r++) {
            size_t e = g->first[r] + idx[r];
            int bit = 1 << g->col[e];
            ok = !(used & bit);
            used |= bit;
            w += g->sigma[e];
            stack_e[r] = (int)e;
        }
        if (ok) {
            memset(cur_set, 0, sizeof cur_set);
            for (uint32_t r = 0; r < g->n; r++)
                cur_set[stack_e[r]] = true;
            bool better = w > best_w;
            if (w == best_w) { /* lexicographically smaller in the order? */
                for (size_t k = 0; k < g->ne; k++) {
                    uint32_t e = g->order[k];
                    if (cur_set[e] != best_set[e]) {
                        better = !cur_set[e];
                        break;
                    }
                }
            }
            if (better) {
                best_w = w;
                memcpy(best_set, cur_set, sizeof best_set);
                memcpy(pick, stack_e, sizeof pick);
            }
        }
        uint32_t r = 0; /* next combination */
        while (r < g->n && ++idx[r] == g->first[r + 1] - g->first[r])
            idx[r++] = 0;
        if (r == g->n)
            break;
    }
    if (best_w < 0)
        return false;
    for (uint32_t r = 0; r < g->n; r++)
        best_edge[r] = pick[r];
    return true;
}

Test(sm_single, the_choice_is_the_smallest_maximum_weight_matching_in_the_order)
{
    uint64_t st = 77;
    sm_ws *ws = sm_ws_new();
    cr_assert_not_null(ws);
    size_t perfect = 0;
    for (int t = 0; t < 3000; t++) {
        small g;
        random_small(&st, 55, 0, &g);
        for (size_t e = 0; e < g.ne; e++)
            g.order[e] = (uint32_t)e;
        for (size_t e = g.ne; e > 1; e--) { /* a random priority */
            size_t k = ref_rand_next(&st) % e;
            uint32_t tmp = g.order[e - 1];
            g.order[e - 1] = g.order[k];
            g.order[k] = tmp;
        }
        int want[8];
        bool has = best_exhaustive(&g, want);
        sm_graph sg = {g.n, g.n, g.first, g.col, g.sigma, g.order};
        const sm_solution *s = NULL;
        cr_assert_eq(sm_solve(ws, &sg, &s), MDAE_OK);
        cr_assert_eq(s->perfect, has, "graph %d", t);
        if (!has)
            continue;
        perfect++;
        for (uint32_t r = 0; r < g.n; r++)
            cr_assert_eq(s->row_edge[r], want[r], "graph %d, row %u", t, r);
    }
    cr_assert_gt(perfect, 1000);
    sm_ws_free(ws);
}

/* sm_max_matching (the union graph's blocks, sa_blocks.c): a matching, of
 * sm_solve's cardinality, perfect when sm_solve's is; rectangular too. */
Test(sm_single, the_maximum_matching_alone_has_the_cardinality_of_sm_solve)
{
    uint64_t st = 91;
    sm_ws *ws = sm_ws_new(), *ws2 = sm_ws_new();
    cr_assert(ws != NULL && ws2 != NULL);
    size_t perfect = 0, deficient = 0;
    for (int t = 0; t < 3000; t++) {
        small g;
        uint32_t n_cols = random_small(&st, 40, 2, &g);
        sm_graph sg = {g.n, n_cols, g.first, g.col, g.sigma, NULL};
        const sm_solution *want = NULL, *got = NULL;
        cr_assert_eq(sm_solve(ws, &sg, &want), MDAE_OK);
        sg.sigma = NULL; /* weights are not read */
        cr_assert_eq(sm_max_matching(ws2, &sg, &got), MDAE_OK);
        cr_assert_eq(got->max_matching, want->max_matching, "graph %d", t);
        cr_assert_eq(got->perfect, want->perfect, "graph %d", t);
        bool used[8] = {false};
        uint32_t size = 0;
        for (uint32_t r = 0; r < g.n; r++) {
            int e = got->row_edge[r];
            if (e < 0)
                continue;
            cr_assert(e >= (int)g.first[r] && e < (int)g.first[r + 1], "graph %d", t);
            cr_assert(!used[g.col[e]], "graph %d: column %u twice", t, g.col[e]);
            used[g.col[e]] = true;
            size++;
        }
        cr_assert_eq(size, got->max_matching, "graph %d", t);
        perfect += got->perfect;
        deficient += got->max_matching < g.n;
    }
    cr_assert_gt(perfect, 300);
    cr_assert_gt(deficient, 300);
    size_t first[] = {0, 2, 1}; /* decreasing */
    uint32_t col[] = {0, 5};
    sm_graph bad = {2, 2, first, col, NULL, NULL};
    const sm_solution *s = NULL;
    cr_expect_eq(sm_max_matching(ws, &bad, &s), MDAE_E_INVAL);
    size_t first2[] = {0, 1, 2};
    bad = (sm_graph){2, 2, first2, col, NULL, NULL}; /* column out of range */
    cr_expect_eq(sm_max_matching(ws, &bad, &s), MDAE_E_INVAL);
    cr_expect_eq(sm_max_matching(NULL, &bad, &s), MDAE_E_INVAL);
    sm_ws_free(ws);
    sm_ws_free(ws2);
}

/* A random graph of up to 300 rows into first/col (room for 300 * 8
 * edges): as many columns as rows, or rows - 20 .. rows + 20; of three shapes: sparse random
 * (1..4 edges a row), a band (row i: columns i-1..i+2, in a random order,
 * as the building's union graph, where depth-first paths ran long), and
 * dense random over a window. */
static uint32_t random_large(uint64_t *st, uint32_t *n_rows, size_t *first, uint32_t *col)
{
    uint32_t n = 1 + (uint32_t)(ref_rand_next(st) % 300);
    long nc = (long)n + (long)(ref_rand_next(st) % 41) - 20;
    uint32_t n_cols = ref_rand_next(st) % 2 == 0 ? n : nc < 1 ? 1 : (uint32_t)nc; /* square: half */
    int shape = (int)(ref_rand_next(st) % 3);
    size_t ne = 0;
    for (uint32_t r = 0; r < n; r++) {
        first[r] = ne;
        uint32_t k = 1 + (uint32_t)(ref_rand_next(st) % (shape == 2 ? 8 : 4));
        for (uint32_t a = 0; a < k; a++) {
            uint32_t j = shape == 1 ? (r + n_cols - 1 + (uint32_t)(ref_rand_next(st) % 4)) % n_cols
                       : shape == 2 ? (r + (uint32_t)(ref_rand_next(st) % 12)) % n_cols
                                    : (uint32_t)(ref_rand_next(st) % n_cols);
            bool dup = false;
            for (size_t e = first[r]; e < ne; e++)
                dup = dup || col[e] == j;
            if (!dup)
                col[ne++] = j;
        }
    }
    first[n] = ne;
    *n_rows = n;
    return n_cols;
}

/* A matching of g (each row's edge its own, each column once), of size
 * got->max_matching. */
static void check_matching(const sm_graph *g, const sm_solution *got, bool *used, int t)
{
    memset(used, 0, g->n_cols * sizeof *used);
    uint32_t size = 0;
    for (uint32_t r = 0; r < g->n_rows; r++) {
        int e = got->row_edge[r];
        if (e < 0)
            continue;
        cr_assert(e >= (int)g->row_first[r] && e < (int)g->row_first[r + 1], "graph %d", t);
        cr_assert(!used[g->col[e]], "graph %d: column %u twice", t, g->col[e]);
        used[g->col[e]] = true;
        size++;
    }
    cr_assert_eq(size, got->max_matching, "graph %d", t);
}

/* sm_max_matching's breadth-first path against Kuhn's depth-first one
 * (sm__max_matching_kuhn, the path before it) on random graphs of up to
 * 300 rows: both matchings, of the same size, perfect alike. The small
 * graphs' test above checks the size against sm_solve's as well. */
Test(sm_single, the_breadth_first_matching_is_as_large_as_kuhns)
{
    uint64_t st = 4040;
    sm_ws *ws = sm_ws_new(), *ws2 = sm_ws_new();
    size_t *first = malloc(301 * sizeof *first);
    uint32_t *col = malloc(300 * 8 * sizeof *col);
    bool *used = malloc(330 * sizeof *used);
    cr_assert(ws != NULL && ws2 != NULL && first != NULL && col != NULL && used != NULL);
    size_t perfect = 0, deficient = 0;
    for (int t = 0; t < 2000; t++) {
        uint32_t n_rows;
        uint32_t n_cols = random_large(&st, &n_rows, first, col);
        sm_graph sg = {n_rows, n_cols, first, col, NULL, NULL};
        const sm_solution *want = NULL, *got = NULL;
        sm__max_matching_kuhn = true;
        cr_assert_eq(sm_max_matching(ws, &sg, &want), MDAE_OK);
        sm__max_matching_kuhn = false;
        cr_assert_eq(sm_max_matching(ws2, &sg, &got), MDAE_OK);
        cr_assert_eq(got->max_matching, want->max_matching, "graph %d", t);
        cr_assert_eq(got->perfect, want->perfect, "graph %d", t);
        check_matching(&sg, want, used, t);
        check_matching(&sg, got, used, t);
        perfect += got->perfect;
        deficient += got->max_matching < n_rows && got->max_matching < n_cols;
    }
    cr_assert_gt(perfect, 50);
    cr_assert_gt(deficient, 300);
    free(used);
    free(col);
    free(first);
    sm_ws_free(ws);
    sm_ws_free(ws2);
}

/* sm_offsets (a sampled mode's shift, sa_tight.c): sm_solve's offsets and
 * verdict without its choice; its matching perfect, of the same weight, on
 * tight edges. */
Test(sm_single, the_offsets_alone_are_sm_solves)
{
    uint64_t st = 92;
    sm_ws *ws = sm_ws_new(), *ws2 = sm_ws_new();
    cr_assert(ws != NULL && ws2 != NULL);
    size_t perfect = 0, other_matching = 0;
    for (int t = 0; t < 3000; t++) {
        small g;
        random_small(&st, 50, 0, &g);
        sm_graph sg = {g.n, g.n, g.first, g.col, g.sigma, NULL};
        const sm_solution *want = NULL, *got = NULL;
        cr_assert_eq(sm_solve(ws, &sg, &want), MDAE_OK);
        cr_assert_eq(sm_offsets(ws2, &sg, &got), MDAE_OK);
        cr_assert_eq(got->perfect, want->perfect, "graph %d", t);
        cr_assert_eq(got->max_matching, want->max_matching, "graph %d", t);
        if (!got->perfect)
            continue;
        perfect++;
        long long weight = 0;
        bool used[8] = {false};
        for (uint32_t r = 0; r < g.n; r++) {
            cr_assert_eq(got->c[r], want->c[r], "graph %d row %u", t, r);
            int e = got->row_edge[r];
            cr_assert(e >= (int)g.first[r] && e < (int)g.first[r + 1], "graph %d", t);
            cr_assert(!used[g.col[e]], "graph %d: column %u twice", t, g.col[e]);
            used[g.col[e]] = true;
            cr_assert_eq(got->d[g.col[e]] - got->c[r], g.sigma[e], "graph %d: not tight", t);
            weight += g.sigma[e];
            other_matching += e != want->row_edge[r];
        }
        for (uint32_t j = 0; j < g.n; j++)
            cr_assert_eq(got->d[j], want->d[j], "graph %d column %u", t, j);
        cr_assert_eq(weight, want->weight, "graph %d", t);
    }
    cr_assert_gt(perfect, 300);
    cr_assert_gt(other_matching, 0); /* the choice is not made */
    sm_ws_free(ws);
    sm_ws_free(ws2);
}

/* ---- Bad input and allocation failures ----------------------------------------------- */

Test(sm_single, bad_graphs_are_refused)
{
    sm_ws *ws = sm_ws_new();
    const sm_solution *s = NULL;
    size_t first[] = {0, 2, 1}; /* decreasing */
    uint32_t col[] = {0, 1};
    int sigma[] = {0, 0};
    sm_graph g = {2, 2, first, col, sigma, NULL};
    cr_expect_eq(sm_solve(ws, &g, &s), MDAE_E_INVAL);
    size_t first2[] = {0, 1, 2};
    uint32_t col2[] = {0, 5}; /* column out of range */
    g = (sm_graph){2, 2, first2, col2, sigma, NULL};
    cr_expect_eq(sm_solve(ws, &g, &s), MDAE_E_INVAL);
    int neg[] = {0, -1};
    uint32_t col3[] = {0, 1};
    g = (sm_graph){2, 2, first2, col3, neg, NULL};
    cr_expect_eq(sm_solve(ws, &g, &s), MDAE_E_INVAL);
    uint32_t order[] = {0, 7}; /* not an edge */
    g = (sm_graph){2, 2, first2, col3, sigma, order};
    cr_expect_eq(sm_solve(ws, &g, &s), MDAE_E_INVAL);
    cr_expect_eq(sm_solve(NULL, &g, &s), MDAE_E_INVAL);
    /* The empty graph is square and perfect. */
    size_t none[] = {0};
    g = (sm_graph){0, 0, none, NULL, NULL, NULL};
    cr_assert_eq(sm_solve(ws, &g, &s), MDAE_OK);
    cr_expect(s->perfect);
    sm_ws_free(ws);
    cr_expect_eq(sm_model_mode(NULL, NULL, NULL), MDAE_E_INVAL);
}

Test(sm_single, allocation_failures_are_reported)
{
    char *text = tm_slurp("rldc2.mel");
    mel_model *m = NULL;
    cr_assert_eq(mel_model_parse(text, strlen(text), NULL, &m, NULL), MDAE_OK);
    bool mode[2] = {true, false};
    bool done = false;
    mdae_replace_allocator(&counting_allocator);
    for (long n = 0; !done && n < 10000; n++) {
        counting_arm(n);
        sm_mode v;
        int rc = sm_model_mode(m, mode, &v);
        if (rc == MDAE_OK) {
            sm_mode_close(&v);
            done = true;
        } else {
            cr_assert_eq(rc, MDAE_E_NOMEM, "allocation %ld", n);
        }
        cr_assert_eq(live, 0, "allocation %ld: %ld blocks leaked", n, live);
    }
    counting_arm(-1);
    cr_assert(done);
    mel_model_free(m);
    free(text);
}

/* The plain iterative Tarjan walk (sm_sccs before its leaves were made
 * components at once and its walked node kept in locals): the reference
 * its numbering must equal. */
static uint32_t sccs_plain(uint32_t n, const size_t *first, const uint32_t *to, uint32_t *comp)
{
    uint32_t *index = calloc((size_t)n + 1, sizeof *index), *low = calloc((size_t)n + 1, 4);
    uint32_t *stack = calloc((size_t)n + 1, 4), *call = calloc((size_t)n + 1, 4);
    size_t *pos = calloc((size_t)n + 1, sizeof *pos);
    bool *on = calloc((size_t)n + 1, 1);
    cr_assert(index && low && stack && call && pos && on);
    uint32_t nb = 0, next = 0, sp = 0, cs = 0;
    for (uint32_t root = 0; root < n; root++) {
        if (index[root])
            continue;
        call[cs++] = root;
        index[root] = low[root] = ++next;
        pos[root] = first[root];
        stack[sp++] = root;
        on[root] = true;
        while (cs > 0) {
            uint32_t g = call[cs - 1];
            if (pos[g] < first[g + 1]) {
                uint32_t h = to[pos[g]++];
                if (!index[h]) {
                    index[h] = low[h] = ++next;
                    pos[h] = first[h];
                    stack[sp++] = h;
                    on[h] = true;
                    call[cs++] = h;
                } else if (on[h] && index[h] < low[g]) {
                    low[g] = index[h];
                }
                continue;
            }
            cs--;
            if (cs > 0 && low[g] < low[call[cs - 1]])
                low[call[cs - 1]] = low[g];
            if (low[g] == index[g]) {
                uint32_t h;
                do {
                    h = stack[--sp];
                    on[h] = false;
                    comp[h] = nb;
                } while (h != g);
                nb++;
            }
        }
    }
    free(index), free(low), free(stack), free(call), free(pos), free(on);
    return nb;
}

/* sm_sccs numbers the components as the plain walk does, on random
 * digraphs with leaves, self-loops, cycles and long chains (the work
 * arrays filled with garbage first: they need not be cleared). */
Test(sm_single, the_components_are_the_plain_walks)
{
    uint64_t st = 0x5cc5;
    size_t leaves = 0, cyclic = 0;
    for (int t = 0; t < 3000; t++) {
        uint32_t n = 1 + (uint32_t)(ref_rand_next(&st) % (t < 2000 ? 12 : 300));
        uint32_t leaf_pct = (uint32_t)(ref_rand_next(&st) % 90), deg = 1 + (uint32_t)(ref_rand_next(&st) % 4);
        size_t *first = malloc(((size_t)n + 2) * sizeof *first);
        uint32_t *to = malloc(((size_t)n * (deg + 1) + 1) * sizeof *to);
        size_t m = 0;
        for (uint32_t x = 0; x < n; x++) {
            first[x] = m;
            if (ref_rand_next(&st) % 100 < leaf_pct) {
                leaves++;
                continue;
            }
            uint32_t k = (uint32_t)(ref_rand_next(&st) % (deg + 1));
            for (uint32_t a = 0; a < k; a++) /* mostly forward (chains), some back (cycles) */
                to[m++] = ref_rand_next(&st) % 4 == 0 ? (uint32_t)(ref_rand_next(&st) % n)
                                                 : (x + 1 + (uint32_t)(ref_rand_next(&st) % 3)) % n;
        }
        first[n] = m;
        uint32_t *c1 = malloc(((size_t)n + 1) * 4), *c2 = malloc(((size_t)n + 1) * 4);
        uint32_t *index = malloc(((size_t)n + 1) * 4), *low = malloc(((size_t)n + 1) * 4);
        uint32_t *stack = malloc(((size_t)n + 1) * 4), *call = malloc(((size_t)n + 1) * 4);
        size_t *pos = malloc(((size_t)n + 1) * sizeof *pos);
        bool *on = malloc((size_t)n + 1);
        memset(index, 0xa5, ((size_t)n + 1) * 4), memset(on, 0xa5, (size_t)n + 1);
        memset(low, 0x5a, ((size_t)n + 1) * 4), memset(pos, 0x5a, ((size_t)n + 1) * sizeof *pos);
        sm_scc_work wk = {index, low, stack, call, pos, on};
        uint32_t nb1 = sm_sccs(n, first, to, c1, &wk), nb2 = sccs_plain(n, first, to, c2);
        cr_assert_eq(nb1, nb2, "graph %d", t);
        cr_assert(memcmp(c1, c2, (size_t)n * 4) == 0, "graph %d", t);
        cyclic += nb1 < n;
        free(first), free(to), free(c1), free(c2), free(index), free(low), free(stack), free(call),
            free(pos), free(on);
    }
    cr_assert_gt(leaves, 1000);
    cr_assert_gt(cyclic, 500);
}
