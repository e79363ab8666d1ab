/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/sm_solve.c -- the single-mode analysis of one bipartite graph
 * (sm_solve): maximum matching, Dulmage-Mendelsohn coarse parts, maximum-
 * weight perfect matching, canonical offsets, lexicographic choice. What
 * each step computes and why the choice agrees with the implicit engine:
 * engine/sm.h. Every loop over the graph is iterative.
 */
#include "sm.h"
#include "sm_heap.h"

#include <limits.h>
#include <string.h>

struct sm_ws {
    void *block; /* every array below, carved from one allocation */
    uint32_t cap_rows, cap_cols;
    size_t cap_edges;
    /* The graph, completed: the row of each edge, the edges of each column. */
    uint32_t *edge_row;
    size_t *col_first;
    uint32_t *col_edges;
    /* Matching: mate_row[i] is an edge, mate_col[j] a row (-1: free). */
    int *mate_row, *mate_col;
    /* Searches: stamps avoid clearing per search. */
    uint32_t stamp;
    uint32_t *col_seen;
    uint32_t *col_done;
    size_t *stack_it;  /* Kuhn: next edge of each stacked row */
    uint32_t *stack_row;
    /* Breadth-first augmentation (sm_max_matching): each row's look-ahead
     * edge (no free column before it), and how a search reached each row:
     * the edge into its matched column and that edge's row. */
    size_t *look_next, *reach_edge;
    uint32_t *reach_row;
    uint32_t *queue;   /* rows, for breadth-first searches and the worklist */
    int *par_edge;     /* per column: the edge a search reached it by */
    /* Shortest paths. */
    long long *u, *v, *dist;
    sm_heap_item *heap;
    size_t n_heap;
    uint32_t *done_cols;
    /* Offsets and the choice. */
    bool *in_queue;
    unsigned char *forbidden;
    bool *forced_row, *forced_col;
    /* The tight graph's blocks (choose_smallest): row successors in
     * compressed rows, each row's block and the blocks' sizes. */
    size_t *succ_first;
    uint32_t *succ_to, *row_block, *block_rows;
    sm_scc_work scc;
    /* The solution's arrays. */
    sm_solution sol;
    int *c, *d;
    bool *over, *under;
};

sm_ws *sm_ws_new(void) { return mdae_calloc(1, sizeof(sm_ws)); }

void sm_ws_free(sm_ws *ws)
{
    if (ws == NULL)
        return;
    mdae_free(ws->block);
    mdae_free(ws);
}

/* Carve n elements of `size` bytes at *at (16-byte aligned) when base is
 * not NULL; always advance *at. */
static void *carve(char *base, size_t *at, size_t n, size_t size)
{
    void *p = base != NULL ? base + *at : NULL;
    *at += (n * size + 15) & ~(size_t)15;
    return p;
}

/* Every array of the workspace, for r rows, c columns and e edges (each
 * one more, so that none is empty), in one block: measured first with
 * base NULL, then carved. */
