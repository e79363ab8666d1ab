/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/inc_ids.c -- the session-stable id of each block of the whole
 * graph (inc_result_whole), so that callers that report the whole result
 * (the server's stableIds and since, issue 6) take block ids from the
 * engine's one map instead of keeping a second one (issue 12).
 *
 * The whole graph's blocks are exactly the parts' blocks (inc.h, "The
 * decomposition"), each with the same identity in the analysed model's
 * indexing and the same sorted arrays (cdg.h): the ids are found by
 * identity. Every block has an equation and no two blocks of a graph share
 * an identity, so the result's blocks are put in buckets by their smallest
 * equation (a counting sort: linear, where sorting them by identity was
 * n log n comparisons of item arrays) and each whole block is compared
 * with its bucket's few blocks only. With one part (the brake after an
 * edit), the result's blocks borrow the graph's item arrays (inc_session.c,
 * assign_block_ids), so the comparison meets the same pointers and stops
 * at once: the ids cost a pass over the blocks, the part's ids having
 * followed the edit already (part_ids takes the seed's for the blocks the
 * seeded graph kept). Only the public inc.h and cdg.h APIs are used.
 */
#include <assert.h>
#include <stdlib.h>

#include "inc.h"

static int cmp_items(const cdg_item *a, size_t na, const cdg_item *b, size_t nb)
{
    if (na != nb)
        return na < nb ? -1 : 1;
    if (a == b) /* borrowed from the same graph */
        return 0;
    for (size_t k = 0; k < na; k++) {
        if (a[k].index != b[k].index)
            return a[k].index < b[k].index ? -1 : 1;
        if (a[k].order != b[k].order)
            return a[k].order < b[k].order ? -1 : 1;
    }
    return 0;
}

/* Identity order: equations, then unknowns, then reads. */
static int cmp_identity(const cdg_block *a, const cdg_block *b)
{
    int c = cmp_items(a->equations, a->n_equations, b->equations, b->n_equations);
    if (c == 0)
        c = cmp_items(a->unknowns, a->n_unknowns, b->unknowns, b->n_unknowns);
    if (c == 0)
        c = cmp_items(a->reads, a->n_reads, b->reads, b->n_reads);
    return c;
}

/* The result's blocks in buckets by smallest equation: those of equation
 * e are order[first[e] .. first[e + 1]). */
typedef struct buckets {
    cdg_block *blocks; /* the result's, by id */
    size_t n_blocks;
    uint32_t n_eq;     /* 1 + the largest smallest equation */
    size_t *first;     /* n_eq + 1 */
    size_t *order;     /* n_blocks */
} buckets;

static void buckets_free(buckets *bk)
{
    mdae_free(bk->blocks);
    mdae_free(bk->first);
    mdae_free(bk->order);
}

/* bk from r's blocks: MDAE_OK, MDAE_E_NOMEM, or MDAE_E_INVAL for a block
 * without an equation (none in a result: cdg.h). */
static int buckets_fill(buckets *bk, const inc_result *r)
{
    size_t n = inc_result_n_blocks(r);
    *bk = (buckets){.n_blocks = n, .blocks = mdae_malloc((n + 1) * sizeof *bk->blocks)};
    if (bk->blocks == NULL)
        return MDAE_E_NOMEM;
    for (size_t k = 0; k < n; k++) {
        int rc = inc_result_block(r, k, &bk->blocks[k]);
        if (rc < 0)
            return rc;
        if (bk->blocks[k].n_equations == 0)
            return MDAE_E_INVAL;
        uint32_t e = bk->blocks[k].equations[0].index;
        if (e >= bk->n_eq)
            bk->n_eq = e + 1;
    }
    bk->first = mdae_calloc((size_t)bk->n_eq + 2, sizeof *bk->first);
    bk->order = mdae_malloc((n + 1) * sizeof *bk->order);
    if (bk->first == NULL || bk->order == NULL)
        return MDAE_E_NOMEM;
    for (size_t k = 0; k < n; k++)
        bk->first[bk->blocks[k].equations[0].index + 1]++;
    for (uint32_t e = 0; e < bk->n_eq; e++)
        bk->first[e + 1] += bk->first[e];
    for (size_t k = 0; k < n; k++) /* first[e] runs to first[e + 1] ... */
        bk->order[bk->first[bk->blocks[k].equations[0].index]++] = k;
    for (uint32_t e = bk->n_eq; e > 0; e--) /* ... and is moved back */
        bk->first[e] = bk->first[e - 1];
    bk->first[0] = 0;
    return MDAE_OK;
}

/* The result's block with b's identity, or NULL. */
static const cdg_block *bucket_find(const buckets *bk, const cdg_block *b)
{
    if (b->n_equations == 0 || b->equations[0].index >= bk->n_eq)
        return NULL;
    uint32_t e = b->equations[0].index;
    for (size_t q = bk->first[e]; q < bk->first[e + 1]; q++)
        if (cmp_identity(&bk->blocks[bk->order[q]], b) == 0)
            return &bk->blocks[bk->order[q]];
    return NULL;
}

int inc_result_whole_ids(const inc_result *r, const cdg_graph *whole, uint32_t **out)
{
    if (r == NULL || whole == NULL || out == NULL)
        return MDAE_E_INVAL;
    size_t nw = cdg_graph_n_blocks(whole);
    buckets bk;
    int rc = buckets_fill(&bk, r);
    uint32_t *ids = rc == MDAE_OK ? mdae_malloc((nw + 1) * sizeof *ids) : NULL;
    if (rc == MDAE_OK && ids == NULL)
        rc = MDAE_E_NOMEM;
    for (size_t k = 0; k < nw && rc == MDAE_OK; k++) {
        cdg_block b;
        if ((rc = cdg_graph_block(whole, (uint32_t)k, &b)) < 0)
            break;
        const cdg_block *hit = bucket_find(&bk, &b);
        if (hit == NULL) /* not a graph of this result's model */
            rc = MDAE_E_INVAL;
        else
            ids[k] = hit->id;
    }
    if (rc == MDAE_OK) {
        *out = ids;
        ids = NULL;
    }
    mdae_free(ids);
    buckets_free(&bk);
    return rc;
}
