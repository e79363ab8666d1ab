/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/cdg_view.c -- what a built CDG says, as plain data: the report
 * (guards as formulas and cubes, through sa_sop.c), the projection on one
 * mode (guards evaluated at the mode, then a topological sort of the active
 * blocks: RR-9322 4.6.3 leaves this to run time, we do it for the CLI and
 * the tests), and Graphviz DOT in the notation of RR-9322 Fig. 11.
 */
#include "cdg_int.h"

#include "cdg_report_keys.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- Report ------------------------------------------------------------------ */

void cdg_report_free(cdg_report *rep)
{
    if (rep == NULL)
        return;
    mdae_free((void *)rep->mode_names);
    for (size_t k = 0; rep->blocks && k < rep->n_blocks; k++)
        sa__set_close(&rep->blocks[k].guard);
    for (size_t k = 0; rep->edges && k < rep->n_edges; k++)
        sa__set_close(&rep->edges[k].guard);
    mdae_free(rep->blocks);
    mdae_free(rep->edges);
    mdae_free(rep);
}

/* Blocks and edges whose guards are not computed (cdg_report_since):
 * block[k], edge[k]; NULL: none. */
typedef struct skips {
    const bool *block, *edge;
} skips;

/* How many of n are not skipped (skip NULL: none is). */
static size_t computed(const bool *skip, size_t n)
{
    size_t k = n;
    for (size_t q = 0; skip != NULL && q < n; q++)
        k -= skip[q];
    return k;
}

static void report_fill(sa_ctx *c, const cdg_graph *g, cdg_report *rep, skips sk)
{
    const sa_result *r = g->r;
    const char **names = sa__alloc_keep(c, (r->n_modes + 1) * sizeof *names);
    rep->mode_names = names;
    rep->n_modes = r->n_modes;
    for (uint32_t k = 0; k < r->n_modes; k++)
        names[k] = r->m->modes[k].name;
    sa__care care;
    sa__care_init(c, r, r->chi_m, &care);
    /* The blocks' and the edges' guards are exact on ok only (cdg_int.h):
     * their sets are those of bguard & ok and eguard & ok, through a memo
     * of their own for each (keyed by bguard, eguard) */
    sa__within ok_within;
    sa__within_init(c, r->ok, &ok_within);
    /* each memo sized by the sets it may hold (a memo that is full only
     * stops keeping: the sets are the same) */
    sa__set_memo memo;
    sa__set_memo_init(c, &memo, computed(sk.block, g->n_blocks));
    /* not zeroed by the allocator: each entry written once below, counted
     * as it is (cdg_report_free reads the entries counted) */
    rep->blocks = sa__alloc_keep_raw(c, (g->n_blocks + 1) * sizeof *rep->blocks);
    for (size_t k = 0; k < g->n_blocks; k++) {
        rep->blocks[k] = (cdg_report_block){.block = g->blocks[k]};
        if (sk.block == NULL || !sk.block[k])
            sa__set_of_memo_within(c, r, &care, &ok_within, &memo, g->bguard[k],
                                   &rep->blocks[k].guard);
        rep->n_blocks = k + 1;
        if ((k & 255) == 255)
            sa__progress(c, "report", k, g->n_blocks);
    }
    sa__set_memo ememo;
    sa__set_memo_init(c, &ememo, computed(sk.edge, g->n_edges));
    rep->edges = sa__alloc_keep_raw(c, (g->n_edges + 1) * sizeof *rep->edges);
    for (size_t k = 0; k < g->n_edges; k++) {
        rep->edges[k] = (cdg_report_edge){.from = g->efrom[k], .to = g->eto[k]};
        if (sk.edge == NULL || !sk.edge[k])
            sa__set_of_memo_within(c, r, &care, &ok_within, &ememo, g->eguard[k],
                                   &rep->edges[k].guard);
        rep->n_edges = k + 1;
        if ((k & 255) == 255)
            sa__progress(c, "report", k, g->n_edges);
    }
}

