/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/sm_warm.c -- one mode's canonical offsets after an edit, from the
 * same mode's before it (sm_warm.h says what and why it is exact). Every
 * row, column and edge is read through the graph's callbacks the first
 * time a solve needs it, and kept until the next solve (stamps: nothing is
 * cleared per solve).
 */
#include "sm_warm.h"
#include "sm_heap.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define UNKNOWN (-2)     /* a mate not read yet: the old version's */
#define UNREAD INT_MIN   /* an edge's orders not read yet */

/* A row's marks in one solve (valid while row_at is the solve's stamp). */
enum {
    R_C0 = 1,      /* c0, x and u read */
    R_FREE = 2,    /* in free_rows */
    R_MOVED = 4,   /* in moved: its new mate is not known to be its old one */
    R_DEL = 8,     /* in Del */
    R_LISTED = 16, /* in list */
    R_QUEUED = 32  /* in the worklist */
};

/* A set of indices, open addressing (slot: index + 1, 0 empty): the
 * edit's few items, asked about for every item a solve reads. */
typedef struct index_set {
    size_t *slot;
    size_t mask;
} index_set;

struct sm_warm {
    sm_warm_graph g;
    /* The edit: the changed items (sets and lists, repeats dropped), and
     * CC (sm_warm.h): the columns with a changed edge, an edge of a changed
     * row, or changed themselves. */
    index_set edges_changed, rows_changed, cols_changed, cc_set;
    size_t *ch_edges, n_ch_edges;
    uint32_t *ch_rows, *ch_cols, *cc;
    size_t n_ch_rows, n_ch_cols, n_cc;
    /* One solve: its stamp, and what it reached. The stamps (row_at,
     * col_at) are the only arrays over the whole graph written before a
     * solve; everything else is written when its row or column is read. */
    uint32_t stamp, budget, reached;
    uint64_t search; /* the searches' stamps: never wrap */
    bool over;
    /* Rows: read (row_at), marks, activity new and old, old offset, the
     * current offset x and potential u (R_C0), mates (edges; mate: the new
     * matching, UNKNOWN: the old one's). */
    uint32_t *row_at;
    unsigned char *rflag;
    bool *act, *act0;
    int *c0, *x;
    long long *u;
    long *mate0, *mate;
    /* Columns: read, activity, mates (rows), potential v (v_known), the
     * searches' marks and distances. */
    uint32_t *col_at;
    bool *cact, *cact0, *v_known;
    long *cmate0, *cmate;
    long long *v, *dist;
    uint64_t *seen_at, *done_at;
    size_t *par_edge;
    /* Edges (read with their row): order new and old, -1 inactive. */
    int *sig, *sig0;
    /* Work lists. */
    uint32_t *free_rows, *moved, *queue, *done_cols, *list;
    size_t n_free, n_moved, n_done, n_list;
    int *list_c;
    sm_heap_item *heap;
    size_t n_heap;
};

/* ---- Sets of indices --------------------------------------------------------- */

static size_t set_cap(size_t n)
{
    size_t cap = 8;
    while (cap < 2 * n + 2)
        cap *= 2;
    return cap;
}

static size_t set_home(const index_set *s, size_t k)
{
    return (size_t)(((uint64_t)k * 0x9E3779B97F4A7C15ull) >> 29) & s->mask;
}

static bool set_has(const index_set *s, size_t k)
{
    for (size_t h = set_home(s, k); s->slot[h] != 0; h = (h + 1) & s->mask)
        if (s->slot[h] == k + 1)
            return true;
    return false;
}

/* Adds k; false if it was there. */
static bool set_add(index_set *s, size_t k)
{
    size_t h = set_home(s, k);
    for (; s->slot[h] != 0; h = (h + 1) & s->mask)
        if (s->slot[h] == k + 1)
            return false;
    s->slot[h] = k + 1;
    return true;
}

/* ---- The object ---------------------------------------------------------------- */

