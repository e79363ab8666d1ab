/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_cdg_papers.c -- the claims of the papers about blocks
 * and the conditional dependency graph, checked on the corpus models:
 * the Water Tank (RR-9459 4.1, Fig. 10), TwoEquations (RR-9459 4.4, Fig. 11),
 * RLDC2 (RR-9322 3.3, Fig. 7-10); a tiny hand-checked model whose two modes
 * have different blocks and a guarded edge; report guards vs the per-mode
 * view; DOT well-formedness; invalid and singular modes; node limit and
 * cancellation.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bdd.h>

#include "cdg.h"
#include "sa.h"

#include "model_files.h"

static void begin(void) { cr_assert_eq(sa_begin(NULL), MDAE_OK); }
static void end(void) { sa_end(); }

TestSuite(cdg_papers, .init = begin, .fini = end, .timeout = 300);

/* ---- Helpers ------------------------------------------------------------------ */

typedef struct fixture {
    char *text;
    mel_model *m;
    sa_result *r;
    cdg_graph *g;
} fixture;

static void load_text(fixture *fx, char *text, long long N)
{
    memset(fx, 0, sizeof *fx);
    fx->text = text;
    mel_define def;
    mel_options o = tm_options_n(&def, N);
    mdae_diags d;
    mdae_diags_init(&d);
    cr_assert_eq(mel_model_parse(text, strlen(text), &o, &fx->m, &d), MDAE_OK);
    cr_assert_eq(sa_analyze(fx->m, NULL, &fx->r, &d), MDAE_OK);
    cr_assert_eq(cdg_build(fx->r, NULL, &fx->g, &d), MDAE_OK);
    mdae_diags_close(&d);
}

static void load(fixture *fx, const char *name) { load_text(fx, tm_slurp(name), -1); }

static void unload(fixture *fx)
{
    cdg_graph_free(fx->g);
    sa_result_free(fx->r);
    mel_model_free(fx->m);
    free(fx->text);
    memset(fx, 0, sizeof *fx);
}

/* mode from "a=1,b=0" (unlisted: false). */
static void set_mode(const fixture *fx, bool *mode, const char *spec)
{
    memset(mode, 0, fx->m->n_modes + 1);
    for (const char *p = spec; *p;) {
        size_t n = strcspn(p, "=");
        char name[64];
        cr_assert_lt(n, sizeof name);
        memcpy(name, p, n);
        name[n] = 0;
        long k = mel_model_find_mode(fx->m, name);
        cr_assert_geq(k, 0, "no mode variable %s", name);
        mode[k] = p[n + 1] == '1';
        p += n + 2;
        if (*p == ',')
            p++;
    }
}

static bool has_item(const cdg_item *its, size_t n, const char *name, int order)
{
    for (size_t k = 0; k < n; k++)
        if (!strcmp(its[k].name, name) && its[k].order == order)
            return true;
    return false;
}

/* The active block of `mode` that contains equation `eq`; fails if none. */
static cdg_block block_of(const fixture *fx, const char *spec, const char *eq)
{
    bool mode[64];
    set_mode(fx, mode, spec);
    cdg_mode_view v;
    cr_assert_eq(cdg_graph_mode(fx->g, mode, &v), MDAE_OK);
    cdg_block found = {0};
    bool ok = false;
    for (size_t k = 0; k < v.n_blocks; k++) {
        cdg_block b;
        cr_assert_eq(cdg_graph_block(fx->g, v.blocks[k], &b), MDAE_OK);
        for (size_t q = 0; q < b.n_equations; q++)
            if (!strcmp(b.equations[q].name, eq)) {
                cr_assert(!ok, "equation %s in two blocks of mode %s", eq, spec);
                found = b;
                ok = true;
            }
    }
    cdg_mode_view_close(&v);
    cr_assert(ok, "equation %s in no block of mode %s", eq, spec);
    return found;
}