static int report_skipping(const cdg_graph *g, skips sk, cdg_report **out)
{
    if (g == NULL || out == NULL)
        return MDAE_E_INVAL;
    if (!sa__running() || g->no_edges) /* no_edges: sa_options.families */
        return MDAE_E_STATE;
    sa_ctx *c = mdae_malloc(sizeof *c);
    if (c == NULL)
        return MDAE_E_NOMEM;
    sa__ctx_init(c, NULL, NULL);
    cdg_report *rep = mdae_calloc(1, sizeof *rep);
    if (rep == NULL) {
        mdae_free(c);
        return MDAE_E_NOMEM;
    }
    if (setjmp(c->jb)) {
        int rc = c->rc;
        sa__leave(c);
        cdg_report_free(rep);
        mdae_free(c);
        return rc;
    }
    sa__enter(c);
    report_fill(c, g, rep, sk);
    sa__leave(c);
    mdae_free(c);
    *out = rep;
    return MDAE_OK;
}

int cdg_graph_report(const cdg_graph *g, cdg_report **out)
{
    return report_skipping(g, (skips){NULL, NULL}, out);
}

/* ---- The report after an earlier one (cdg_report_keys.h) -------------------------
 * A block's report is its id (its place), its guard's set and its items'
 * names and orders; an edge's its ends and the set of its guard & ok. The
 * sets are those of sa_report.c's argument (the same care, levels, mode
 * variables and names, which sa__item_keys_alike checked before prev is
 * read),
 * so a block whose guard handle, items (index and order) and items' names
 * are the earlier block's at the same place has the same report, and an
 * edge with the same ends and guard handle likewise. */

/* The graph's part of a report's keys. */
typedef struct graph_keys {
    size_t n_blocks, n_edges;
    BDD *bguard;      /* n_blocks, referenced */
    size_t *at;       /* n_blocks + 1: block k's items are item[at[k] .. at[k + 1]) */
    uint32_t *shape;  /* 2 n_blocks: each block's n_equations, n_reads */
    int64_t *item;    /* index << 32 | (uint32_t)order: equations, unknowns, reads */
    uint32_t *efrom, *eto;
    BDD *eguard;      /* n_edges, referenced */
} graph_keys;

static void graph_keys_free(graph_keys *k)
{
    if (k == NULL)
        return;
    for (size_t q = 0; k->bguard != NULL && q < k->n_blocks; q++)
        bdd_delref(k->bguard[q]); /* 0 (false) where not written: no-op */
    for (size_t q = 0; k->eguard != NULL && q < k->n_edges; q++)
        bdd_delref(k->eguard[q]);
    mdae_free(k->bguard);
    mdae_free(k->at);
    mdae_free(k->shape);
    mdae_free(k->item);
    mdae_free(k->efrom);
    mdae_free(k->eto);
    mdae_free(k->eguard);
    mdae_free(k);
}

static int64_t item_key(const cdg_item *it)
{
    return (int64_t)((uint64_t)it->index << 32 | (uint32_t)it->order);
}

static int64_t *put_items(int64_t *x, const cdg_item *items, size_t n)
{
    for (size_t a = 0; a < n; a++)
        *x++ = item_key(&items[a]);
    return x;
}