/* Carve n elements of `size` bytes at *at (16-byte aligned) when base is
 * not NULL; always advance *at. */
static void *carve(char *base, size_t *at, size_t n, size_t size)
{
    void *p = base != NULL ? base + *at : NULL;
    *at += (n * size + 15) & ~(size_t)15;
    return p;
}

/* The bound on CC's size: the changed edges and columns, and the edges of
 * the changed rows. */
static size_t cc_bound(const sm_warm_graph *g, const uint32_t *rows, size_t nr, size_t ne,
                       size_t nc)
{
    size_t n = ne + nc + 1;
    for (size_t k = 0; k < nr; k++)
        n += g->row_first[rows[k] + 1] - g->row_first[rows[k]];
    return n;
}

/* Every array, in one block of the returned size: measured with base
 * NULL, then carved. What must start zeroed (the stamps and the sets'
 * slots) comes first: *zeroed bytes. */
static size_t lay_out(sm_warm *w, char *base, size_t ne, size_t nr, size_t nc, size_t ncc,
                      size_t *zeroed)
{
    size_t r = (size_t)w->g.n_rows + 1, c = (size_t)w->g.n_cols + 1, e = w->g.n_edges + 1;
    size_t at = 0;
#define C(field, n) (w->field = carve(base, &at, (n), sizeof *w->field))
#define S(set, n)                                                                              \
    (w->set.slot = carve(base, &at, set_cap(n), sizeof *w->set.slot), w->set.mask = set_cap(n) - 1)
    C(row_at, r), C(col_at, c);
    S(edges_changed, ne), S(rows_changed, nr), S(cols_changed, nc), S(cc_set, ncc);
    *zeroed = at;
    C(ch_edges, ne + 1), C(ch_rows, nr + 1), C(ch_cols, nc + 1), C(cc, ncc);
    C(rflag, r), C(act, r), C(act0, r), C(c0, r), C(x, r), C(u, r), C(mate0, r), C(mate, r);
    C(cact, c), C(cact0, c), C(v_known, c), C(cmate0, c), C(cmate, c), C(v, c), C(dist, c);
    C(seen_at, c), C(done_at, c), C(par_edge, c), C(sig, e), C(sig0, e), C(free_rows, r);
    C(moved, r), C(queue, r), C(done_cols, c), C(list, r), C(list_c, r), C(heap, e + c);
#undef S
#undef C
    return at;
}

/* The changed items' sets and lists (repeats dropped), and CC. */
static void note_changes(sm_warm *w, const size_t *edges, size_t ne, const uint32_t *rows,
                         size_t nr, const uint32_t *cols, size_t nc)
{
    const sm_warm_graph *g = &w->g;
    for (size_t k = 0; k < ne; k++)
        if (set_add(&w->edges_changed, edges[k]))
            w->ch_edges[w->n_ch_edges++] = edges[k];
    for (size_t k = 0; k < nr; k++)
        if (set_add(&w->rows_changed, rows[k]))
            w->ch_rows[w->n_ch_rows++] = rows[k];
    for (size_t k = 0; k < nc; k++)
        if (set_add(&w->cols_changed, cols[k]))
            w->ch_cols[w->n_ch_cols++] = cols[k];
#define CC(j)                                                                                  \
    do {                                                                                       \
        uint32_t j_ = (j);                                                                     \
        if (set_add(&w->cc_set, j_))                                                           \
            w->cc[w->n_cc++] = j_;                                                             \
    } while (0)
    for (size_t k = 0; k < w->n_ch_edges; k++)
        CC(g->col[w->ch_edges[k]]);
    for (size_t k = 0; k < w->n_ch_cols; k++)
        CC(w->ch_cols[k]);
    for (size_t k = 0; k < w->n_ch_rows; k++)
        for (size_t e = g->row_first[w->ch_rows[k]]; e < g->row_first[w->ch_rows[k] + 1]; e++)
            CC(g->col[e]);
#undef CC
}