static size_t lay_out(sm_ws *ws, char *base, size_t r, size_t c, size_t e)
{
    size_t at = 0;
    ws->edge_row = carve(base, &at, e, sizeof *ws->edge_row);
    ws->col_first = carve(base, &at, c + 1, sizeof *ws->col_first);
    ws->col_edges = carve(base, &at, e, sizeof *ws->col_edges);
    ws->mate_row = carve(base, &at, r, sizeof *ws->mate_row);
    ws->mate_col = carve(base, &at, c, sizeof *ws->mate_col);
    ws->col_seen = carve(base, &at, c, sizeof *ws->col_seen);
    ws->col_done = carve(base, &at, c, sizeof *ws->col_done);
    ws->stack_it = carve(base, &at, r, sizeof *ws->stack_it);
    ws->stack_row = carve(base, &at, r, sizeof *ws->stack_row);
    ws->look_next = carve(base, &at, r, sizeof *ws->look_next);
    ws->reach_edge = carve(base, &at, r, sizeof *ws->reach_edge);
    ws->reach_row = carve(base, &at, r, sizeof *ws->reach_row);
    ws->queue = carve(base, &at, r, sizeof *ws->queue);
    ws->par_edge = carve(base, &at, c, sizeof *ws->par_edge);
    ws->u = carve(base, &at, r, sizeof *ws->u);
    ws->v = carve(base, &at, c, sizeof *ws->v);
    ws->dist = carve(base, &at, c, sizeof *ws->dist);
    ws->heap = carve(base, &at, e + c, sizeof *ws->heap);
    ws->done_cols = carve(base, &at, c, sizeof *ws->done_cols);
    ws->in_queue = carve(base, &at, r, sizeof *ws->in_queue);
    ws->forbidden = carve(base, &at, e, 1);
    ws->forced_row = carve(base, &at, r, sizeof *ws->forced_row);
    ws->forced_col = carve(base, &at, c, sizeof *ws->forced_col);
    ws->succ_first = carve(base, &at, r, sizeof *ws->succ_first);
    ws->succ_to = carve(base, &at, e, sizeof *ws->succ_to);
    ws->row_block = carve(base, &at, r, sizeof *ws->row_block);
    ws->block_rows = carve(base, &at, r, sizeof *ws->block_rows);
    ws->scc.index = carve(base, &at, r, sizeof *ws->scc.index);
    ws->scc.low = carve(base, &at, r, sizeof *ws->scc.low);
    ws->scc.stack = carve(base, &at, r, sizeof *ws->scc.stack);
    ws->scc.call = carve(base, &at, r, sizeof *ws->scc.call);
    ws->scc.pos = carve(base, &at, r, sizeof *ws->scc.pos);
    ws->scc.on = carve(base, &at, r, sizeof *ws->scc.on);
    ws->c = carve(base, &at, r, sizeof *ws->c);
    ws->d = carve(base, &at, c, sizeof *ws->d);
    ws->over = carve(base, &at, r, sizeof *ws->over);
    ws->under = carve(base, &at, c, sizeof *ws->under);
    return at;
}

/* Grow the workspace to the graph; MDAE_E_NOMEM leaves it empty but
 * usable. The stamps' arrays start at 0 (no search has stamped them). */
static int ws_reserve(sm_ws *ws, uint32_t nr, uint32_t nc, size_t ne)
{
    if (ws->block != NULL && nr <= ws->cap_rows && nc <= ws->cap_cols && ne <= ws->cap_edges)
        return MDAE_OK;
    mdae_free(ws->block);
    *ws = (sm_ws){0};
    size_t r = (size_t)nr + 1, c = (size_t)nc + 1, e = ne + 1;
    char *block = mdae_malloc(lay_out(ws, NULL, r, c, e));
    if (block == NULL) {
        *ws = (sm_ws){0};
        return MDAE_E_NOMEM;
    }
    lay_out(ws, block, r, c, e);
    memset(ws->col_seen, 0, c * sizeof *ws->col_seen);
    memset(ws->col_done, 0, c * sizeof *ws->col_done);
    ws->block = block;
    ws->cap_rows = nr;
    ws->cap_cols = nc;
    ws->cap_edges = ne;
    return MDAE_OK;
}

/* A fresh stamp for col_seen / col_done (cleared when it wraps). */
static uint32_t next_stamp(sm_ws *ws)
{
    if (++ws->stamp == 0) {
        memset(ws->col_seen, 0, ((size_t)ws->cap_cols + 1) * sizeof *ws->col_seen);
        memset(ws->col_done, 0, ((size_t)ws->cap_cols + 1) * sizeof *ws->col_done);
        ws->stamp = 1;
    }
    return ws->stamp;
}

/* Rows in order, columns in range (sm_max_matching's whole check). */
static bool valid_structure(const sm_graph *g, size_t ne)
{
    if (g->row_first[0] != 0)
        return false;
    for (uint32_t i = 0; i < g->n_rows; i++)
        if (g->row_first[i + 1] < g->row_first[i])
            return false;
    for (size_t e = 0; e < ne; e++)
        if (g->col[e] >= g->n_cols)
            return false;
    return true;
}

static bool valid_graph(const sm_graph *g, size_t ne)
{
    if (!valid_structure(g, ne))
        return false;
    for (size_t e = 0; e < ne; e++)
        if (g->sigma[e] < 0 || g->sigma[e] > MEL_MAX_ORDER ||
            (g->order != NULL && g->order[e] >= ne))
            return false;
    return true;
}

/* Row of each edge and the column lists (counting sort, edges of a column
 * in index order). */