/* g's keys, or NULL on OOM. */
static graph_keys *graph_keys_new(const cdg_graph *g)
{
    graph_keys *k = mdae_calloc(1, sizeof *k);
    if (k == NULL)
        return NULL;
    size_t n_items = 0;
    for (size_t b = 0; b < g->n_blocks; b++)
        n_items += 2 * g->blocks[b].n_equations + g->blocks[b].n_reads;
    k->bguard = mdae_calloc(g->n_blocks + 1, sizeof *k->bguard);
    k->at = mdae_malloc((g->n_blocks + 1) * sizeof *k->at);
    k->shape = mdae_malloc((2 * g->n_blocks + 1) * sizeof *k->shape);
    k->item = mdae_malloc((n_items + 1) * sizeof *k->item);
    k->efrom = mdae_malloc((g->n_edges + 1) * sizeof *k->efrom);
    k->eto = mdae_malloc((g->n_edges + 1) * sizeof *k->eto);
    k->eguard = mdae_calloc(g->n_edges + 1, sizeof *k->eguard);
    if (!k->bguard || !k->at || !k->shape || !k->item || !k->efrom || !k->eto || !k->eguard) {
        graph_keys_free(k);
        return NULL;
    }
    k->n_blocks = g->n_blocks;
    k->n_edges = g->n_edges;
    int64_t *x = k->item;
    for (size_t b = 0; b < g->n_blocks; b++) {
        const cdg_block *blk = &g->blocks[b];
        MDAE_ASSERT(blk->n_unknowns == blk->n_equations);
        k->bguard[b] = bdd_addref(g->bguard[b]);
        k->at[b] = (size_t)(x - k->item);
        k->shape[2 * b] = (uint32_t)blk->n_equations;
        k->shape[2 * b + 1] = (uint32_t)blk->n_reads;
        x = put_items(x, blk->equations, blk->n_equations);
        x = put_items(x, blk->unknowns, blk->n_unknowns);
        x = put_items(x, blk->reads, blk->n_reads);
    }
    k->at[g->n_blocks] = (size_t)(x - k->item);
    for (size_t e = 0; e < g->n_edges; e++) {
        k->efrom[e] = g->efrom[e];
        k->eto[e] = g->eto[e];
        k->eguard[e] = bdd_addref(g->eguard[e]);
    }
    return k;
}

/* Do the items x[0 .. n) (keys: index << 32 | order) all have the name
 * they had (named: eq_named or var_named, n_named long)? */
static bool items_named(const int64_t *x, size_t n, const bool *named, size_t n_named)
{
    for (size_t a = 0; a < n; a++) {
        uint64_t index = (uint64_t)x[a] >> 32;
        if (index >= n_named || !named[index])
            return false;
    }
    return true;
}

/* Block b of k (g's keys) the same as block b of prev? all_named: every
 * item has the name it had (no look at eq_named, var_named). */
static bool block_alike(const cdg_graph *g, const graph_keys *k, const graph_keys *prev, size_t b,
                        bool all_named, const bool *eq_named, const bool *var_named)
{
    size_t ne = k->shape[2 * b], nr = k->shape[2 * b + 1];
    if (k->bguard[b] != prev->bguard[b] || prev->shape[2 * b] != ne ||
        prev->shape[2 * b + 1] != nr)
        return false;
    const int64_t *x = &k->item[k->at[b]], *y = &prev->item[prev->at[b]];
    size_t n = 2 * ne + nr;
    if (memcmp(x, y, n * sizeof *x) != 0)
        return false;
    return all_named || (items_named(x, ne, eq_named, g->r->n_eq) &&
                         items_named(x + ne, ne + nr, var_named, g->r->n_var));
}

/* The graph's part of cdg_report_since: g's report in *out, its keys in
 * *keys (NULL when g is another result's than r), same->blocks and
 * ->edges. prev: the keys of an earlier graph whose report is to be taken
 * from (NULL: nothing is; given only when the items' keys were alike);
 * eq_named[i] / var_named[j]: whether equation i / variable j has the name
 * it had there (r's n_eq, n_var long). */