static bool valid_graph(const sm_warm_graph *g)
{
    return g != NULL && g->row_first != NULL && (g->n_edges == 0 || g->col != NULL) &&
           g->edge_row != NULL && g->col_first != NULL && g->col_edges != NULL &&
           g->sigma != NULL && g->row_active != NULL && g->col_active != NULL &&
           g->offset != NULL && g->matched != NULL && g->n_rows > 0;
}

size_t sm_warm_size(const sm_warm_graph *g, const size_t *edges, size_t n_edges,
                    const uint32_t *rows, size_t n_rows, const uint32_t *cols, size_t n_cols)
{
    (void)edges;
    (void)cols;
    if (!valid_graph(g))
        return 0;
    sm_warm w = {.g = *g};
    size_t zeroed;
    return ((sizeof w + 15) & ~(size_t)15) +
           lay_out(&w, NULL, n_edges, n_rows, n_cols, cc_bound(g, rows, n_rows, n_edges, n_cols),
                   &zeroed);
}

sm_warm *sm_warm_init(void *mem, size_t size, const sm_warm_graph *g, const size_t *edges,
                      size_t n_edges, const uint32_t *rows, size_t n_rows, const uint32_t *cols,
                      size_t n_cols)
{
    size_t need = sm_warm_size(g, edges, n_edges, rows, n_rows, cols, n_cols);
    if (mem == NULL || need == 0 || size < need)
        return NULL;
    sm_warm *w = mem;
    *w = (sm_warm){.g = *g};
    char *base = (char *)mem + ((sizeof *w + 15) & ~(size_t)15);
    size_t zeroed;
    lay_out(w, base, n_edges, n_rows, n_cols, cc_bound(g, rows, n_rows, n_edges, n_cols),
            &zeroed);
    memset(base, 0, zeroed);
    note_changes(w, edges, n_edges, rows, n_rows, cols, n_cols);
    return w;
}

sm_warm *sm_warm_new(const sm_warm_graph *g, const size_t *edges, size_t n_edges,
                     const uint32_t *rows, size_t n_rows, const uint32_t *cols, size_t n_cols)
{
    size_t size = sm_warm_size(g, edges, n_edges, rows, n_rows, cols, n_cols);
    void *mem = size > 0 ? mdae_malloc(size) : NULL;
    sm_warm *w = sm_warm_init(mem, size, g, edges, n_edges, rows, n_rows, cols, n_cols);
    if (w == NULL)
        mdae_free(mem);
    return w;
}

void sm_warm_free(sm_warm *w) { mdae_free(w); }


size_t sm_warm_rows(const sm_warm *w, const uint32_t **rows, const int **c)
{
    *rows = w->list;
    *c = w->list_c;
    return w->n_list;
}

bool sm_warm_listed(const sm_warm *w, uint32_t i)
{
    return i < w->g.n_rows && w->row_at[i] == w->stamp && (w->rflag[i] & R_LISTED) != 0;
}

/* ---- Reading on demand ---------------------------------------------------------- */

/* A new stamp for a solve (row_at and col_at cleared when it wraps). */
static void next_stamp(sm_warm *w)
{
    if (++w->stamp != 0)
        return;
    memset(w->row_at, 0, ((size_t)w->g.n_rows + 1) * sizeof *w->row_at);
    memset(w->col_at, 0, ((size_t)w->g.n_cols + 1) * sizeof *w->col_at);
    w->stamp = 1;
}

/* Row i read: its activity in both versions, marks and mates cleared, its
 * edges' orders unread. */