static void index_columns(sm_ws *ws, const sm_graph *g, size_t ne)
{
    for (uint32_t i = 0; i < g->n_rows; i++)
        for (size_t e = g->row_first[i]; e < g->row_first[i + 1]; e++)
            ws->edge_row[e] = i;
    memset(ws->col_first, 0, ((size_t)g->n_cols + 2) * sizeof *ws->col_first);
    for (size_t e = 0; e < ne; e++)
        ws->col_first[g->col[e] + 2]++;
    for (uint32_t j = 0; j < g->n_cols; j++)
        ws->col_first[j + 2] += ws->col_first[j + 1];
    for (size_t e = 0; e < ne; e++)
        ws->col_edges[ws->col_first[g->col[e] + 1]++] = (uint32_t)e;
}

static void unmatch_all(sm_ws *ws, const sm_graph *g)
{
    for (uint32_t i = 0; i < g->n_rows; i++)
        ws->mate_row[i] = -1;
    for (uint32_t j = 0; j < g->n_cols; j++)
        ws->mate_col[j] = -1;
}

/* ---- Maximum matching (Kuhn) ------------------------------------------------ */

/* A free column of row r, or -1: the look-ahead of MC21 (Duff), checked
 * before the search goes deeper. Without it a search from one free row
 * could walk the whole graph before trying the free column next door:
 * 80 ms per mode on a 7,500-equation component of the MSL's EngineV6. */
static long free_edge_of(const sm_ws *ws, const sm_graph *g, uint32_t r)
{
    for (size_t e = g->row_first[r]; e < g->row_first[r + 1]; e++)
        if (ws->mate_col[g->col[e]] < 0)
            return (long)e;
    return -1;
}

/* Every stacked row takes the edge it is exploring; the top row takes e. */
static void augment_stack(sm_ws *ws, const sm_graph *g, size_t top, size_t e)
{
    for (size_t k = 0; k + 1 < top; k++) {
        uint32_t rr = ws->stack_row[k];
        size_t ee = ws->stack_it[k] - 1;
        ws->mate_row[rr] = (int)ee;
        ws->mate_col[g->col[ee]] = (int)rr;
    }
    uint32_t r = ws->stack_row[top - 1];
    ws->mate_row[r] = (int)e;
    ws->mate_col[g->col[e]] = (int)r;
}

/* One augmenting path from the free row s, depth first with an explicit
 * stack and look-ahead; each column is visited once per search. */
static bool augment_from(sm_ws *ws, const sm_graph *g, uint32_t s)
{
    uint32_t stamp = next_stamp(ws);
    size_t top = 0;
    long fe = free_edge_of(ws, g, s);
    ws->stack_row[top] = s;
    ws->stack_it[top] = g->row_first[s];
    top++;
    if (fe >= 0) {
        augment_stack(ws, g, top, (size_t)fe);
        return true;
    }
    while (top > 0) {
        uint32_t r = ws->stack_row[top - 1];
        size_t e = ws->stack_it[top - 1]++;
        if (e >= g->row_first[r + 1]) {
            top--;
            continue;
        }
        uint32_t j = g->col[e];
        if (ws->col_seen[j] == stamp)
            continue;
        ws->col_seen[j] = stamp;
        MDAE_ASSERT(ws->mate_col[j] >= 0); /* the look-ahead found none free */
        uint32_t next = (uint32_t)ws->mate_col[j];
        ws->stack_row[top] = next;
        ws->stack_it[top] = g->row_first[next];
        top++;
        fe = free_edge_of(ws, g, next);
        if (fe >= 0) {
            augment_stack(ws, g, top, (size_t)fe);
            return true;
        }
    }
    return false;
}

static uint32_t max_matching(sm_ws *ws, const sm_graph *g)
{
    unmatch_all(ws, g);
    uint32_t size = 0;
    for (uint32_t i = 0; i < g->n_rows; i++) /* greedy start */
        for (size_t e = g->row_first[i]; e < g->row_first[i + 1]; e++)
            if (ws->mate_col[g->col[e]] < 0) {
                ws->mate_row[i] = (int)e;
                ws->mate_col[g->col[e]] = (int)i;
                size++;
                break;
            }
    for (uint32_t i = 0; i < g->n_rows; i++)
        if (ws->mate_row[i] < 0 && augment_from(ws, g, i))
            size++;
    return size;
}

