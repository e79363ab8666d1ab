/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_cdg_seeded.c -- the dependency graph built from the
 * previous version's (cdg_build_seeded, engine/cdg_build.c) is the one a
 * build from scratch gives: on walks of random edits of random models
 * (several side by side, so that an edit leaves most union-SCCs alone),
 * after every edit the seeded graph and cdg_build's have the same blocks
 * (identities by index, order and name, in the same order: the same ids),
 * the same union-SCCs, the same edges, and the same guards in their reports
 * (formula and cubes). Each walk seeds every edit's build with the previous
 * seeded graph, and the seeded builds must really keep blocks.
 *
 * Edits keep the equations and variables (the seeded build's condition):
 * a variable of an equation differentiated once more, a variable of an
 * equation replaced by another, a statement guard negated.
 * CDG_SEEDED_WALKS (env) sets the number of walks (default 150).
 */
#include <criterion/criterion.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdg.h"
#include "mel.h"
#include "ref/ref.h"
#include "sa.h"

#include "test_env.h"

static void begin(void) { cr_assert_eq(sa_begin(NULL), MDAE_OK); }
static void end(void) { sa_end(); }

TestSuite(cdg_seeded, .init = begin, .fini = end, .timeout = 900);

static bool ident_char(char ch)
{
    return ch == '_' || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
           (ch >= '0' && ch <= '9');
}

/* text with its names x1, e1, p1, g1... prefixed "<prefix>_" (malloc'd). */
static char *prefixed(const char *text, char prefix)
{
    size_t n = strlen(text);
    char *o = malloc(2 * n + 1), *q = o;
    cr_assert_not_null(o);
    for (size_t i = 0; i < n; i++) {
        bool start = i == 0 || !ident_char(text[i - 1]);
        if (start && strchr("xepg", text[i]) && text[i + 1] >= '1' && text[i + 1] <= '9') {
            *q++ = prefix;
            *q++ = '_';
        }
        *q++ = text[i];
    }
    *q = '\0';
    return o;
}

static uint32_t below(uint64_t *st, uint32_t n) { return (uint32_t)(ref_rand_next(st) % n); }

/* The positions of the variable names ("?_xN") in the equation lines of
 * text, at most cap of them. */
static size_t var_uses(const char *text, size_t *at, size_t cap)
{
    size_t n = 0;
    for (const char *line = text; *line && n < cap;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        const char *eq = strstr(line, " : equation ");
        if (eq != NULL && (size_t)(eq - line) < len)
            for (const char *p = eq; p < line + len && n < cap; p++)
                if (!ident_char(p[-1]) && p[1] == '_' && p[2] == 'x' && p[3] >= '1' &&
                    p[3] <= '9')
                    at[n++] = (size_t)(p - text);
        line += len + (nl != NULL);
    }
    return n;
}

/* One random edit that keeps the equations and variables (NULL: none
 * found); *what says which. */
static char *edit(const char *text, uint64_t *st, const char **what)
{
    size_t n = strlen(text), at[512];
    char *o = malloc(n + 64);
    cr_assert_not_null(o);
    unsigned kind = below(st, 3);
    if (kind < 2) {
        size_t nu = var_uses(text, at, 512);
        if (nu == 0)
            goto guard;
        size_t p = at[below(st, (uint32_t)nu)], e = p + 3;
        while (ident_char(text[e]))
            e++;
        if (kind == 0) { /* differentiated once more */
            snprintf(o, n + 64, "%.*sder(%.*s)%s", (int)p, text, (int)(e - p), text + p, text + e);
            *what = "der";
        } else { /* another variable of the same model */
            snprintf(o, n + 64, "%.*s%.3sx%u%s", (int)p, text, text + p, 1 + below(st, 4),
                     text + e);
            *what = "variable";
        }
        return o;
    }
guard:;
    const char *g = text;
    size_t cand[256], nc = 0;
    while ((g = strstr(g, "if ")) != NULL && nc < 256) {
        const char *t = strstr(g, " then\n");
        if (t != NULL && (g == text || g[-1] == ' ' || g[-1] == '\n') && !memchr(g, '\n', (size_t)(t - g)))
            cand[nc++] = (size_t)(g - text);
        g += 3;
    }
    if (nc == 0) {
        free(o);
        return NULL;
    }
    size_t p = cand[below(st, (uint32_t)nc)];
    const char *t = strstr(text + p, " then\n");
    snprintf(o, n + 64, "%.*sif !(%.*s)%s", (int)p, text, (int)(t - text - p - 3), text + p + 3, t);
    *what = "guard";
    return o;
}

static void same_set(const sa_set *a, const sa_set *b, const char *label)
{
    cr_assert_str_eq(a->formula, b->formula, "%s", label);
    cr_assert_eq(a->n_cubes, b->n_cubes, "%s", label);
    cr_assert_eq(a->width, b->width, "%s", label);
    if (a->width > 0) {
        cr_assert_eq(a->first_mode, b->first_mode, "%s", label);
        cr_assert_eq(memcmp(a->rows, b->rows, a->n_cubes * a->width), 0, "%s", label);
    }
}

static void same_items(const cdg_item *x, const cdg_item *y, size_t n, const char *label)
{
    for (size_t k = 0; k < n; k++) {
        cr_assert_eq(x[k].index, y[k].index, "%s", label);
        cr_assert_eq(x[k].order, y[k].order, "%s", label);
        cr_assert_str_eq(x[k].name, y[k].name, "%s", label);
    }
}

/* The seeded graph s and the graph from scratch f: the same. */
static void same_graph(const cdg_graph *s, const cdg_graph *f, const char *label)
{
    cr_assert_eq(cdg_graph_n_blocks(s), cdg_graph_n_blocks(f), "%s: blocks", label);
    cr_assert_eq(cdg_graph_n_edges(s), cdg_graph_n_edges(f), "%s: edges", label);
    cr_assert_eq(cdg_graph_n_sccs(s), cdg_graph_n_sccs(f), "%s: union-SCCs", label);
    cr_assert_eq(cdg_graph_max_block(s), cdg_graph_max_block(f), "%s", label);
    cdg_report *rs = NULL, *rf = NULL;
    cr_assert_eq(cdg_graph_report(s, &rs), MDAE_OK, "%s", label);
    cr_assert_eq(cdg_graph_report(f, &rf), MDAE_OK, "%s", label);
    for (size_t k = 0; k < rs->n_blocks; k++) {
        const cdg_block *x = &rs->blocks[k].block, *y = &rf->blocks[k].block;
        cr_assert_eq(x->id, y->id, "%s block %zu", label, k);
        cr_assert_eq(x->n_equations, y->n_equations, "%s block %zu", label, k);
        cr_assert_eq(x->n_reads, y->n_reads, "%s block %zu", label, k);
        same_items(x->equations, y->equations, x->n_equations, label);
        same_items(x->unknowns, y->unknowns, x->n_unknowns, label);
        same_items(x->reads, y->reads, x->n_reads, label);
        same_set(&rs->blocks[k].guard, &rf->blocks[k].guard, label);
    }
    for (size_t k = 0; k < rs->n_edges; k++) {
        cr_assert_eq(rs->edges[k].from, rf->edges[k].from, "%s edge %zu", label, k);
        cr_assert_eq(rs->edges[k].to, rf->edges[k].to, "%s edge %zu", label, k);
        same_set(&rs->edges[k].guard, &rf->edges[k].guard, label);
    }
    cdg_report_free(rs);
    cdg_report_free(rf);
}

/* Three random models side by side. */
static char *three_models(uint64_t seed, const ref_random_opts *ro)
{
    char *text = calloc(1, 1);
    cr_assert_not_null(text);
    for (int k = 0; k < 3; k++) {
        char *t = ref_random_model(seed * 3 + (uint64_t)k, ro);
        cr_assert_not_null(t);
        char *pt = prefixed(t, (char)('a' + k));
        mdae_free(t);
        size_t n = strlen(text), m = strlen(pt);
        text = realloc(text, n + m + 2);
        cr_assert_not_null(text);
        memcpy(text + n, pt, m);
        text[n + m] = '\n';
        text[n + m + 1] = '\0';
        free(pt);
    }
    return text;
}

/* One version: parsed, analysed with hint, its graph from scratch and
 * seeded by seed (NULL for the first); false if it does not parse or has
 * no analysis (then nothing is kept). */
typedef struct version {
    mel_model *m;
    sa_result *r;
    cdg_graph *g; /* seeded (or from scratch for the first) */
} version;

/* The most blocks a seeded build made anew (not kept from its seed). */
static size_t most_new;

static bool analyse(const char *text, const version *prev, version *out, size_t *kept,
                    const char *label)
{
    *out = (version){0};
    if (mel_model_parse(text, strlen(text), NULL, &out->m, NULL) != MDAE_OK)
        return false;
    sa_options o = {0};
    o.hint = prev != NULL ? prev->r : NULL;
    if (sa_analyze(out->m, &o, &out->r, NULL) != MDAE_OK) {
        mel_model_free(out->m);
        return false;
    }
    cdg_graph *fresh = NULL;
    int rc = cdg_build(out->r, &o, &fresh, NULL);
    int rs = cdg_build_seeded(out->r, &o, prev != NULL ? prev->g : NULL, &out->g, NULL);
    cr_assert_eq(rs, rc, "%s", label);
    if (rc == MDAE_OK) {
        same_graph(out->g, fresh, label);
        *kept += cdg_graph_blocks_kept(out->g);
        size_t made = cdg_graph_n_blocks(out->g) - cdg_graph_blocks_kept(out->g);
        if (prev != NULL && made > most_new)
            most_new = made;
    }
    cdg_graph_free(fresh);
    return true;
}

static void drop(version *v)
{
    cdg_graph_free(v->g);
    sa_result_free(v->r);
    mel_model_free(v->m);
    *v = (version){0};
}

/* walks random walks of `steps` edits of three random models of at most
 * max_eq equations each (seeds from seed0), each version's graph seeded by
 * the previous one's and compared with one from scratch; the edits and
 * the blocks kept added to *edits and *kept. */
static void walk_edits(uint64_t walks, uint64_t seed0, int max_eq, int steps, size_t *edits,
                       size_t *kept)
{
    for (uint64_t w = 0; w < walks; w++) {
        ref_random_opts ro = {0};
        ro.max_modes = 3;
        ro.max_equations = max_eq;
        ro.nonsquare_percent = 10;
        char *text = three_models(seed0 + w, &ro);
        uint64_t st = 31 + w * 1000003;
        char label[128];
        snprintf(label, sizeof label, "walk %llu start", (unsigned long long)w);
        version v;
        if (!analyse(text, NULL, &v, kept, label)) {
            free(text);
            continue;
        }
        for (int step = 0; step < steps; step++) {
            const char *what = "";
            char *next = edit(text, &st, &what);
            if (next == NULL)
                break;
            snprintf(label, sizeof label, "walk %llu step %d (%s)", (unsigned long long)w, step,
                     what);
            version nv;
            if (!analyse(next, &v, &nv, kept, label)) { /* an error: another edit */
                free(next);
                continue;
            }
            free(text);
            text = next;
            drop(&v);
            v = nv;
            ++*edits;
        }
        drop(&v);
        free(text);
    }
}

Test(cdg_seeded, random_edits_give_the_graph_a_build_from_scratch_gives)
{
    uint64_t walks = env_u64("CDG_SEEDED_WALKS", 150);
    size_t kept = 0, edits = 0;
    walk_edits(walks, 7000, 12, 8, &edits, &kept);
    cr_log_info("%zu edits, %zu blocks kept from the seed", edits, kept);
    cr_assert_gt(edits, 4 * walks);
    cr_assert_gt(kept, edits, "the seeded builds keep blocks");
}

/* A chain x0 <- x1 <- ... <- x<n> read by z, whose equation reads x<n>
 * differentiated `order` times and whose links switch with a mode:
 * differentiating the end differentiates every link (every block new). */
static char *chain_model(int n, int order)
{
    size_t cap = 128 + (size_t)n * 96;
    char *t = malloc(cap), *q = t;
    cr_assert_not_null(t);
    q += sprintf(q, "p : real = 1.0;\ng : boolean = p >= 0;\nz : real;\n");
    for (int i = 0; i <= n; i++)
        q += sprintf(q, "x%d : real;\n", i);
    q += sprintf(q, "c0 : equation x0 = p;\n");
    for (int i = 1; i <= n; i++)
        q += sprintf(q, "c%d : equation x%d = if g then x%d else 2 * x%d;\n", i, i, i - 1, i - 1);
    q += sprintf(q, "cz : equation z = ");
    for (int k = 0; k < order; k++)
        q += sprintf(q, "der(");
    q += sprintf(q, "x%d", n);
    for (int k = 0; k < order; k++)
        *q++ = ')';
    q += sprintf(q, ";\n");
    cr_assert_lt((size_t)(q - t), cap);
    return t;
}

/* Issue 40 item 3: each version seeded by the previous one, the end of a
 * 40-link chain differentiated, then not, then twice...: edits that make
 * every block anew (more than SORT_FEW_BLOCKS: sort_blocks by buckets)
 * and back, the graph from scratch after each. */
Test(cdg_seeded, a_chain_differentiated_at_its_end_again_and_again_gives_the_graph_from_scratch)
{
    static const int orders[] = {0, 1, 0, 2, 1, 1, 0, 3, 0};
    size_t kept = 0;
    version v = {0};
    most_new = 0;
    for (size_t k = 0; k < sizeof orders / sizeof *orders; k++) {
        char *text = chain_model(40, orders[k]), label[64];
        snprintf(label, sizeof label, "chain step %zu (order %d)", k, orders[k]);
        version nv;
        cr_assert(analyse(text, k > 0 ? &v : NULL, &nv, &kept, label), "%s", label);
        free(text);
        drop(&v);
        v = nv;
    }
    drop(&v);
    cr_assert_gt(most_new, 32, "an edit made every block anew");
    cr_assert_gt(kept, 0, "the same version again keeps its blocks");
}

/* Issue 40 item 3: long chains on larger models, each graph seeded by the
 * previous version's (the chain's first only from scratch): the graph
 * from scratch after every edit (c_i and d_j read lazily, the new blocks
 * sorted in place: engine/cdg_build.c). */
Test(cdg_seeded, long_chains_of_edits_of_larger_models_give_the_graph_from_scratch)
{
    uint64_t walks = env_u64("CDG_SEEDED_WALKS", 150) / 5;
    size_t kept = 0, edits = 0;
    most_new = 0;
    walk_edits(walks, 9100, 40, 24, &edits, &kept);
    cr_log_info("%zu edits, %zu blocks kept, at most %zu new blocks in one build", edits, kept,
                most_new);
    cr_assert_gt(edits, 10 * walks);
    cr_assert_gt(kept, 0, "the seeded builds keep blocks");
}