static void load_row(sm_warm *w, uint32_t i)
{
    if (w->row_at[i] == w->stamp)
        return;
    w->row_at[i] = w->stamp;
    if (++w->reached > w->budget)
        w->over = true;
    bool a = w->g.row_active(w->g.ctx, i, false);
    w->act[i] = a;
    w->act0[i] = set_has(&w->rows_changed, i) ? w->g.row_active(w->g.ctx, i, true) : a;
    w->rflag[i] = 0;
    w->mate0[i] = w->mate[i] = UNKNOWN;
    for (size_t e = w->g.row_first[i]; e < w->g.row_first[i + 1]; e++)
        w->sig[e] = UNREAD;
}

static void load_col(sm_warm *w, uint32_t j)
{
    if (w->col_at[j] == w->stamp)
        return;
    w->col_at[j] = w->stamp;
    bool a = w->g.col_active(w->g.ctx, j, false);
    w->cact[j] = a;
    w->cact0[j] = set_has(&w->cols_changed, j) ? w->g.col_active(w->g.ctx, j, true) : a;
    w->cmate0[j] = w->cmate[j] = UNKNOWN;
    w->v_known[j] = false;
    w->seen_at[j] = w->done_at[j] = 0;
}

/* Edge e's orders in both versions: an unchanged edge is read once. */
static void load_edge(sm_warm *w, size_t e)
{
    uint32_t i = w->g.edge_row[e], j = w->g.col[e];
    load_row(w, i);
    if (w->sig[e] != UNREAD)
        return;
    load_col(w, j);
    bool now = w->act[i] && w->cact[j], then = w->act0[i] && w->cact0[j];
    bool same = !set_has(&w->edges_changed, e);
    int s = now || (then && same) ? w->g.sigma(w->g.ctx, e, false) : -1;
    w->sig[e] = now ? s : -1;
    w->sig0[e] = !then ? -1 : same ? s : w->g.sigma(w->g.ctx, e, true);
}

static int sig_new(sm_warm *w, size_t e)
{
    load_edge(w, e);
    return w->sig[e];
}

static int sig_old(sm_warm *w, size_t e)
{
    load_edge(w, e);
    return w->sig0[e];
}

/* Row i's old offset, with x and u starting there. */
static int c0_of(sm_warm *w, uint32_t i)
{
    load_row(w, i);
    if (!(w->rflag[i] & R_C0)) {
        w->rflag[i] |= R_C0;
        w->c0[i] = w->act0[i] ? w->g.offset(w->g.ctx, i) : 0;
        MDAE_ASSERT(w->c0[i] >= 0);
        w->x[i] = w->c0[i];
        w->u[i] = w->c0[i];
    }
    return w->c0[i];
}

/* Whether row i has mark f, and marking it (true if it was not). */
static bool marked(sm_warm *w, uint32_t i, unsigned f)
{
    load_row(w, i);
    return (w->rflag[i] & f) != 0;
}

static bool mark(sm_warm *w, uint32_t i, unsigned f)
{
    if (marked(w, i, f))
        return false;
    w->rflag[i] |= (unsigned char)f;
    return true;
}

/* Row i's edge in the old matching, -1 if the row was inactive. */
static long mate0_of(sm_warm *w, uint32_t i)
{
    load_row(w, i);
    if (w->mate0[i] == UNKNOWN) {
        w->mate0[i] = -1;
        for (size_t e = w->g.row_first[i]; e < w->g.row_first[i + 1] && w->act0[i]; e++)
            if (sig_old(w, e) >= 0 && w->g.matched(w->g.ctx, e)) {
                w->mate0[i] = (long)e;
                break;
            }
        MDAE_ASSERT(!w->act0[i] || w->mate0[i] >= 0); /* the old matching is perfect */
    }
    return w->mate0[i];
}

/* Column j's row in the old matching, -1 if the column was inactive. */
static long cmate0_of(sm_warm *w, uint32_t j)
{
    load_col(w, j);
    if (w->cmate0[j] == UNKNOWN) {
        w->cmate0[j] = -1;
        for (size_t k = w->g.col_first[j]; k < w->g.col_first[j + 1] && w->cact0[j]; k++) {
            size_t e = w->g.col_edges[k];
            if (sig_old(w, e) >= 0 && w->g.matched(w->g.ctx, e)) {
                w->cmate0[j] = (long)w->g.edge_row[e];
                break;
            }
        }
        MDAE_ASSERT(!w->cact0[j] || w->cmate0[j] >= 0);
    }
    return w->cmate0[j];
}