/* ---- Maximum matching, breadth first (sm_max_matching) -------------------------
 * The same greedy start, then each free row's shortest augmenting path.
 * Kuhn's depth-first search above follows the first edge of every row as
 * deep as it goes: on the compressible building (issue 40) its paths were
 * ~N/2 rows long, one per free row, hence quadratic (881 M instructions at
 * N = 1,000); the shortest paths there are a few rows long. sm_solve keeps
 * Kuhn's (its row_edge is read where there is no perfect matching); the
 * union graph's callers read only the blocks, which any perfect matching
 * gives (the fine Dulmage-Mendelsohn decomposition). */

/* A free column of row r from its look-ahead edge on, or -1. Columns are
 * never freed here (an augmentation matches one more), so an edge once
 * passed stays passed: the look-ahead costs O(edges) in all. */
static long free_edge_ahead(sm_ws *ws, const sm_graph *g, uint32_t r)
{
    size_t e = ws->look_next[r];
    while (e < g->row_first[r + 1] && ws->mate_col[g->col[e]] >= 0)
        e++;
    ws->look_next[r] = e;
    return e < g->row_first[r + 1] ? (long)e : -1;
}

/* Row t takes edge e, and every row on the search's way back from t to
 * its free root the edge it was reached by. */
static void augment_back(sm_ws *ws, const sm_graph *g, uint32_t s, uint32_t t, size_t e)
{
    for (;;) {
        ws->mate_row[t] = (int)e;
        ws->mate_col[g->col[e]] = (int)t;
        if (t == s)
            return;
        e = ws->reach_edge[t];
        t = ws->reach_row[t];
    }
}

/* One shortest augmenting path from the free row s (breadth first, each
 * column once per search); false if there is none. */
static bool augment_bfs(sm_ws *ws, const sm_graph *g, uint32_t s)
{
    uint32_t stamp = next_stamp(ws);
    size_t head = 0, tail = 0;
    ws->queue[tail++] = s;
    while (head < tail) {
        uint32_t r = ws->queue[head++];
        long fe = free_edge_ahead(ws, g, r);
        if (fe >= 0) {
            augment_back(ws, g, s, r, (size_t)fe);
            return true;
        }
        for (size_t e = g->row_first[r]; e < g->row_first[r + 1]; e++) {
            uint32_t j = g->col[e];
            if (ws->col_seen[j] == stamp)
                continue;
            ws->col_seen[j] = stamp;
            MDAE_ASSERT(ws->mate_col[j] >= 0); /* the look-ahead found none free */
            uint32_t next = (uint32_t)ws->mate_col[j];
            ws->reach_edge[next] = e;
            ws->reach_row[next] = r;
            ws->queue[tail++] = next; /* each column once: each row once */
        }
    }
    return false;
}

/* A maximum matching into mate_row / mate_col; its size. */
static uint32_t max_matching_bfs(sm_ws *ws, const sm_graph *g)
{
    unmatch_all(ws, g);
    uint32_t size = 0;
    for (uint32_t i = 0; i < g->n_rows; i++) { /* greedy start */
        ws->look_next[i] = g->row_first[i];
        long fe = free_edge_ahead(ws, g, i);
        if (fe >= 0) {
            ws->mate_row[i] = (int)fe;
            ws->mate_col[g->col[fe]] = (int)i;
            size++;
        }
    }
    for (uint32_t i = 0; i < g->n_rows; i++)
        if (ws->mate_row[i] < 0 && augment_bfs(ws, g, i))
            size++;
    return size;
}

/* ---- Dulmage-Mendelsohn coarse parts ------------------------------------------
 * On a maximum matching: the rows some maximum matching leaves unmatched are
 * those reachable from an unmatched row by an alternating path (any edge to
 * a column, its matching edge back to a row); the columns likewise from the
 * unmatched columns. */