static int graph_report_since(const sa_result *r, const cdg_graph *g, const graph_keys *prev,
                              bool all_named, const bool *eq_named, const bool *var_named,
                              cdg_report **out, graph_keys **keys, cdg_report_same *same)
{
    if (g->no_edges) /* sa_options.families */
        return MDAE_E_STATE;
    if (g->r != r) /* its sets are another result's: no keys, nothing the same */
        prev = NULL;
    graph_keys *k = g->r == r ? graph_keys_new(g) : NULL;
    bool *bs = same->blocks = mdae_calloc(g->n_blocks + 1, sizeof *bs);
    bool *es = same->edges = mdae_calloc(g->n_edges + 1, sizeof *es);
    int rc = (k != NULL || g->r != r) && bs != NULL && es != NULL ? MDAE_OK : MDAE_E_NOMEM;
    for (size_t b = 0; rc == MDAE_OK && prev != NULL && b < g->n_blocks && b < prev->n_blocks; b++)
        bs[b] = block_alike(g, k, prev, b, all_named, eq_named, var_named);
    for (size_t e = 0; rc == MDAE_OK && prev != NULL && e < g->n_edges && e < prev->n_edges; e++)
        es[e] = g->efrom[e] == prev->efrom[e] && g->eto[e] == prev->eto[e] &&
                g->eguard[e] == prev->eguard[e];
    if (rc == MDAE_OK)
        rc = report_skipping(g, (skips){bs, es}, out);
    if (rc < 0) {
        graph_keys_free(k);
        return rc;
    }
    *keys = k;
    return MDAE_OK;
}

struct cdg_report_keys {
    sa__item_keys *items; /* the result's items' (sa_report.c) */
    graph_keys *graph;    /* the graph's, NULL without one */
};

void cdg_report_keys_free(cdg_report_keys *k)
{
    if (k == NULL)
        return;
    sa__item_keys_free(k->items);
    graph_keys_free(k->graph);
    mdae_free(k);
}

void cdg_report_same_free(cdg_report_same *s)
{
    if (s == NULL)
        return;
    mdae_free(s->equations);
    mdae_free(s->variables);
    mdae_free(s->blocks);
    mdae_free(s->edges);
    memset(s, 0, sizeof *s);
}

/* Whether the items' keys of k and prev are alike (every set a function of
 * the same things), and so whether prev can be read at all. */
static const cdg_report_keys *usable(const cdg_report_keys *k, const cdg_report_keys *prev)
{
    return prev != NULL && sa__item_keys_alike(k->items, prev->items) ? prev : NULL;
}

int cdg_report_since(const sa_result *r, const cdg_graph *g, const cdg_report_keys *prev,
                     sa_report **rep, cdg_report **crep, cdg_report_keys **keys,
                     cdg_report_same *same)
{
    if (r == NULL || rep == NULL || crep == NULL || keys == NULL || same == NULL)
        return MDAE_E_INVAL;
    *rep = NULL;
    *crep = NULL;
    *keys = NULL;
    memset(same, 0, sizeof *same);
    if (!sa__running())
        return MDAE_E_STATE;
    cdg_report_keys *k = mdae_calloc(1, sizeof *k);
    bool *eq_named = NULL, *var_named = NULL;
    int rc = k != NULL && (k->items = sa__item_keys_new(r, prev != NULL ? prev->items : NULL)) != NULL
                 ? MDAE_OK
                 : MDAE_E_NOMEM;
    if (rc == MDAE_OK)
        prev = usable(k, prev);
    if (rc == MDAE_OK && !sa__item_keys_mark(k->items, prev != NULL ? prev->items : NULL,
                                             &same->equations, &same->variables, &eq_named,
                                             &var_named))
        rc = MDAE_E_NOMEM;
    if (rc == MDAE_OK)
        rc = sa__report_skipping(r, SA_REPORT_VALID_CARE, same->equations, same->variables, rep);
    if (rc == MDAE_OK && g != NULL)
        rc = graph_report_since(r, g, prev != NULL ? prev->graph : NULL,
                                prev != NULL && sa__item_keys_all_named(k->items, prev->items),
                                eq_named, var_named, crep, &k->graph, same);
    mdae_free(eq_named);
    mdae_free(var_named);
    if (rc < 0) {
        sa_report_free(*rep);
        *rep = NULL;
        cdg_report_keys_free(k);
        cdg_report_same_free(same);
        return rc;
    }
    *keys = k;
    return MDAE_OK;
}