/* The new matching's edge of row i (-1: free), and row of column j. */
static long mate_of(sm_warm *w, uint32_t i)
{
    load_row(w, i);
    if (w->mate[i] == UNKNOWN)
        w->mate[i] = mate0_of(w, i);
    return w->mate[i];
}

static long cmate_of(sm_warm *w, uint32_t j)
{
    load_col(w, j);
    if (w->cmate[j] == UNKNOWN)
        w->cmate[j] = cmate0_of(w, j);
    return w->cmate[j];
}

static void set_mate(sm_warm *w, uint32_t i, long e)
{
    mate_of(w, i);
    w->mate[i] = e;
}

static void set_cmate(sm_warm *w, uint32_t j, long i)
{
    cmate_of(w, j);
    w->cmate[j] = i;
}

/* Old column j's d0: its old row's offset plus the matched edge's order. */
static long long d0_of(sm_warm *w, uint32_t j)
{
    long i = cmate0_of(w, j);
    MDAE_ASSERT(i >= 0);
    return (long long)c0_of(w, (uint32_t)i) + sig_old(w, (size_t)mate0_of(w, (uint32_t)i));
}

/* Column j's potential: d0 for an old column, else what set_v gave. */
static long long v_of(sm_warm *w, uint32_t j)
{
    load_col(w, j);
    if (!w->v_known[j]) {
        MDAE_ASSERT(w->cact0[j]);
        w->v[j] = d0_of(w, j);
        w->v_known[j] = true;
    }
    return w->v[j];
}

static void set_v(sm_warm *w, uint32_t j, long long v)
{
    load_col(w, j);
    w->v_known[j] = true;
    w->v[j] = v;
}

static long long u_of(sm_warm *w, uint32_t i)
{
    c0_of(w, i);
    return w->u[i];
}

/* ---- The matching ------------------------------------------------------------------ */

static void mark_moved(sm_warm *w, uint32_t i)
{
    if (mark(w, i, R_MOVED))
        w->moved[w->n_moved++] = i;
}

/* Row i (active in the new version) loses its matched edge, if any. */
static void free_row(sm_warm *w, uint32_t i)
{
    if (!mark(w, i, R_FREE))
        return;
    long e = mate_of(w, i);
    if (e >= 0)
        set_cmate(w, w->g.col[e], -1);
    w->mate[i] = -1;
    w->free_rows[w->n_free++] = i;
    mark_moved(w, i);
}

/* The old matched edges the edit broke: rows and columns that appear or
 * go, matched edges whose order or activity changed. False if the new
 * version's active rows and columns are not as many. */
static bool break_matching(sm_warm *w)
{
    const sm_warm_graph *g = &w->g;
    long surplus = 0;
    for (size_t k = 0; k < w->n_ch_rows; k++) {
        uint32_t i = w->ch_rows[k];
        load_row(w, i);
        surplus += (long)w->act[i] - (long)w->act0[i];
    }
    for (size_t k = 0; k < w->n_ch_cols; k++) {
        uint32_t j = w->ch_cols[k];
        load_col(w, j);
        surplus -= (long)w->cact[j] - (long)w->cact0[j];
    }
    if (surplus != 0)
        return false;
    for (size_t k = 0; k < w->n_ch_rows; k++) {
        uint32_t i = w->ch_rows[k];
        if (w->act0[i] && !w->act[i]) {
            set_cmate(w, g->col[mate0_of(w, i)], -1);
            set_mate(w, i, -1);
            mark_moved(w, i);
        } else if (!w->act0[i] && w->act[i]) {
            free_row(w, i);
        }
    }
    for (size_t k = 0; k < w->n_ch_cols; k++) {
        uint32_t j = w->ch_cols[k];
        if (w->cact0[j] && !w->cact[j]) {
            uint32_t i = (uint32_t)cmate0_of(w, j);
            if (w->act[i])
                free_row(w, i);
            set_cmate(w, j, -1);
        } else if (!w->cact0[j] && w->cact[j]) {
            set_cmate(w, j, -1);
        }
    }
    for (size_t k = 0; k < w->n_ch_edges; k++) {
        size_t e = w->ch_edges[k];
        uint32_t i = g->edge_row[e];
        if (sig_new(w, e) != sig_old(w, e) && w->act0[i] && w->act[i] &&
            mate0_of(w, i) == (long)e)
            free_row(w, i);
    }
    return true;
}