static void dm_parts(sm_ws *ws, const sm_graph *g)
{
    size_t head = 0, tail = 0;
    for (uint32_t i = 0; i < g->n_rows; i++) {
        ws->over[i] = ws->mate_row[i] < 0;
        if (ws->over[i])
            ws->queue[tail++] = i;
    }
    while (head < tail) {
        uint32_t r = ws->queue[head++];
        for (size_t e = g->row_first[r]; e < g->row_first[r + 1]; e++) {
            int next = ws->mate_col[g->col[e]];
            if (next >= 0 && !ws->over[next]) { /* free: impossible, maximum */
                ws->over[next] = true;
                ws->queue[tail++] = (uint32_t)next;
            }
        }
    }
    /* Columns: the queue holds columns now (n_cols may exceed n_rows: use
     * done_cols, sized for columns). */
    head = tail = 0;
    for (uint32_t j = 0; j < g->n_cols; j++) {
        ws->under[j] = ws->mate_col[j] < 0;
        if (ws->under[j])
            ws->done_cols[tail++] = j;
    }
    while (head < tail) {
        uint32_t j = ws->done_cols[head++];
        for (size_t k = ws->col_first[j]; k < ws->col_first[j + 1]; k++) {
            int me = ws->mate_row[ws->edge_row[ws->col_edges[k]]];
            if (me < 0)
                continue;
            uint32_t next = g->col[me];
            if (!ws->under[next]) {
                ws->under[next] = true;
                ws->done_cols[tail++] = next;
            }
        }
    }
}

/* ---- Maximum-weight perfect matching ------------------------------------------
 * Successive shortest paths on costs -sigma with potentials u (rows), v
 * (columns): reduced cost r_e = -sigma_e - u_i - v_j >= 0, zero on the
 * matching. Called on a square graph, before anything says whether it has
 * a perfect matching: a search from a free row that reaches no free column
 * proves it has none (by Berge's lemma, some maximum matching leaves that
 * row unmatched), and the caller then computes a maximum matching. */

static long long reduced(const sm_ws *ws, const sm_graph *g, size_t e)
{
    return -(long long)g->sigma[e] - ws->u[ws->edge_row[e]] - ws->v[g->col[e]];
}

static void relax_row(sm_ws *ws, const sm_graph *g, uint32_t i, long long base, uint32_t stamp)
{
    for (size_t e = g->row_first[i]; e < g->row_first[i + 1]; e++) {
        uint32_t j = g->col[e];
        if (ws->col_done[j] == stamp)
            continue;
        long long nd = base + reduced(ws, g, e);
        if (ws->col_seen[j] != stamp || nd < ws->dist[j]) {
            ws->col_seen[j] = stamp;
            ws->dist[j] = nd;
            ws->par_edge[j] = (int)e;
            sm_heap_push(ws->heap, &ws->n_heap, nd, j);
        }
    }
}

/* Dijkstra from the free row s to the nearest free column, then the
 * potentials (shifted so that unreached vertices keep theirs) and the
 * augmentation. False, with nothing changed but the search's marks, when
 * no free column is reachable: the graph has no perfect matching. */
static bool shortest_augment(sm_ws *ws, const sm_graph *g, uint32_t s)
{
    uint32_t stamp = next_stamp(ws);
    size_t n_done = 0;
    ws->n_heap = 0;
    relax_row(ws, g, s, 0, stamp);
    uint32_t t = 0;
    long long far = 0;
    bool found = false;
    while (ws->n_heap > 0) {
        sm_heap_item it = sm_heap_pop(ws->heap, &ws->n_heap);
        uint32_t j = it.col;
        if (ws->col_done[j] == stamp || it.key != ws->dist[j])
            continue;
        ws->col_done[j] = stamp;
        ws->done_cols[n_done++] = j;
        if (ws->mate_col[j] < 0) {
            t = j;
            far = it.key;
            found = true;
            break;
        }
        relax_row(ws, g, (uint32_t)ws->mate_col[j], it.key, stamp);
    }
    if (!found)
        return false;
    ws->u[s] += far;
    for (size_t k = 0; k < n_done; k++) {
        uint32_t j = ws->done_cols[k];
        long long shift = far - ws->dist[j];
        ws->v[j] -= shift;
        if (ws->mate_col[j] >= 0)
            ws->u[ws->mate_col[j]] += shift;
    }
    for (uint32_t j = t;;) {
        size_t e = (size_t)ws->par_edge[j];
        uint32_t i = ws->edge_row[e];
        int old = ws->mate_row[i];
        ws->mate_row[i] = (int)e;
        ws->mate_col[j] = (int)i;
        if (i == s)
            return true;
        j = g->col[old];
    }
}