static size_t n_active_blocks(const fixture *fx, const char *spec)
{
    bool mode[64];
    set_mode(fx, mode, spec);
    cdg_mode_view v;
    cr_assert_eq(cdg_graph_mode(fx->g, mode, &v), MDAE_OK);
    size_t n = v.n_blocks;
    cdg_mode_view_close(&v);
    return n;
}

static bool cube_has(const sa_set *s, uint32_t nm, const bool *mode)
{
    for (size_t q = 0; q < s->n_cubes; q++) {
        bool in = true;
        for (uint32_t k = 0; k < nm && in; k++) {
            signed char b = sa_set_literal(s, q, k);
            in = b < 0 || (b == 1) == mode[k];
        }
        if (in)
            return true;
    }
    return false;
}

/* ---- Water Tank (RR-9459 4.1) ---------------------------------------------- */

Test(cdg_papers, water_tank_el2_is_differentiated_for_x_prime_when_bl_and_solved_for_yl_otherwise)
{
    fixture fx;
    load(&fx, "water_tank.mel");
    cdg_block b = block_of(&fx, "bh=0,bl=1", "el2");
    cr_assert_eq(b.n_equations, 1);
    cr_assert_eq(b.equations[0].order, 1, "el2 is differentiated once when bl");
    cr_assert(has_item(b.unknowns, b.n_unknowns, "x", 1), "el2' computes x' when bl");
    const char *other[] = {"bh=0,bl=0", "bh=1,bl=0"};
    for (size_t k = 0; k < 2; k++) {
        b = block_of(&fx, other[k], "el2");
        cr_assert_eq(b.equations[0].order, 0, "el2 undifferentiated in %s", other[k]);
        cr_assert(has_item(b.unknowns, b.n_unknowns, "yl", 0), "el2 computes yl in %s",
                  other[k]);
    }
    unload(&fx);
}

Test(cdg_papers, water_tank_eh2_computes_yh_exactly_when_not_bh)
{
    fixture fx;
    load(&fx, "water_tank.mel");
    cdg_report *rep;
    cr_assert_eq(cdg_graph_report(fx.g, &rep), MDAE_OK);
    /* Over all blocks: eh2 -> yh exactly in the valid modes with !bh. */
    long bh = mel_model_find_mode(fx.m, "bh");
    for (uint64_t q = 0; q < 4; q++) {
        bool mode[2] = {q & 1, (q >> 1) & 1};
        bool valid = !(mode[0] && mode[1]);
        bool uses = false;
        for (size_t k = 0; k < rep->n_blocks; k++) {
            const cdg_block *b = &rep->blocks[k].block;
            if (has_item(b->equations, b->n_equations, "eh2", 0) &&
                has_item(b->unknowns, b->n_unknowns, "yh", 0) &&
                cube_has(&rep->blocks[k].guard, rep->n_modes, mode))
                uses = true;
        }
        cr_assert_eq(uses, valid && !mode[bh], "mode %d%d", mode[0], mode[1]);
    }
    /* When bh, eh2 is differentiated and constrains x (x' is its unknown). */
    cdg_block b = block_of(&fx, "bh=1,bl=0", "eh2");
    cr_assert_eq(b.equations[0].order, 1);
    cr_assert(has_item(b.unknowns, b.n_unknowns, "x", 1));
    cdg_report_free(rep);
    unload(&fx);
}

Test(cdg_papers, water_tank_dot_reads_like_figure_10)
{
    fixture fx;
    load(&fx, "water_tank.mel");
    char *dot;
    cr_assert_eq(cdg_graph_dot(fx.g, &dot), MDAE_OK);
    /* Guards are minimised modulo the invariant !(bh & bl). */
    cr_assert_not_null(strstr(dot, "[label=\"bl : el2' \xe2\x86\x92 x'\"]"), "%s", dot);
    cr_assert_not_null(strstr(dot, "[label=\"!bl : el2 \xe2\x86\x92 yl\"]"), "%s", dot);
    cr_assert_not_null(strstr(dot, "[label=\"!bh : eh2 \xe2\x86\x92 yh\"]"), "%s", dot);
    cr_assert_not_null(strstr(dot, "[label=\"e0 \xe2\x86\x92 y\"]"), "%s", dot);
    mdae_free(dot);
    unload(&fx);
}