/* A feasible dual for the matching left: the changed edges that violate
 * d_j - c_i >= sigma free their rows; a new column's d is the largest
 * c_k + sigma_kj of its kept rows; a free row's c the smallest d_j -
 * sigma_ij of its edges. False if a free row has no edge. */
static bool fix_dual(sm_warm *w)
{
    const sm_warm_graph *g = &w->g;
    for (size_t k = 0; k < w->n_ch_edges; k++) {
        size_t e = w->ch_edges[k];
        uint32_t i = g->edge_row[e], j = g->col[e];
        int s = sig_new(w, e);
        if (s >= 0 && !marked(w, i, R_FREE) && w->cact0[j] &&
            v_of(w, j) - u_of(w, i) < s)
            free_row(w, i);
    }
    for (size_t k = 0; k < w->n_ch_cols; k++) {
        uint32_t j = w->ch_cols[k];
        if (w->cact0[j] || !w->cact[j])
            continue;
        long long d = 0;
        for (size_t q = g->col_first[j]; q < g->col_first[j + 1]; q++) {
            size_t e = g->col_edges[q];
            uint32_t i = g->edge_row[e];
            int s = sig_new(w, e);
            if (s >= 0 && !marked(w, i, R_FREE) && u_of(w, i) + s > d)
                d = u_of(w, i) + s;
        }
        set_v(w, j, d);
    }
    for (size_t k = 0; k < w->n_free; k++) {
        uint32_t i = w->free_rows[k];
        long long best = LLONG_MAX;
        for (size_t e = g->row_first[i]; e < g->row_first[i + 1]; e++) {
            int s = sig_new(w, e);
            if (s >= 0 && v_of(w, g->col[e]) - s < best)
                best = v_of(w, g->col[e]) - s;
        }
        if (best == LLONG_MAX)
            return false;
        c0_of(w, i);
        w->u[i] = best;
    }
    return true;
}

/* Row i's edges into the search (stamp st), at distance base to i. */
static void relax(sm_warm *w, uint32_t i, long long base, uint64_t st)
{
    const sm_warm_graph *g = &w->g;
    c0_of(w, i); /* u read, so that the potentials' update finds it */
    for (size_t e = g->row_first[i]; e < g->row_first[i + 1]; e++) {
        int s = sig_new(w, e);
        uint32_t j = g->col[e];
        if (s < 0 || w->done_at[j] == st)
            continue;
        long long rc = v_of(w, j) - u_of(w, i) - s;
        MDAE_ASSERT(rc >= 0); /* the dual is feasible */
        long long nd = base + rc;
        if (w->seen_at[j] != st || nd < w->dist[j]) {
            w->seen_at[j] = st;
            w->dist[j] = nd;
            w->par_edge[j] = e;
            sm_heap_push(w->heap, &w->n_heap, nd, j);
        }
    }
}

/* The shortest augmenting path from the free row s (Dijkstra on the
 * reduced costs), the potentials moved so that it is tight, and the
 * matching augmented (sm_solve.c's shortest_augment on the current
 * mode). False if no free column is reachable, or past the budget. */