/* The maximum-weight perfect matching of a square graph, with its
 * potentials; false if the graph has none (then the matching is partial
 * and the potentials meaningless). */
static bool max_weight_matching(sm_ws *ws, const sm_graph *g)
{
    for (uint32_t j = 0; j < g->n_cols; j++)
        ws->v[j] = LLONG_MAX;
    for (size_t k = 0; k < g->row_first[g->n_rows]; k++) /* column minima */
        if (-(long long)g->sigma[k] < ws->v[g->col[k]])
            ws->v[g->col[k]] = -(long long)g->sigma[k];
    for (uint32_t j = 0; j < g->n_cols; j++)
        if (ws->v[j] == LLONG_MAX) /* a column without edges */
            return false;
    for (uint32_t i = 0; i < g->n_rows; i++) { /* row minima of what is left */
        long long best = LLONG_MAX;
        for (size_t e = g->row_first[i]; e < g->row_first[i + 1]; e++) {
            long long r = -(long long)g->sigma[e] - ws->v[g->col[e]];
            if (r < best)
                best = r;
        }
        if (best == LLONG_MAX) /* a row without edges */
            return false;
        ws->u[i] = best;
    }
    unmatch_all(ws, g);
    for (uint32_t i = 0; i < g->n_rows; i++) /* tight edges first */
        for (size_t e = g->row_first[i]; e < g->row_first[i + 1]; e++)
            if (ws->mate_col[g->col[e]] < 0 && reduced(ws, g, e) == 0) {
                ws->mate_row[i] = (int)e;
                ws->mate_col[g->col[e]] = (int)i;
                break;
            }
    for (uint32_t i = 0; i < g->n_rows; i++)
        if (ws->mate_row[i] < 0 && !shortest_augment(ws, g, i))
            return false;
    return true;
}

/* ---- Canonical offsets ----------------------------------------------------------
 * Pryce's fixpoint from c = 0 (d_j = max over edges of c_i + sigma_ij, c_i =
 * d_j(i) - sigma_i,j(i)) as a worklist: a row is processed again only when
 * its c rose. Chaotic iteration of a monotone system reaches the same least
 * fixpoint as Pryce's rounds. */
static int canonical_offsets(sm_ws *ws, const sm_graph *g)
{
    uint32_t n = g->n_rows;
    for (uint32_t j = 0; j < g->n_cols; j++)
        ws->d[j] = 0;
    for (size_t e = 0; e < g->row_first[n]; e++)
        if (g->sigma[e] > ws->d[g->col[e]])
            ws->d[g->col[e]] = g->sigma[e];
    size_t head = 0, count = 0;
    for (uint32_t i = 0; i < n; i++) {
        int me = ws->mate_row[i];
        ws->c[i] = ws->d[g->col[me]] - g->sigma[me];
        ws->in_queue[i] = ws->c[i] > 0;
        if (ws->in_queue[i])
            ws->queue[(head + count++) % n] = i;
    }
    /* Canonical offsets are below n * (MEL_MAX_ORDER + 1); each update
     * raises one c by at least 1. */
    unsigned long long updates = 0, bound = (unsigned long long)n * n * (MEL_MAX_ORDER + 1) + 1;
    while (count > 0) {
        uint32_t i = ws->queue[head];
        head = (head + 1) % n;
        count--;
        ws->in_queue[i] = false;
        for (size_t e = g->row_first[i]; e < g->row_first[i + 1]; e++) {
            uint32_t j = g->col[e];
            int val = ws->c[i] + g->sigma[e];
            if (val <= ws->d[j])
                continue;
            ws->d[j] = val;
            uint32_t i2 = (uint32_t)ws->mate_col[j];
            int nc = val - g->sigma[ws->mate_row[i2]];
            if (nc <= ws->c[i2])
                continue;
            if (++updates > bound || nc > INT_MAX / 4)
                return MDAE_E_LIMIT;
            ws->c[i2] = nc;
            if (!ws->in_queue[i2]) {
                ws->in_queue[i2] = true;
                ws->queue[(head + count++) % n] = i2;
            }
        }
    }
    ws->sol.iterations = (uint32_t)(updates > UINT32_MAX ? UINT32_MAX : updates);
    return MDAE_OK;
}

/* ---- The lexicographic choice ------------------------------------------------------ */