Test(cdg_papers, water_tank_blocks_are_scalar_and_e2_reads_the_corrections)
{
    fixture fx;
    load(&fx, "water_tank.mel");
    cr_assert_eq(cdg_graph_max_block(fx.g), 1, "the Water Tank has no algebraic loop");
    /* 7 equations, 7 blocks in each valid mode (Fig. 10). */
    cr_assert_eq(n_active_blocks(&fx, "bh=0,bl=0"), 7);
    cr_assert_eq(n_active_blocks(&fx, "bh=1,bl=0"), 7);
    cr_assert_eq(n_active_blocks(&fx, "bh=0,bl=1"), 7);
    cr_assert_eq(n_active_blocks(&fx, "bh=1,bl=1"), 0, "bh & bl is invalid");
    cdg_block b = block_of(&fx, "bh=0,bl=0", "e2");
    cr_assert(has_item(b.unknowns, b.n_unknowns, "x", 1));
    cr_assert(has_item(b.reads, b.n_reads, "yh", 0));
    cr_assert(has_item(b.reads, b.n_reads, "yl", 0));
    cr_assert(has_item(b.reads, b.n_reads, "y", 0));
    cr_assert(has_item(b.reads, b.n_reads, "z", 0));
    unload(&fx);
}

/* ---- TwoEquations (RR-9459 4.4) ---------------------------------------------- */

Test(cdg_papers, two_equations_leading_variable_is_x_when_p_and_x_prime_when_not_p)
{
    fixture fx;
    load(&fx, "two_equations.mel");
    cdg_block b = block_of(&fx, "p=1", "e");
    cr_assert_eq(b.n_unknowns, 1);
    cr_assert(has_item(b.unknowns, 1, "x", 0));
    cr_assert_eq(b.equations[0].order, 0);
    b = block_of(&fx, "p=0", "e");
    cr_assert(has_item(b.unknowns, 1, "x", 1));
    cr_assert_eq(b.equations[0].order, 0);
    cr_assert_eq(cdg_graph_n_blocks(fx.g), 2, "p : e -> x and !p : e -> x'");
    cr_assert_eq(cdg_graph_n_edges(fx.g), 0);
    unload(&fx);
}

/* ---- RLDC2 (RR-9322 3.3) ---------------------------------------------------- */

Test(cdg_papers, rldc2_both_diodes_passing_has_the_block_k1_c1_k3p_c2_of_figure_7)
{
    fixture fx;
    load(&fx, "rldc2.mel");
    const char *spec = "g1=1,g2=1";
    cdg_block b = block_of(&fx, spec, "K1");
    cr_assert_eq(b.n_equations, 4, "Fig. 7: the cycle K1, C1, K3', C2");
    cr_assert(has_item(b.equations, 4, "K1", 0));
    cr_assert(has_item(b.equations, 4, "C1", 0));
    cr_assert(has_item(b.equations, 4, "K3", 1));
    cr_assert(has_item(b.equations, 4, "C2", 0));
    /* Offsets of Fig. 6: i1, i2 at order 0, v1, v2 at order 1. */
    cr_assert(has_item(b.unknowns, 4, "i1", 0));
    cr_assert(has_item(b.unknowns, 4, "i2", 0));
    cr_assert(has_item(b.unknowns, 4, "v1", 1));
    cr_assert(has_item(b.unknowns, 4, "v2", 1));
    /* Every other equation is a block of its own (Fig. 8): 1 + 10 blocks. */
    cr_assert_eq(n_active_blocks(&fx, spec), 11);
    /* Z1 and Z2 are differentiated once (Fig. 6) and give u1', u2'. */
    b = block_of(&fx, spec, "Z1");
    cr_assert_eq(b.equations[0].order, 1);
    cr_assert(has_item(b.unknowns, 1, "u1", 1));
    unload(&fx);
}