static bool augment(sm_warm *w, uint32_t s)
{
    const sm_warm_graph *g = &w->g;
    uint64_t st = ++w->search;
    w->n_heap = w->n_done = 0;
    relax(w, s, 0, st);
    long long far = 0;
    long t = -1;
    while (w->n_heap > 0 && !w->over) {
        sm_heap_item it = sm_heap_pop(w->heap, &w->n_heap);
        uint32_t j = it.col;
        if (w->done_at[j] == st || it.key != w->dist[j])
            continue;
        w->done_at[j] = st;
        w->done_cols[w->n_done++] = j;
        long r = cmate_of(w, j);
        if (r < 0) {
            t = j;
            far = it.key;
            break;
        }
        relax(w, (uint32_t)r, it.key, st);
    }
    if (t < 0)
        return false;
    w->u[s] += far;
    for (size_t k = 0; k < w->n_done; k++) {
        uint32_t j = w->done_cols[k];
        long long shift = far - w->dist[j];
        w->v[j] += shift;
        long r = cmate_of(w, j);
        if (r >= 0)
            w->u[r] += shift;
    }
    for (uint32_t j = (uint32_t)t;;) {
        size_t e = w->par_edge[j];
        uint32_t i = g->edge_row[e];
        long old = mate_of(w, i);
        set_mate(w, i, (long)e);
        set_cmate(w, j, (long)i);
        mark_moved(w, i);
        if (i == s)
            return true;
        j = g->col[old];
    }
}

/* ---- The offsets ------------------------------------------------------------------- */

static void list_row(sm_warm *w, uint32_t i)
{
    if (mark(w, i, R_LISTED))
        w->list[w->n_list++] = i;
}

/* Row i into Del (if its old offset is positive and it is not there). The
 * queue holds Del in order. */
static void delete_row(sm_warm *w, uint32_t i, size_t *tail)
{
    load_row(w, i);
    if (!w->act0[i] || marked(w, i, R_DEL) || c0_of(w, i) <= 0)
        return;
    mark(w, i, R_DEL);
    w->queue[(*tail)++] = i;
}

/* Del (sm_warm.h, 3): the rows with a positive old offset that the edit
 * may lower, closed under the old tight arcs; into w->queue[0 .. *n). */
static void over_delete(sm_warm *w, size_t *n)
{
    const sm_warm_graph *g = &w->g;
    size_t head = 0, tail = 0;
    for (size_t k = 0; k < w->n_moved; k++)
        delete_row(w, w->moved[k], &tail);
    for (size_t k = 0; k < w->n_cc; k++) {
        long i = cmate0_of(w, w->cc[k]);
        if (i >= 0)
            delete_row(w, (uint32_t)i, &tail);
    }
    while (head < tail && !w->over) {
        uint32_t k = w->queue[head++];
        for (size_t e = g->row_first[k]; e < g->row_first[k + 1]; e++) {
            int s = sig_old(w, e);
            if (s < 0)
                continue;
            long i = cmate0_of(w, g->col[e]);
            if (i >= 0 && i != (long)k && !marked(w, (uint32_t)i, R_DEL) &&
                c0_of(w, (uint32_t)i) > 0 &&
                (long long)c0_of(w, k) + s == d0_of(w, g->col[e]))
                delete_row(w, (uint32_t)i, &tail);
        }
    }
    *n = tail;
}

/* Queue row i (active in the new version) for the worklist; the queue is
 * circular over n_rows slots, a row at most once at a time. */
static void enqueue(sm_warm *w, uint32_t i, size_t *head, size_t *count)
{
    load_row(w, i);
    if (!w->act[i] || !mark(w, i, R_QUEUED))
        return;
    w->queue[(*head + (*count)++) % w->g.n_rows] = i;
}