/* ---- One mode ------------------------------------------------------------------ */

void cdg_mode_view_close(cdg_mode_view *v)
{
    if (v == NULL)
        return;
    mdae_free(v->blocks);
    mdae_free(v->edges);
    memset(v, 0, sizeof *v);
}

/* Min-heap of block ids: among ready blocks, the smallest id first, so the
 * order is deterministic. */
static void heap_push(uint32_t *h, size_t *n, uint32_t x)
{
    size_t k = (*n)++;
    while (k > 0 && h[(k - 1) / 2] > x) {
        h[k] = h[(k - 1) / 2];
        k = (k - 1) / 2;
    }
    h[k] = x;
}

static uint32_t heap_pop(uint32_t *h, size_t *n)
{
    uint32_t top = h[0], x = h[--*n];
    size_t k = 0;
    for (;;) {
        size_t a = 2 * k + 1;
        if (a >= *n)
            break;
        if (a + 1 < *n && h[a + 1] < h[a])
            a++;
        if (h[a] >= x)
            break;
        h[k] = h[a];
        k = a;
    }
    if (*n > 0)
        h[k] = x;
    return top;
}

int cdg_graph_mode(const cdg_graph *g, const bool *mode, cdg_mode_view *out)
{
    if (g == NULL || out == NULL || (mode == NULL && g->r->n_modes > 0))
        return MDAE_E_INVAL;
    if (!sa__running() || g->no_edges) /* no_edges: sa_options.families */
        return MDAE_E_STATE;
    static const bool none[1] = {false};
    if (mode == NULL)
        mode = none;
    const sa_result *r = g->r;
    cdg_mode_view v = {0};
    size_t nb = g->n_blocks;
    int rc = MDAE_OK;
    bool *act = mdae_calloc(nb + 1, sizeof *act);
    uint32_t *indeg = mdae_calloc(nb + 1, sizeof *indeg);
    size_t *efirst = mdae_calloc(nb + 2, sizeof *efirst); /* active edges by from */
    uint32_t *heap = mdae_calloc(nb + 1, sizeof *heap);
    v.blocks = mdae_calloc(nb + 1, sizeof *v.blocks);
    v.edges = mdae_calloc(2 * g->n_edges + 1, sizeof *v.edges);
    if (!act || !indeg || !efirst || !heap || !v.blocks || !v.edges) {
        rc = MDAE_E_NOMEM;
        goto done;
    }
    v.valid = sa__eval(r, r->chi_m, mode);
    v.singular = v.valid && !sa__eval(r, r->ok, mode);
    size_t na = 0;
    bool in_ok = sa__eval(r, r->ok, mode); /* bguard, eguard exact on ok only */
    for (size_t k = 0; k < nb; k++)
        if ((act[k] = in_ok && sa__eval(r, g->bguard[k], mode)))
            na++;
    /* Edges are sorted by (from, to), so the active ones are too. */
    for (size_t k = 0; k < g->n_edges; k++) {
        if (!in_ok || !sa__eval(r, g->eguard[k], mode))
            continue;
        uint32_t a = g->efrom[k], b = g->eto[k];
        if (!act[a] || !act[b]) { /* guard(A->B) implies both guards */
            rc = MDAE_E_BDD;
            goto done;
        }
        v.edges[2 * v.n_edges] = a;
        v.edges[2 * v.n_edges + 1] = b;
        v.n_edges++;
        efirst[a + 1]++;
        indeg[b]++;
    }
    for (size_t k = 0; k < nb; k++)
        efirst[k + 1] += efirst[k];
    size_t nh = 0;
    for (size_t k = 0; k < nb; k++)
        if (act[k] && indeg[k] == 0)
            heap_push(heap, &nh, (uint32_t)k);
    while (nh > 0) {
        uint32_t a = heap_pop(heap, &nh);
        v.blocks[v.n_blocks++] = a;
        for (size_t q = efirst[a]; q < efirst[a + 1]; q++) {
            uint32_t b = v.edges[2 * q + 1];
            if (--indeg[b] == 0)
                heap_push(heap, &nh, b);
        }
    }
    if (v.n_blocks != na) /* a cycle among blocks: SCCs were wrong */
        rc = MDAE_E_BDD;
done:
    mdae_free(act);
    mdae_free(indeg);
    mdae_free(efirst);
    mdae_free(heap);
    if (rc < 0) {
        cdg_mode_view_close(&v);
        return rc;
    }
    *out = v;
    return MDAE_OK;
}