Test(cdg_papers, rldc2_both_diodes_open_has_a_very_different_structure)
{
    fixture fx;
    load(&fx, "rldc2.mel");
    const char *spec = "g1=0,g2=0";
    /* Fig. 10: the diodes block the capacitor branches (Z gives i1 = i2 = 0),
     * the two RL branches form one loop: index reduction differentiates K1,
     * and K1', K2, K3, K4, L1, L2 are solved together. */
    cdg_block b = block_of(&fx, spec, "K1");
    cr_assert_eq(b.n_equations, 6);
    cr_assert(has_item(b.equations, 6, "K1", 1));
    cr_assert(has_item(b.equations, 6, "L1", 0));
    cr_assert(has_item(b.equations, 6, "L2", 0));
    cr_assert(has_item(b.unknowns, 6, "j1", 1));
    cr_assert(has_item(b.unknowns, 6, "j2", 1));
    b = block_of(&fx, spec, "Z1");
    cr_assert(has_item(b.unknowns, 1, "i1", 1), "Z1' computes i1'");
    b = block_of(&fx, spec, "C1");
    cr_assert(has_item(b.unknowns, 1, "v1", 1));
    cr_assert_eq(n_active_blocks(&fx, spec), 9);
    /* The block of Fig. 7 exists only when both diodes pass. */
    cdg_report *rep;
    cr_assert_eq(cdg_graph_report(fx.g, &rep), MDAE_OK);
    bool seen = false;
    for (size_t k = 0; k < rep->n_blocks; k++)
        if (rep->blocks[k].block.n_equations == 4) {
            cr_assert_str_eq(rep->blocks[k].guard.formula, "g1 & g2");
            seen = true;
        }
    cr_assert(seen);
    cdg_report_free(rep);
    unload(&fx);
}

/* ---- A hand-checked model ---------------------------------------------------------
 * e1 : x + y = 0; e2 : 0 = if g then y else der(x).
 * g:  e2 -> y, then e1 reads y -> x (edge guarded by g).
 * !g: e2 -> x' (x is a state), e1 reads x -> y; no edge.
 * Ids: smallest equation first, then by key (unknown x < y; x' after y). */
static const char *tiny =
    "x : real;\n"
    "y : real;\n"
    "g : boolean = x >= 0;\n"
    "e1 : equation x + y = 0;\n"
    "e2 : equation 0 = if g then y else der(x);\n";

static char *dupstr(const char *s)
{
    char *p = malloc(strlen(s) + 1);
    cr_assert_not_null(p);
    return strcpy(p, s);
}