static bool tight(const sm_ws *ws, const sm_graph *g, size_t e)
{
    return ws->d[g->col[e]] - ws->c[ws->edge_row[e]] == g->sigma[e];
}

/* The fine Dulmage-Mendelsohn blocks of the tight graph: the strongly
 * connected components of the rows, row r -> the row matched to column j
 * for each tight edge (r, j) outside the matching. An alternating cycle is
 * a cycle of this graph, so it stays inside one block; the blocks do not
 * depend on the perfect matching they are computed from (they are the
 * graph's), so they hold while the choice rotates the matching along
 * cycles, and forbidding edges only splits them. A row alone in its block
 * keeps its matched edge in every maximum-weight perfect matching. */
static void tight_blocks(sm_ws *ws, const sm_graph *g)
{
    uint32_t n = g->n_rows;
    size_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        ws->succ_first[i] = k;
        for (size_t e = g->row_first[i]; e < g->row_first[i + 1]; e++)
            if ((int)e != ws->mate_row[i] && tight(ws, g, e))
                ws->succ_to[k++] = (uint32_t)ws->mate_col[g->col[e]];
    }
    ws->succ_first[n] = k;
    uint32_t nb = sm_sccs(n, ws->succ_first, ws->succ_to, ws->row_block, &ws->scc);
    memset(ws->block_rows, 0, ((size_t)nb + 1) * sizeof *ws->block_rows);
    for (uint32_t i = 0; i < n; i++)
        ws->block_rows[ws->row_block[i]]++;
}

/* Row i gives up its matching edge e (to column j): an alternating path of
 * allowed edges from i to j (breadth first), applied if found. Allowed:
 * tight, not forbidden, not into a forced column, inside i's block. */
static bool reroute(sm_ws *ws, const sm_graph *g, uint32_t i, uint32_t j)
{
    uint32_t stamp = next_stamp(ws);
    size_t head = 0, tail = 0;
    ws->queue[tail++] = i;
    while (head < tail) {
        uint32_t r = ws->queue[head++];
        for (size_t e = g->row_first[r]; e < g->row_first[r + 1]; e++) {
            uint32_t jj = g->col[e];
            if ((int)e == ws->mate_row[r] || ws->forbidden[e] || ws->forced_col[jj] ||
                ws->col_seen[jj] == stamp || !tight(ws, g, e) ||
                ws->row_block[ws->mate_col[jj]] != ws->row_block[i])
                continue;
            ws->col_seen[jj] = stamp;
            ws->par_edge[jj] = (int)e;
            if (jj != j) {
                ws->queue[tail++] = (uint32_t)ws->mate_col[jj];
                continue;
            }
            for (uint32_t x = j;;) {
                size_t pe = (size_t)ws->par_edge[x];
                uint32_t pr = ws->edge_row[pe];
                int old = ws->mate_row[pr];
                ws->mate_row[pr] = (int)pe;
                ws->mate_col[x] = (int)pr;
                if (pr == i)
                    return true;
                x = g->col[old];
            }
        }
    }
    return false;
}

/* Greedy in the given order: an edge is left out whenever a maximum-weight
 * perfect matching without it (and agreeing with the decisions so far)
 * exists; the current matching always is one. */
static void choose_smallest(sm_ws *ws, const sm_graph *g)
{
    size_t ne = g->row_first[g->n_rows];
    memset(ws->forbidden, 0, ne + 1);
    memset(ws->forced_row, 0, ((size_t)g->n_rows + 1) * sizeof *ws->forced_row);
    memset(ws->forced_col, 0, ((size_t)g->n_cols + 1) * sizeof *ws->forced_col);
    tight_blocks(ws, g);
    for (size_t k = 0; k < ne; k++) {
        size_t e = g->order ? g->order[k] : k;
        uint32_t i = ws->edge_row[e], j = g->col[e];
        if (ws->forced_row[i] || ws->forced_col[j])
            continue;
        if (ws->mate_row[i] != (int)e || !tight(ws, g, e)) {
            ws->forbidden[e] = 1;
            continue;
        }
        if (ws->block_rows[ws->row_block[i]] > 1 && reroute(ws, g, i, j)) {
            ws->forbidden[e] = 1;
        } else {
            ws->forced_row[i] = true;
            ws->forced_col[j] = true;
        }
    }
}