/* ---- DOT ------------------------------------------------------------------------ */

/* A name inside a double-quoted DOT string. */
static void sb_esc(mdae_buf *s, const char *z)
{
    for (; *z; z++) {
        if (*z == '"' || *z == '\\')
            mdae_buf_put(s, "\\", 1);
        mdae_buf_put(s, z, 1);
    }
}

static void sb_item(mdae_buf *s, const cdg_item *it)
{
    sb_esc(s, it->name);
    if (it->order <= 3) {
        mdae_buf_put(s, "'''", (size_t)it->order);
    } else {
        char buf[32];
        int n = snprintf(buf, sizeof buf, "^(%d)", it->order);
        mdae_buf_put(s, buf, (size_t)n);
    }
}

static void sb_items(mdae_buf *s, const cdg_item *its, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        if (k)
            mdae_buf_puts(s, ", ");
        sb_item(s, &its[k]);
    }
}

/* Labels. A guard only matters among the valid modes, so the DOT labels
 * are minimised with the invalid modes as don't-cares (sa__isop, sa_sop.c's
 * Minato-Morreale ISOP, on the interval [guard, guard | !chi_M]): the Water Tank's
 * `el2' -> x'` is labelled `bl`, not `!bh & bl` (the invariant excludes
 * bh & bl). The report keeps exact sets: its cubes must be the set itself. */
typedef struct label {
    const sa_result *r;
    mdae_buf out;
    size_t n_cubes;
} label;

/* An sa__cube_fn: print the cube as "g1 & !g2", after " | ". */
static void label_emit(sa_ctx *c, void *arg, const sa__lit *lits, size_t n_lits)
{
    (void)c;
    label *o = arg;
    const sa_result *r = o->r;
    if (o->n_cubes++ > 0)
        mdae_buf_puts(&o->out, " | ");
    for (size_t i = 0; i < n_lits; i++) {
        if (i > 0)
            mdae_buf_puts(&o->out, " & ");
        /* "!(h > 0)" for a negated relation atom (issue 42) */
        const char *name = r->m->modes[lits[i].mode].name;
        bool paren = lits[i].value == 0 && strchr(name, ' ') != NULL;
        mdae_buf_puts(&o->out, lits[i].value == 0 ? (paren ? "!(" : "!") : "");
        sb_esc(&o->out, name);
        mdae_buf_puts(&o->out, paren ? ")" : "");
    }
    if (n_lits == 0)
        mdae_buf_puts(&o->out, "true");
}

/* Append " : "-less label text of guard f to s; "true" is left to the
 * caller to omit. Returns false if the label is "true". */