Test(cdg_papers, tiny_model_has_mode_dependent_blocks_and_a_guarded_edge)
{
    fixture fx;
    load_text(&fx, dupstr(tiny), -1);
    cr_assert_eq(cdg_graph_n_blocks(fx.g), 4);
    cr_assert_eq(cdg_graph_n_edges(fx.g), 1);
    cdg_report *rep;
    cr_assert_eq(cdg_graph_report(fx.g, &rep), MDAE_OK);
    const struct {
        const char *guard, *eq, *unk;
        int eq_order, unk_order;
        const char *read;
    } want[4] = {
        {"g", "e1", "x", 0, 0, "y"},
        {"!g", "e1", "y", 0, 0, "x"},
        {"!g", "e2", "x", 0, 1, NULL},
        {"g", "e2", "y", 0, 0, NULL},
    };
    for (size_t k = 0; k < 4; k++) {
        const cdg_report_block *rb = &rep->blocks[k];
        cr_assert_eq(rb->block.id, k);
        cr_assert_str_eq(rb->guard.formula, want[k].guard, "block %zu", k);
        cr_assert_eq(rb->block.n_equations, 1);
        cr_assert_str_eq(rb->block.equations[0].name, want[k].eq);
        cr_assert_eq(rb->block.equations[0].order, want[k].eq_order);
        cr_assert_str_eq(rb->block.unknowns[0].name, want[k].unk);
        cr_assert_eq(rb->block.unknowns[0].order, want[k].unk_order, "block %zu", k);
        if (want[k].read) {
            cr_assert_eq(rb->block.n_reads, 1);
            cr_assert_str_eq(rb->block.reads[0].name, want[k].read);
            cr_assert_eq(rb->block.reads[0].order, 0);
        } else {
            cr_assert_eq(rb->block.n_reads, 0);
        }
    }
    cr_assert_eq(rep->edges[0].from, 3);
    cr_assert_eq(rep->edges[0].to, 0);
    cr_assert_str_eq(rep->edges[0].guard.formula, "g");
    cdg_report_free(rep);

    bool mode[1] = {true};
    cdg_mode_view v;
    cr_assert_eq(cdg_graph_mode(fx.g, mode, &v), MDAE_OK);
    cr_assert(v.valid && !v.singular);
    cr_assert_eq(v.n_blocks, 2);
    cr_assert_eq(v.blocks[0], 3, "e2 -> y is solved first");
    cr_assert_eq(v.blocks[1], 0);
    cr_assert_eq(v.n_edges, 1);
    cr_assert_eq(v.edges[0], 3);
    cr_assert_eq(v.edges[1], 0);
    cdg_mode_view_close(&v);
    mode[0] = false;
    cr_assert_eq(cdg_graph_mode(fx.g, mode, &v), MDAE_OK);
    cr_assert_eq(v.n_blocks, 2);
    cr_assert_eq(v.blocks[0], 1);
    cr_assert_eq(v.blocks[1], 2);
    cr_assert_eq(v.n_edges, 0);
    cdg_mode_view_close(&v);
    cdg_mode_view_close(&v); /* safe twice */

    char *dot;
    cr_assert_eq(cdg_graph_dot(fx.g, &dot), MDAE_OK);
    cr_assert_str_eq(dot, "digraph cdg {\n"
                          "  node [shape=box];\n"
                          "  b0 [label=\"g : y \xe2\x86\x92 e1 \xe2\x86\x92 x\"];\n"
                          "  b1 [label=\"!g : x \xe2\x86\x92 e1 \xe2\x86\x92 y\"];\n"
                          "  b2 [label=\"!g : e2 \xe2\x86\x92 x'\"];\n"
                          "  b3 [label=\"g : e2 \xe2\x86\x92 y\"];\n"
                          "  b3 -> b0 [label=\"g\"];\n"
                          "}\n");
    mdae_free(dot);
    unload(&fx);
}

/* ---- Report vs view, DOT, special modes -------------------------------------------- */

static const char *small_models[] = {"rldc2.mel", "water_tank.mel", "two_equations.mel",
                                     "clutch.mel", "cup_and_ball.mel", "singular_simple.mel"};