/* F(x)_i (sm_warm.h, 2) on the new matching. */
static long long pull(sm_warm *w, uint32_t i)
{
    const sm_warm_graph *g = &w->g;
    c0_of(w, i);
    long me = mate_of(w, i);
    MDAE_ASSERT(me >= 0);
    uint32_t j = g->col[me];
    long long best = w->x[i], own = sig_new(w, (size_t)me);
    for (size_t q = g->col_first[j]; q < g->col_first[j + 1]; q++) {
        size_t e = g->col_edges[q];
        int s = sig_new(w, e);
        if (s < 0)
            continue;
        uint32_t k = g->edge_row[e];
        c0_of(w, k);
        if (w->x[k] + s - own > best)
            best = w->x[k] + s - own;
    }
    return best;
}

/* The least fixed point from x = 0 on Del and Z, the old offsets
 * elsewhere; the rows started or raised listed. False past the budget. */
static bool offsets(sm_warm *w)
{
    const sm_warm_graph *g = &w->g;
    size_t n_del;
    over_delete(w, &n_del);
    if (w->over)
        return false;
    /* Del is queue[0 .. n_del): moved to list before the queue is reused. */
    for (size_t k = 0; k < n_del; k++)
        if (w->act[w->queue[k]])
            list_row(w, w->queue[k]);
    for (size_t k = 0; k < w->n_moved; k++)
        if (w->act[w->moved[k]])
            list_row(w, w->moved[k]);
    for (size_t k = 0; k < w->n_cc; k++) {
        uint32_t j = w->cc[k];
        long i = w->cact[j] ? cmate_of(w, j) : -1;
        if (i >= 0)
            list_row(w, (uint32_t)i);
    }
    size_t head = 0, count = 0;
    for (size_t k = 0; k < w->n_list; k++) {
        uint32_t i = w->list[k];
        c0_of(w, i);
        w->x[i] = 0;
        enqueue(w, i, &head, &count);
    }
    /* Each raise lifts one offset by at least 1; canonical offsets are
     * below n_rows * (the largest order + 1): a generous bound. */
    unsigned long long raises = 0, bound = (unsigned long long)g->n_rows * g->n_rows * 64 + 64;
    while (count > 0 && !w->over) {
        uint32_t i = w->queue[head];
        head = (head + 1) % g->n_rows;
        count--;
        w->rflag[i] &= (unsigned char)~R_QUEUED;
        long long val = pull(w, i);
        if (val <= w->x[i])
            continue;
        MDAE_ASSERT(++raises <= bound && val < INT_MAX / 4);
        w->x[i] = (int)val;
        list_row(w, i);
        long me = mate_of(w, i);
        for (size_t e = g->row_first[i]; e < g->row_first[i + 1]; e++) {
            if ((long)e == me || sig_new(w, e) < 0)
                continue;
            long k = cmate_of(w, g->col[e]);
            if (k >= 0)
                enqueue(w, (uint32_t)k, &head, &count);
        }
    }
    if (w->over)
        return false;
    for (size_t k = 0; k < w->n_list; k++)
        w->list_c[k] = w->x[w->list[k]];
    return true;
}

/* ---- Entry point ------------------------------------------------------------------- */

int sm_warm_solve(sm_warm *w, uint32_t budget)
{
    MDAE_ASSERT(w != NULL);
    next_stamp(w);
    w->budget = budget;
    w->reached = 0;
    w->over = false;
    w->n_free = w->n_moved = w->n_list = 0;
    if (!break_matching(w))
        return w->over ? SM_WARM_GAVE_UP : SM_WARM_SINGULAR;
    if (!fix_dual(w))
        return w->over ? SM_WARM_GAVE_UP : SM_WARM_SINGULAR;
    for (size_t k = 0; k < w->n_free; k++)
        if (!augment(w, w->free_rows[k]))
            return w->over ? SM_WARM_GAVE_UP : SM_WARM_SINGULAR;
    if (w->over || !offsets(w))
        return SM_WARM_GAVE_UP;
    return SM_WARM_PERFECT;
}