static bool label_of(sa_ctx *c, const sa_result *r, BDD f, mdae_buf *s)
{
    size_t mark = sa__mark(c);
    label o = {r, {0}, 0};
    BDD *cover = sa__slots(c, 1);
    BDD dc = sa__tmp(c, bdd_not(r->chi_m));
    sa__isop(c, r, f, sa__tmp(c, bdd_or(f, dc)), label_emit, &o, cover);
    sa__release(c, mark);
    if (o.n_cubes == 0)
        mdae_buf_puts(&o.out, "false");
    bool is_true = o.out.p != NULL && !strcmp(o.out.p, "true");
    if (!is_true && o.out.p != NULL)
        mdae_buf_puts(s, o.out.p);
    s->oom |= o.out.oom;
    mdae_free(o.out.p);
    if (s->oom)
        sa__fail(c, MDAE_E_NOMEM);
    return !is_true;
}

static void dot_fill(sa_ctx *c, const cdg_graph *g, mdae_buf *s)
{
    const sa_result *r = g->r;
    mdae_buf_puts(s, "digraph cdg {\n  node [shape=box];\n");
    for (size_t k = 0; k < g->n_blocks; k++) {
        const cdg_block *b = &g->blocks[k];
        char head[48];
        snprintf(head, sizeof head, "  b%zu [label=\"", k);
        mdae_buf_puts(s, head);
        size_t mark = sa__mark(c); /* bguard is exact on ok only */
        bool show = label_of(c, r, sa__tmp(c, sa__and(g->bguard[k], r->ok)), s);
        sa__release(c, mark);
        if (show)
            mdae_buf_puts(s, " : ");
        if (b->n_reads > 0) {
            sb_items(s, b->reads, b->n_reads);
            mdae_buf_puts(s, " \xe2\x86\x92 "); /* U+2192 RIGHTWARDS ARROW */
        }
        sb_items(s, b->equations, b->n_equations);
        mdae_buf_puts(s, " \xe2\x86\x92 ");
        sb_items(s, b->unknowns, b->n_unknowns);
        mdae_buf_puts(s, "\"];\n");
    }
    for (size_t k = 0; k < g->n_edges; k++) {
        char head[64];
        snprintf(head, sizeof head, "  b%u -> b%u", g->efrom[k], g->eto[k]);
        mdae_buf_puts(s, head);
        mdae_buf lab = {0};
        size_t mark = sa__mark(c); /* eguard is exact on ok only */
        bool show = label_of(c, r, sa__tmp(c, bdd_and(g->eguard[k], r->ok)), &lab);
        sa__release(c, mark);
        if (lab.oom) {
            mdae_free(lab.p);
            sa__fail(c, MDAE_E_NOMEM);
        }
        if (show) {
            mdae_buf_puts(s, " [label=\"");
            mdae_buf_puts(s, lab.p);
            mdae_buf_puts(s, "\"]");
        }
        mdae_free(lab.p);
        mdae_buf_puts(s, ";\n");
        if ((k & 255) == 255)
            sa__progress(c, "dot", k, g->n_edges);
    }
    mdae_buf_puts(s, "}\n");
    if (s->oom)
        sa__fail(c, MDAE_E_NOMEM);
}

int cdg_graph_dot(const cdg_graph *g, char **out)
{
    if (g == NULL || out == NULL)
        return MDAE_E_INVAL;
    if (!sa__running() || g->no_edges) /* no_edges: sa_options.families */
        return MDAE_E_STATE;
    sa_ctx *c = mdae_malloc(sizeof *c);
    if (c == NULL)
        return MDAE_E_NOMEM;
    sa__ctx_init(c, NULL, NULL);
    /* volatile: read after longjmp, modified between setjmp and the jump. */
    mdae_buf *volatile s = mdae_calloc(1, sizeof *s);
    if (s == NULL) {
        mdae_free(c);
        return MDAE_E_NOMEM;
    }
    if (setjmp(c->jb)) {
        int rc = c->rc;
        sa__leave(c);
        mdae_free(s->p);
        mdae_free(s);
        mdae_free(c);
        return rc;
    }
    sa__enter(c);
    dot_fill(c, g, s);
    sa__leave(c);
    *out = s->p;
    mdae_free(s);
    mdae_free(c);
    return MDAE_OK;
}