Test(cdg_papers, report_guards_hold_exactly_in_the_valid_modes_where_the_view_lists_the_block)
{
    for (size_t f = 0; f < sizeof small_models / sizeof *small_models; f++) {
        fixture fx;
        load(&fx, small_models[f]);
        cdg_report *rep;
        cr_assert_eq(cdg_graph_report(fx.g, &rep), MDAE_OK);
        uint32_t nm = fx.m->n_modes;
        for (uint64_t q = 0; q < (1ull << nm); q++) {
            bool mode[16];
            for (uint32_t k = 0; k < nm; k++)
                mode[k] = (q >> k) & 1;
            cdg_mode_view v;
            cr_assert_eq(cdg_graph_mode(fx.g, mode, &v), MDAE_OK);
            if (!v.valid) { /* guards are exact on valid modes only (cdg.h) */
                cdg_mode_view_close(&v);
                continue;
            }
            for (size_t k = 0; k < rep->n_blocks; k++) {
                bool listed = false;
                for (size_t a = 0; a < v.n_blocks; a++)
                    listed |= v.blocks[a] == k;
                cr_assert_eq(cube_has(&rep->blocks[k].guard, nm, mode), listed, "%s block %zu",
                             small_models[f], k);
            }
            for (size_t k = 0; k < rep->n_edges; k++) {
                bool listed = false;
                for (size_t a = 0; a < v.n_edges; a++)
                    listed |= v.edges[2 * a] == rep->edges[k].from &&
                              v.edges[2 * a + 1] == rep->edges[k].to;
                cr_assert_eq(cube_has(&rep->edges[k].guard, nm, mode), listed);
            }
            cdg_mode_view_close(&v);
        }
        cdg_report_free(rep);
        unload(&fx);
    }
}

Test(cdg_papers, dot_output_is_well_formed)
{
    for (size_t f = 0; f < sizeof small_models / sizeof *small_models; f++) {
        fixture fx;
        load(&fx, small_models[f]);
        char *dot;
        cr_assert_eq(cdg_graph_dot(fx.g, &dot), MDAE_OK);
        cr_assert_eq(strncmp(dot, "digraph cdg {\n", 14), 0);
        size_t len = strlen(dot);
        cr_assert_str_eq(dot + len - 2, "}\n");
        size_t nb = cdg_graph_n_blocks(fx.g), ne = cdg_graph_n_edges(fx.g);
        size_t vertices = 0, edges = 0;
        for (char *line = dot; *line;) {
            char *eol = strchr(line, '\n');
            cr_assert_not_null(eol, "lines end with a newline");
            size_t quotes = 0;
            for (char *p = line; p < eol; p++)
                quotes += *p == '"' && p[-1] != '\\';
            cr_assert_eq(quotes % 2, 0, "balanced quotes: %.*s", (int)(eol - line), line);
            unsigned a, b;
            if (sscanf(line, "  b%u -> b%u", &a, &b) == 2) {
                cr_assert(a < nb && b < nb && a != b);
                edges++;
            } else if (sscanf(line, "  b%u [label=", &a) == 1) {
                cr_assert_eq(a, vertices, "vertices in id order");
                vertices++;
            }
            line = eol + 1;
        }
        cr_assert_eq(vertices, nb, "%s", small_models[f]);
        cr_assert_eq(edges, ne, "%s", small_models[f]);
        mdae_free(dot);
        unload(&fx);
    }
}

Test(cdg_papers, singular_and_invalid_modes_have_no_blocks)
{
    fixture fx;
    load(&fx, "singular_simple.mel"); /* nonsingular only when g & !h */
    bool mode[8];
    for (int q = 0; q < 4; q++) {
        mode[0] = q & 1;
        mode[1] = (q >> 1) & 1;
        long g = mel_model_find_mode(fx.m, "g"), h = mel_model_find_mode(fx.m, "h");
        bool nonsingular = mode[g] && !mode[h];
        cdg_mode_view v;
        cr_assert_eq(cdg_graph_mode(fx.g, mode, &v), MDAE_OK);
        cr_assert(v.valid);
        cr_assert_eq(v.singular, !nonsingular);
        cr_assert_eq(v.n_blocks > 0, nonsingular);
        cdg_mode_view_close(&v);
    }
    unload(&fx);
    load(&fx, "water_tank.mel");
    set_mode(&fx, mode, "bh=1,bl=1");
    cdg_mode_view v;
    cr_assert_eq(cdg_graph_mode(fx.g, mode, &v), MDAE_OK);
    cr_assert(!v.valid);
    cr_assert_eq(v.n_blocks, 0);
    cr_assert_eq(v.n_edges, 0);
    cdg_mode_view_close(&v);
    unload(&fx);
}

