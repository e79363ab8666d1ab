/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/cdg_family.c -- block families of a built CDG (engine/cdg_family.h
 * says what they are and promises). Three passes over the graph:
 *   1. grouping: each block, in id order, joins a family whose modes are
 *      disjoint from its guard (the one holding most of its equations),
 *      found through an index of the families of each equation;
 *   2. items: per family, its variants' items sorted by (kind, index,
 *      order), the guards of equal items OR-ed into the item's set;
 *   3. edges: from the items (an unknown of one family read by another),
 *      not from the block edges, which sa_options.families does not build.
 * Errors and BDD references: engine/sa_int.h (the result's BDDs are
 * referenced by hand, as cdg_build's).
 */
#include "cdg_family.h"

#include <stdlib.h>
#include <string.h>

#include "cdg_int.h"

#define T(f) sa__tmp(c, (f))

enum { K_EQ, K_UNK, K_READ, K_KINDS };

typedef struct fam {
    size_t first_variant, n_variants; /* into variants */
    size_t first_item[K_KINDS + 1];   /* into items, by kind */
    BDD modes;                        /* referenced */
} fam;

struct cdg_families {
    const cdg_graph *g; /* borrowed */
    size_t n_families;
    fam *fams;
    uint32_t *family_of; /* n_blocks */
    uint32_t *variants;  /* n_blocks, grouped by family, ascending */
    size_t n_items;
    cdg_item *items;
    BDD *imodes; /* n_items, referenced */
    size_t n_edges;
    uint32_t *efrom, *eto;
    BDD *eguard; /* n_edges, referenced */
};

/* ---- 1. Grouping ------------------------------------------------------------ */

/* The families holding an equation: a list per equation in a pool. */
typedef struct eqfam {
    uint32_t fam, next; /* next: index + 1 into the pool, 0 ends */
} eqfam;

typedef struct grouping {
    sa_ctx *c;
    const cdg_graph *g;
    uint32_t *head;  /* n_eq: index + 1 into pool, 0 empty */
    eqfam *pool;
    size_t n_pool, cap_pool;
    BDD *dom;        /* n_blocks slots: each family's modes so far */
    uint32_t *count; /* n_blocks: equations of the block each family holds */
    uint32_t *cand;  /* n_blocks: the candidates of the block at hand */
    size_t n_fams;
} grouping;

static void pool_add(grouping *gr, uint32_t eq, uint32_t family)
{
    for (uint32_t q = gr->head[eq]; q != 0; q = gr->pool[q - 1].next)
        if (gr->pool[q - 1].fam == family)
            return;
    if (gr->n_pool == gr->cap_pool) {
        size_t nc = gr->cap_pool ? 2 * gr->cap_pool : 256;
        eqfam *np = sa__alloc_raw(gr->c, nc * sizeof *np);
        if (gr->n_pool)
            memcpy(np, gr->pool, gr->n_pool * sizeof *np);
        gr->pool = np; /* the old one is freed with the context */
        gr->cap_pool = nc;
    }
    gr->pool[gr->n_pool] = (eqfam){family, gr->head[eq]};
    gr->head[eq] = (uint32_t)++gr->n_pool;
}

/* The candidates of block B (families holding one of its equations), by
 * decreasing count of its equations, then increasing id; their number. */
static size_t candidates(grouping *gr, const cdg_block *B)
{
    size_t n = 0;
    for (size_t a = 0; a < B->n_equations; a++)
        for (uint32_t q = gr->head[B->equations[a].index]; q != 0; q = gr->pool[q - 1].next) {
            uint32_t f = gr->pool[q - 1].fam;
            if (gr->count[f]++ == 0)
                gr->cand[n++] = f;
        }
    /* insertion sort: a block's candidates are few */
    for (size_t i = 1; i < n; i++) {
        uint32_t x = gr->cand[i];
        size_t j = i;
        for (; j > 0; j--) {
            uint32_t y = gr->cand[j - 1];
            if (gr->count[y] > gr->count[x] || (gr->count[y] == gr->count[x] && y < x))
                break;
            gr->cand[j] = y;
        }
        gr->cand[j] = x;
    }
    return n;
}

/* The family block k joins (a new one if none fits). */
static uint32_t join(grouping *gr, uint32_t k)
{
    sa_ctx *c = gr->c;
    const cdg_block *B = &gr->g->blocks[k];
    BDD guard = T(sa__and(gr->g->bguard[k], gr->g->r->ok)); /* exact on ok only */
    size_t n = candidates(gr, B);
    uint32_t chosen = UINT32_MAX;
    for (size_t q = 0; q < n && chosen == UINT32_MAX; q++)
        if (T(bdd_and(gr->dom[gr->cand[q]], guard)) == bddfalse)
            chosen = gr->cand[q];
    for (size_t q = 0; q < n; q++)
        gr->count[gr->cand[q]] = 0;
    if (chosen == UINT32_MAX) {
        chosen = (uint32_t)gr->n_fams++;
        sa__put(&gr->dom[chosen], guard);
    } else {
        sa__put(&gr->dom[chosen], T(bdd_or(gr->dom[chosen], guard)));
    }
    for (size_t a = 0; a < B->n_equations; a++)
        pool_add(gr, B->equations[a].index, chosen);
    return chosen;
}

/* Blocks are grouped largest first: a structure's largest variant (the
 * capacitor loop with every diode passing) founds its family, and the
 * smaller variants join it by their shared equations before a small
 * block that shares one equation with them could found a family of its
 * own that takes them (ties: by id). */
typedef struct sized {
    size_t n_equations;
    uint32_t id;
} sized;

static int by_size_cmp(const void *x, const void *y)
{
    const sized *a = x, *b = y;
    if (a->n_equations != b->n_equations)
        return a->n_equations > b->n_equations ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

static void group(sa_ctx *c, cdg_families *f)
{
    const cdg_graph *g = f->g;
    size_t nb = g->n_blocks;
    grouping gr = {.c = c, .g = g};
    gr.head = sa__alloc(c, ((size_t)g->r->n_eq + 1) * sizeof *gr.head);
    gr.dom = sa__slots(c, nb + 1);
    gr.count = sa__alloc(c, (nb + 1) * sizeof *gr.count);
    gr.cand = sa__alloc(c, (nb + 1) * sizeof *gr.cand);
    sized *order = sa__alloc_raw(c, (nb + 1) * sizeof *order);
    for (size_t k = 0; k < nb; k++)
        order[k] = (sized){g->blocks[k].n_equations, (uint32_t)k};
    qsort(order, nb, sizeof *order, by_size_cmp);
    uint32_t *joined = sa__alloc_raw(c, (nb + 1) * sizeof *joined);
    for (size_t q = 0; q < nb; q++) {
        size_t mark = sa__mark(c);
        joined[order[q].id] = join(&gr, order[q].id);
        sa__release(c, mark);
        if ((q & 255) == 255)
            sa__progress(c, "families", q, nb);
    }
    /* Families numbered by their first block (model order). */
    uint32_t *number = sa__alloc_raw(c, (gr.n_fams + 1) * sizeof *number);
    for (size_t q = 0; q < gr.n_fams; q++)
        number[q] = UINT32_MAX;
    uint32_t next = 0;
    f->family_of = sa__alloc_keep_raw(c, (nb + 1) * sizeof *f->family_of);
    for (size_t k = 0; k < nb; k++) {
        if (number[joined[k]] == UINT32_MAX)
            number[joined[k]] = next++;
        f->family_of[k] = number[joined[k]];
    }
    /* Variants grouped by family (a counting sort keeps them ascending). */
    f->fams = sa__alloc_keep(c, (gr.n_fams + 1) * sizeof *f->fams);
    for (size_t k = 0; k < nb; k++)
        f->fams[f->family_of[k]].n_variants++;
    size_t at = 0;
    for (size_t q = 0; q < gr.n_fams; q++) {
        f->fams[q].first_variant = at;
        at += f->fams[q].n_variants;
        f->fams[q].n_variants = 0;
    }
    f->variants = sa__alloc_keep_raw(c, (nb + 1) * sizeof *f->variants);
    for (size_t k = 0; k < nb; k++) {
        fam *F = &f->fams[f->family_of[k]];
        f->variants[F->first_variant + F->n_variants++] = (uint32_t)k;
    }
    for (size_t q = 0; q < gr.n_fams; q++) /* nothing fails from here */
        f->fams[number[q]].modes = bdd_addref(gr.dom[q]);
    f->n_families = gr.n_fams; /* the references the free releases */
}

/* ---- 2. Items -------------------------------------------------------------- */

typedef struct titem {
    int kind;
    cdg_item item;
    uint32_t block;
} titem;

static int titem_cmp(const void *x, const void *y)
{
    const titem *a = x, *b = y;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    if (a->item.index != b->item.index)
        return a->item.index < b->item.index ? -1 : 1;
    if (a->item.order != b->item.order)
        return a->item.order < b->item.order ? -1 : 1;
    return a->block < b->block ? -1 : a->block > b->block;
}

static size_t block_items(const cdg_block *B)
{
    return B->n_equations + B->n_unknowns + B->n_reads;
}

/* Family F's variants' items into t (sorted); their number. */
static size_t gather(const cdg_families *f, const fam *F, titem *t)
{
    size_t n = 0;
    for (size_t v = 0; v < F->n_variants; v++) {
        uint32_t id = f->variants[F->first_variant + v];
        const cdg_block *B = &f->g->blocks[id];
        for (size_t a = 0; a < B->n_equations; a++)
            t[n++] = (titem){K_EQ, B->equations[a], id};
        for (size_t a = 0; a < B->n_unknowns; a++)
            t[n++] = (titem){K_UNK, B->unknowns[a], id};
        for (size_t a = 0; a < B->n_reads; a++)
            t[n++] = (titem){K_READ, B->reads[a], id};
    }
    qsort(t, n, sizeof *t, titem_cmp);
    return n;
}

static bool same_item(const titem *a, const titem *b)
{
    return a->kind == b->kind && a->item.index == b->item.index && a->item.order == b->item.order;
}

static void items(sa_ctx *c, cdg_families *f)
{
    size_t most = 0, total = 0;
    for (size_t q = 0; q < f->n_families; q++) {
        const fam *F = &f->fams[q];
        size_t n = 0;
        for (size_t v = 0; v < F->n_variants; v++)
            n += block_items(&f->g->blocks[f->variants[F->first_variant + v]]);
        most = n > most ? n : most;
        total += n;
    }
    titem *t = sa__alloc_raw(c, (most + 1) * sizeof *t);
    f->items = sa__alloc_keep_raw(c, (total + 1) * sizeof *f->items);
    f->imodes = sa__alloc_keep(c, (total + 1) * sizeof *f->imodes);
    for (size_t q = 0; q < f->n_families; q++) {
        fam *F = &f->fams[q];
        size_t n = gather(f, F, t);
        int kind = K_EQ;
        F->first_item[K_EQ] = f->n_items;
        for (size_t a = 0; a < n;) {
            while (kind < t[a].kind)
                F->first_item[++kind] = f->n_items;
            size_t mark = sa__mark(c);
            BDD modes = bddfalse;
            size_t b = a;
            for (; b < n && same_item(&t[a], &t[b]); b++)
                modes = T(bdd_or(modes, f->g->bguard[t[b].block]));
            modes = T(sa__and(modes, f->g->r->ok)); /* guards exact on ok only */
            f->items[f->n_items] = t[a].item;
            f->imodes[f->n_items++] = bdd_addref(modes);
            sa__release(c, mark);
            a = b;
        }
        while (kind < K_KINDS)
            F->first_item[++kind] = f->n_items;
        sa__progress(c, "families", q, f->n_families);
    }
}

/* ---- 3. Edges -------------------------------------------------------------- */

/* Family F -> family G in the modes where an unknown (j, k) of F's block
 * is a read of G's: OR over the pairs (j, k) of U_F(j, k) & R_G(j, k),
 * which is, expanded, the union over their variants A, B of guard(A) &
 * guard(B) where unknowns(A) and reads(B) share a pair: the block edges'
 * guards (cdg.h). So the families need no block edges (sa_options.families
 * builds none): the work is the items', not the pairs of blocks'. */

typedef struct use {
    uint32_t var;
    int order;
    uint32_t family;
    size_t item; /* into f->items */
} use;

static int use_cmp(const void *x, const void *y)
{
    const use *a = x, *b = y;
    if (a->var != b->var)
        return a->var < b->var ? -1 : 1;
    if (a->order != b->order)
        return a->order < b->order ? -1 : 1;
    if (a->family != b->family)
        return a->family < b->family ? -1 : 1;
    return a->item < b->item ? -1 : a->item > b->item;
}

/* A writer and a reader of the same pair, in two families. */
typedef struct meet {
    uint32_t from, to;   /* families */
    size_t unknown, read; /* items */
} meet;

static int meet_cmp(const void *x, const void *y)
{
    const meet *a = x, *b = y;
    if (a->from != b->from)
        return a->from < b->from ? -1 : 1;
    if (a->to != b->to)
        return a->to < b->to ? -1 : 1;
    if (a->unknown != b->unknown)
        return a->unknown < b->unknown ? -1 : 1;
    return a->read < b->read ? -1 : a->read > b->read;
}

/* The uses of kind `kind` (unknowns or reads) of every family, sorted. */
static use *uses_of(sa_ctx *c, const cdg_families *f, int kind, size_t *n)
{
    size_t total = 0;
    for (size_t q = 0; q < f->n_families; q++)
        total += f->fams[q].first_item[kind + 1] - f->fams[q].first_item[kind];
    use *u = sa__alloc_raw(c, (total + 1) * sizeof *u);
    size_t at = 0;
    for (size_t q = 0; q < f->n_families; q++)
        for (size_t a = f->fams[q].first_item[kind]; a < f->fams[q].first_item[kind + 1]; a++)
            u[at++] = (use){f->items[a].index, f->items[a].order, (uint32_t)q, a};
    qsort(u, total, sizeof *u, use_cmp);
    *n = total;
    return u;
}

/* Every (writer, reader) of a pair in two different families. */
static meet *meets(sa_ctx *c, const cdg_families *f, size_t *n_out)
{
    size_t nw, nr, n = 0, cap = 0;
    use *w = uses_of(c, f, K_UNK, &nw), *rd = uses_of(c, f, K_READ, &nr);
    meet *m = NULL;
    size_t a = 0;
    for (size_t b = 0; b < nr; b++) {
        while (a < nw && (w[a].var < rd[b].var ||
                          (w[a].var == rd[b].var && w[a].order < rd[b].order)))
            a++;
        for (size_t q = a; q < nw && w[q].var == rd[b].var && w[q].order == rd[b].order; q++) {
            if (w[q].family == rd[b].family) /* a block never reads its unknown */
                continue;
            if (n == cap) {
                size_t nc = cap ? 2 * cap : 256;
                meet *nm = sa__alloc_raw(c, nc * sizeof *nm);
                if (n)
                    memcpy(nm, m, n * sizeof *nm);
                m = nm;
                cap = nc;
            }
            m[n++] = (meet){w[q].family, rd[b].family, w[q].item, rd[b].item};
        }
    }
    if (n > 1)
        qsort(m, n, sizeof *m, meet_cmp);
    *n_out = n;
    return m;
}

static void edges(sa_ctx *c, cdg_families *f)
{
    size_t nm;
    meet *m = meets(c, f, &nm);
    f->efrom = sa__alloc_keep_raw(c, (nm + 1) * sizeof *f->efrom);
    f->eto = sa__alloc_keep_raw(c, (nm + 1) * sizeof *f->eto);
    f->eguard = sa__alloc_keep(c, (nm + 1) * sizeof *f->eguard);
    for (size_t a = 0; a < nm;) {
        size_t mark = sa__mark(c);
        BDD guard = bddfalse;
        size_t b = a;
        for (; b < nm && m[b].from == m[a].from && m[b].to == m[a].to; b++)
            guard = T(bdd_or(guard, T(bdd_and(f->imodes[m[b].unknown], f->imodes[m[b].read]))));
        if (guard != bddfalse) {
            f->efrom[f->n_edges] = m[a].from;
            f->eto[f->n_edges] = m[a].to;
            f->eguard[f->n_edges++] = bdd_addref(guard);
        }
        sa__release(c, mark);
        a = b;
    }
}

/* ---- Entry points -------------------------------------------------------------- */

void cdg_families_free(cdg_families *f)
{
    if (f == NULL)
        return;
    if (sa__running()) {
        for (size_t q = 0; f->fams && q < f->n_families; q++)
            bdd_delref(f->fams[q].modes);
        for (size_t k = 0; f->imodes && k < f->n_items; k++)
            bdd_delref(f->imodes[k]);
        for (size_t k = 0; f->eguard && k < f->n_edges; k++)
            bdd_delref(f->eguard[k]);
    }
    mdae_free(f->fams);
    mdae_free(f->family_of);
    mdae_free(f->variants);
    mdae_free(f->items);
    mdae_free(f->imodes);
    mdae_free(f->efrom);
    mdae_free(f->eto);
    mdae_free(f->eguard);
    mdae_free(f);
}

int cdg_families_build(const cdg_graph *g, cdg_families **out)
{
    if (g == NULL || out == NULL)
        return MDAE_E_INVAL;
    if (!sa__running())
        return MDAE_E_STATE;
    sa_ctx *c = mdae_malloc(sizeof *c);
    cdg_families *f = mdae_calloc(1, sizeof *f);
    if (c == NULL || f == NULL) {
        mdae_free(c);
        mdae_free(f);
        return MDAE_E_NOMEM;
    }
    f->g = g;
    sa__ctx_init(c, NULL, NULL);
    if (setjmp(c->jb)) {
        int rc = c->rc;
        sa__leave(c);
        cdg_families_free(f);
        mdae_free(c);
        return rc;
    }
    sa__enter(c);
    sa__progress(c, "families", 0, g->n_blocks);
    group(c, f);
    items(c, f);
    edges(c, f);
    sa__leave(c);
    mdae_free(c);
    *out = f;
    return MDAE_OK;
}

size_t cdg_families_count(const cdg_families *f) { return f ? f->n_families : 0; }
size_t cdg_families_n_edges(const cdg_families *f) { return f ? f->n_edges : 0; }

uint32_t cdg_families_of_block(const cdg_families *f, uint32_t block)
{
    return f != NULL && block < f->g->n_blocks ? f->family_of[block] : UINT32_MAX;
}

void cdg_families_variant_close(cdg_block *b)
{
    if (b == NULL)
        return;
    mdae_free((void *)b->equations); /* the three arrays are one */
    memset(b, 0, sizeof *b);
}

int cdg_families_variant_at(const cdg_families *f, size_t k, const bool *mode, cdg_block *out)
{
    if (f == NULL || out == NULL || k >= f->n_families ||
        (mode == NULL && f->g->r->n_modes > 0))
        return MDAE_E_INVAL;
    if (!sa__running())
        return MDAE_E_STATE;
    static const bool none[1] = {false};
    const sa_result *r = f->g->r;
    const fam *F = &f->fams[k];
    mode = mode != NULL ? mode : none;
    size_t total = F->first_item[K_KINDS] - F->first_item[K_EQ];
    cdg_item *it = mdae_malloc((total + 1) * sizeof *it);
    if (it == NULL)
        return MDAE_E_NOMEM;
    size_t n[K_KINDS] = {0}, at = 0;
    for (int kind = K_EQ; kind < K_KINDS; kind++)
        for (size_t a = F->first_item[kind]; a < F->first_item[kind + 1]; a++)
            if (sa__eval(r, f->imodes[a], mode)) {
                it[at++] = f->items[a];
                n[kind]++;
            }
    cdg_block b = {.id = UINT32_MAX, .equations = it};
    bool in_ok = sa__eval(r, r->ok, mode); /* guards exact on ok only */
    for (size_t v = 0; v < F->n_variants; v++)
        if (in_ok && sa__eval(r, f->g->bguard[f->variants[F->first_variant + v]], mode))
            b.id = f->variants[F->first_variant + v];
    b.n_equations = n[K_EQ];
    b.n_unknowns = n[K_UNK];
    b.n_reads = n[K_READ];
    b.unknowns = it + n[K_EQ];
    b.reads = it + n[K_EQ] + n[K_UNK];
    *out = b;
    return MDAE_OK;
}

int cdg_families_edge_at(const cdg_families *f, size_t e, const bool *mode, uint32_t *from,
                         uint32_t *to, bool *holds)
{
    if (f == NULL || e >= f->n_edges || (mode == NULL && f->g->r->n_modes > 0))
        return MDAE_E_INVAL;
    if (!sa__running())
        return MDAE_E_STATE;
    static const bool none[1] = {false};
    if (from)
        *from = f->efrom[e];
    if (to)
        *to = f->eto[e];
    if (holds)
        *holds = sa__eval(f->g->r, f->eguard[e], mode != NULL ? mode : none);
    return MDAE_OK;
}

/* ---- Report -------------------------------------------------------------------- */

void cdg_family_report_free(cdg_family_report *rep)
{
    if (rep == NULL)
        return;
    mdae_free((void *)rep->mode_names);
    for (size_t q = 0; rep->families && q < rep->n_families; q++) {
        cdg_report_family *F = &rep->families[q];
        sa__set_close(&F->modes);
        cdg_family_item *lists[3] = {F->equations, F->unknowns, F->reads};
        size_t counts[3] = {F->n_equations, F->n_unknowns, F->n_reads};
        for (int kind = 0; kind < 3; kind++) {
            for (size_t a = 0; lists[kind] && a < counts[kind]; a++)
                sa__set_close(&lists[kind][a].modes);
            mdae_free(lists[kind]);
        }
    }
    for (size_t k = 0; rep->edges && k < rep->n_edges; k++)
        sa__set_close(&rep->edges[k].guard);
    mdae_free(rep->families);
    mdae_free(rep->edges);
    mdae_free(rep);
}

typedef struct report_ctx {
    const cdg_families *f;
    cdg_family_report *rep;
    sa__care care;
    sa__set_memo memo;
} report_ctx;

/* The items of kind `kind` of family F into *list (kept), *n counting the
 * ones whose sets are written (what the free closes). */
static void report_items(sa_ctx *c, report_ctx *x, const fam *F, int kind,
                         cdg_family_item **list, size_t *n)
{
    const cdg_families *f = x->f;
    size_t first = F->first_item[kind], last = F->first_item[kind + 1];
    *list = sa__alloc_keep(c, (last - first + 1) * sizeof **list);
    for (size_t a = first; a < last; a++) {
        (*list)[a - first].item = f->items[a];
        sa__set_of_memo(c, f->g->r, &x->care, &x->memo, f->imodes[a], &(*list)[a - first].modes);
        *n = a - first + 1;
    }
}

static void report_fill(sa_ctx *c, report_ctx *x)
{
    const cdg_families *f = x->f;
    const sa_result *r = f->g->r;
    cdg_family_report *rep = x->rep;
    const char **names = sa__alloc_keep(c, (r->n_modes + 1) * sizeof *names);
    rep->mode_names = names;
    rep->n_modes = r->n_modes;
    for (uint32_t k = 0; k < r->n_modes; k++)
        names[k] = r->m->modes[k].name;
    rep->n_blocks = f->g->n_blocks;
    sa__care_init(c, r, r->chi_m, &x->care);
    sa__set_memo_init(c, &x->memo, f->n_items + f->n_families + f->n_edges);
    rep->families = sa__alloc_keep(c, (f->n_families + 1) * sizeof *rep->families);
    for (size_t q = 0; q < f->n_families; q++) {
        const fam *F = &f->fams[q];
        cdg_report_family *R = &rep->families[q];
        rep->n_families = q + 1; /* zeroed: the free closes what is written */
        R->id = (uint32_t)q;
        R->n_variants = F->n_variants;
        R->variants = &f->variants[F->first_variant];
        sa__set_of_memo(c, r, &x->care, &x->memo, F->modes, &R->modes);
        report_items(c, x, F, K_EQ, &R->equations, &R->n_equations);
        report_items(c, x, F, K_UNK, &R->unknowns, &R->n_unknowns);
        report_items(c, x, F, K_READ, &R->reads, &R->n_reads);
        sa__progress(c, "report", q, f->n_families);
    }
    rep->edges = sa__alloc_keep(c, (f->n_edges + 1) * sizeof *rep->edges);
    for (size_t k = 0; k < f->n_edges; k++) {
        rep->edges[k].from = f->efrom[k];
        rep->edges[k].to = f->eto[k];
        sa__set_of_memo(c, r, &x->care, &x->memo, f->eguard[k], &rep->edges[k].guard);
        rep->n_edges = k + 1;
    }
}

int cdg_families_report(const cdg_families *f, cdg_family_report **out)
{
    if (f == NULL || out == NULL)
        return MDAE_E_INVAL;
    if (!sa__running())
        return MDAE_E_STATE;
    sa_ctx *c = mdae_malloc(sizeof *c);
    cdg_family_report *rep = mdae_calloc(1, sizeof *rep);
    if (c == NULL || rep == NULL) {
        mdae_free(c);
        mdae_free(rep);
        return MDAE_E_NOMEM;
    }
    sa__ctx_init(c, NULL, NULL);
    if (setjmp(c->jb)) {
        int rc = c->rc;
        sa__leave(c);
        cdg_family_report_free(rep);
        mdae_free(c);
        return rc;
    }
    sa__enter(c);
    report_ctx x = {.f = f, .rep = rep};
    report_fill(c, &x);
    sa__leave(c);
    mdae_free(c);
    *out = rep;
    return MDAE_OK;
}