/* ---- Entry point ------------------------------------------------------------------- */

/* Check g (its weights too when weighted) and make room for it in ws: the
 * number of edges into *ne; MDAE_E_INVAL or MDAE_E_NOMEM. */
static int prepare(sm_ws *ws, const sm_graph *g, bool weighted, size_t *ne)
{
    if (ws == NULL || g == NULL || g->row_first == NULL ||
        (g->n_rows > 0 && g->row_first[g->n_rows] > 0 &&
         (g->col == NULL || (weighted && g->sigma == NULL))))
        return MDAE_E_INVAL;
    *ne = g->row_first[g->n_rows];
    if (weighted ? !valid_graph(g, *ne) : !valid_structure(g, *ne))
        return MDAE_E_INVAL;
    return ws_reserve(ws, g->n_rows, g->n_cols, *ne);
}

/* sm_solve, and sm_offsets when !choose. */
static int solve(sm_ws *ws, const sm_graph *g, bool choose, const sm_solution **out)
{
    size_t ne;
    int rc = out != NULL ? prepare(ws, g, true, &ne) : MDAE_E_INVAL;
    if (rc < 0)
        return rc;
    index_columns(ws, g, ne);
    sm_solution *s = &ws->sol;
    s->row_edge = ws->mate_row;
    s->c = ws->c;
    s->d = ws->d;
    s->over = ws->over;
    s->under = ws->under;
    s->iterations = 0;
    /* A square graph goes straight to the maximum-weight perfect matching,
     * which finds out on the way whether there is one; the maximum
     * matching of Kuhn's algorithm is only needed where there is none
     * (the Dulmage-Mendelsohn parts). Measured on the MSL's EngineV6:
     * the cardinality matching was half of the single-mode time. */
    s->perfect = g->n_rows == g->n_cols && max_weight_matching(ws, g);
    if (!s->perfect) {
        s->max_matching = max_matching(ws, g);
        MDAE_ASSERT(s->max_matching < g->n_rows || g->n_rows != g->n_cols);
        dm_parts(ws, g);
        memset(ws->c, 0, ((size_t)g->n_rows + 1) * sizeof *ws->c);
        memset(ws->d, 0, ((size_t)g->n_cols + 1) * sizeof *ws->d);
        s->weight = -1;
        *out = s;
        return MDAE_OK;
    }
    memset(ws->over, 0, ((size_t)g->n_rows + 1) * sizeof *ws->over);
    memset(ws->under, 0, ((size_t)g->n_cols + 1) * sizeof *ws->under);
    s->max_matching = g->n_rows;
    if (g->n_rows > 0) {
        rc = canonical_offsets(ws, g);
        if (rc < 0)
            return rc;
        if (choose)
            choose_smallest(ws, g);
    }
    s->weight = 0;
    for (uint32_t i = 0; i < g->n_rows; i++) { /* still perfect, on tight edges */
        MDAE_ASSERT(ws->mate_row[i] >= 0 && ws->mate_col[g->col[ws->mate_row[i]]] == (int)i);
        MDAE_ASSERT(tight(ws, g, (size_t)ws->mate_row[i]));
        s->weight += g->sigma[ws->mate_row[i]];
    }
    *out = s;
    return MDAE_OK;
}

int sm_solve(sm_ws *ws, const sm_graph *g, const sm_solution **out)
{
    return solve(ws, g, true, out);
}

int sm_offsets(sm_ws *ws, const sm_graph *g, const sm_solution **out)
{
    return solve(ws, g, false, out);
}

bool sm__max_matching_kuhn;

int sm_max_matching(sm_ws *ws, const sm_graph *g, const sm_solution **out)
{
    size_t ne;
    int rc = out != NULL ? prepare(ws, g, false, &ne) : MDAE_E_INVAL;
    if (rc < 0)
        return rc;
    sm_solution *s = &ws->sol;
    memset(s, 0, sizeof *s);
    s->row_edge = ws->mate_row;
    s->max_matching = sm__max_matching_kuhn ? max_matching(ws, g) : max_matching_bfs(ws, g);
    s->perfect = g->n_rows == g->n_cols && s->max_matching == g->n_rows;
    s->weight = -1;
    *out = s;
    return MDAE_OK;
}