Test(cdg_papers, bad_arguments_are_rejected)
{
    fixture fx;
    load(&fx, "two_equations.mel");
    cdg_graph *g = NULL;
    cr_assert_eq(cdg_build(NULL, NULL, &g, NULL), MDAE_E_INVAL);
    cr_assert_eq(cdg_build(fx.r, NULL, NULL, NULL), MDAE_E_INVAL);
    cdg_block b;
    cr_assert_eq(cdg_graph_block(fx.g, 2, &b), MDAE_E_INVAL);
    cr_assert_eq(cdg_graph_edge(fx.g, 0, NULL, NULL), MDAE_E_INVAL);
    cdg_mode_view v;
    cr_assert_eq(cdg_graph_mode(fx.g, NULL, &v), MDAE_E_INVAL, "the model has a mode variable");
    cdg_graph_free(NULL);
    cdg_report_free(NULL);
    cdg_mode_view_close(NULL);
    unload(&fx);
}

/* ---- Limits and cancellation ------------------------------------------------------ */

static int cancel_at_blocks(void *ctx, const char *phase, size_t done, size_t total)
{
    (void)done;
    (void)total;
    int *seen = ctx;
    if (!strcmp(phase, "blocks")) {
        (*seen)++;
        return 1;
    }
    return 0;
}

Test(cdg_papers, progress_callback_cancels_the_build)
{
    fixture fx;
    load(&fx, "rldc2.mel");
    int seen = 0;
    sa_options opt = {.progress = cancel_at_blocks, .progress_ctx = &seen};
    cdg_graph *g = NULL;
    cr_assert_eq(cdg_build(fx.r, &opt, &g, NULL), MDAE_E_CANCELED);
    cr_assert_null(g);
    cr_assert_eq(seen, 1);
    /* The manager is still usable. */
    cr_assert_eq(cdg_build(fx.r, NULL, &g, NULL), MDAE_OK);
    cr_assert_eq(cdg_graph_n_blocks(g), cdg_graph_n_blocks(fx.g));
    cdg_graph_free(g);
    unload(&fx);
}

Test(cdg_papers, node_limit_fails_cleanly_and_the_manager_recovers)
{
    fixture fx;
    char *text = tm_slurp("building_incompressible.mel");
    load_text(&fx, text, 2);
    size_t nb = cdg_graph_n_blocks(fx.g);
    cr_assert_eq(sa_set_node_limit(100), MDAE_OK);
    mdae_diags d;
    mdae_diags_init(&d);
    cdg_graph *g = NULL;
    cr_assert_eq(cdg_build(fx.r, NULL, &g, &d), MDAE_E_BDD_LIMIT);
    cr_assert_null(g);
    cr_assert_geq(d.errors, 1);
    /* issue 36: the limit names itself and is located at an equation */
    const mdae_diag *lim = mdae_diags_find_limit(&d);
    cr_assert_not_null(lim);
    cr_expect_eq(lim->limit, MDAE_LIMIT_BDD_NODES);
    cr_expect_eq(lim->limit_value, 100);
    cr_expect_neq(lim->where.start.line, 0, "located");
    cr_expect(strstr(lim->message, "(limit bdd.node_limit = 100; raise it with --node-limit N "
                                   "or bdd.node_limit in mdaed.json)") != NULL,
              "%s", lim->message);
    mdae_diags_close(&d);
    cr_assert_eq(sa_set_node_limit(0), MDAE_OK);
    cr_assert_eq(cdg_build(fx.r, NULL, &g, NULL), MDAE_OK);
    cr_assert_eq(cdg_graph_n_blocks(g), nb);
    cdg_graph_free(g);
    unload(&fx);
}

Test(cdg_papers, a_graph_past_its_size_limits_is_refused_with_the_limit_named)
{
    fixture fx;
    load(&fx, "rldc2.mel");
    size_t nb = cdg_graph_n_blocks(fx.g), ne = cdg_graph_n_edges(fx.g);
    cr_assert_gt(ne, 1);
    static const struct {
        size_t edges, items;
        const char *says, *note;
        int limit;
    } cases[] = {{1, 0, "more than 1 edges", "(limit CDG_MAX_EDGES = 1, fixed in the engine)",
                  MDAE_LIMIT_GRAPH_EDGES},
                 {0, 4, "identities exceed 4 items",
                  "(limit CDG_MAX_KEY_INTS = 4, fixed in the engine)", MDAE_LIMIT_GRAPH_ITEMS}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        cdg_set_limits(cases[k].edges, cases[k].items);
        mdae_diags d;
        mdae_diags_init(&d);
        cdg_graph *g = NULL;
        cr_assert_eq(cdg_build(fx.r, NULL, &g, &d), MDAE_E_LIMIT);
        cr_assert_null(g);
        cr_assert_eq(d.errors, 1);
        cr_assert(strstr(d.items[0].message, cases[k].says) != NULL, "%s",
                  d.items[0].message);
        /* issue 36: named, and located at an equation of the part that
         * reached it (named in the message too) */
        const mdae_diag *dg = &d.items[0];
        cr_expect_eq(dg->limit, cases[k].limit);
        cr_expect(strstr(dg->message, cases[k].note) != NULL, "%s", dg->message);
        cr_expect_neq(dg->where.start.line, 0, "located: %s", dg->message);
        long e = -1;
        for (uint32_t i = 0; i < fx.m->n_equations && e < 0; i++)
            if (fx.m->equations[i].where.start.offset == dg->where.start.offset)
                e = (long)i;
        cr_assert_geq(e, 0, "at an equation: %s", dg->message);
        cr_expect(strstr(dg->message, fx.m->equations[e].name) != NULL, "%s", dg->message);
        mdae_diags_close(&d);
    }
    cdg_set_limits(0, 0); /* the defaults again: the same graph as before */
    cdg_graph *g = NULL;
    cr_assert_eq(cdg_build(fx.r, NULL, &g, NULL), MDAE_OK);
    cr_assert_eq(cdg_graph_n_blocks(g), nb);
    cr_assert_eq(cdg_graph_n_edges(g), ne);
    cdg_graph_free(g);
    unload(&fx);
}

/* Issue 40: the blocks' guards are kept exact on the valid modes only
 * (cdg_build.c, emit; cdg_int.h, bguard). The compressible building's
 * invariants make ok a chain through every room, and a guard masked by it
 * copied the chain above its room: 4 N^2 nodes kept with the graph
 * (161,785 at N = 200), which every later operation and garbage
 * collection paid for. */
Test(cdg_papers, building_block_guards_do_not_copy_the_valid_modes_chain)
{
    char *text = tm_slurp("building_compressible.mel");
    mel_define def;
    mel_options o = tm_options_n(&def, 200);
    mdae_diags d;
    mdae_diags_init(&d);
    mel_model *m = NULL;
    sa_result *r = NULL;
    cdg_graph *g = NULL;
    cr_assert_eq(mel_model_parse(text, strlen(text), &o, &m, &d), MDAE_OK);
    cr_assert_eq(sa_analyze(m, NULL, &r, &d), MDAE_OK);
    bdd_gbc();
    int before = bdd_getnodenum();
    cr_assert_eq(cdg_build(r, NULL, &g, &d), MDAE_OK);
    bdd_gbc();
    int kept = bdd_getnodenum() - before;
    cr_log_info("nodes kept by the graph: %d", kept);
    cr_assert_lt(kept, 80000, "the graph keeps %d nodes", kept);
    cdg_graph_free(g);
    sa_result_free(r);
    mel_model_free(m);
    mdae_diags_close(&d);
    free(text);
}
