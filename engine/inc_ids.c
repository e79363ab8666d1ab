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
 * identity, through the result's blocks sorted by identity. Only the public
 * inc.h and cdg.h APIs are used.
 */
#include <assert.h>
#include <stdlib.h>

#include "inc.h"

static int cmp_items(const cdg_item *a, size_t na, const cdg_item *b, size_t nb)
{
    if (na != nb)
        return na < nb ? -1 : 1;
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

static int cmp_blocks(const void *a, const void *b)
{
    return cmp_identity(a, b);
}

int inc_result_whole_ids(const inc_result *r, const cdg_graph *whole, uint32_t **out)
{
    if (r == NULL || whole == NULL || out == NULL)
        return MDAE_E_INVAL;
    size_t nr = inc_result_n_blocks(r), nw = cdg_graph_n_blocks(whole);
    cdg_block *sorted = mdae_calloc(nr + 1, sizeof *sorted);
    uint32_t *ids = mdae_calloc(nw + 1, sizeof *ids);
    int rc = MDAE_OK;
    if (sorted == NULL || ids == NULL) {
        rc = MDAE_E_NOMEM;
        goto done;
    }
    for (size_t k = 0; k < nr && rc == MDAE_OK; k++)
        rc = inc_result_block(r, k, &sorted[k]);
    if (rc < 0)
        goto done;
    qsort(sorted, nr, sizeof *sorted, cmp_blocks);
    for (size_t k = 0; k < nw; k++) {
        cdg_block b;
        if ((rc = cdg_graph_block(whole, (uint32_t)k, &b)) < 0)
            goto done;
        const cdg_block *hit = bsearch(&b, sorted, nr, sizeof *sorted, cmp_blocks);
        if (hit == NULL) { /* not a graph of this result's model */
            rc = MDAE_E_INVAL;
            goto done;
        }
        ids[k] = hit->id;
    }
    *out = ids;
    ids = NULL;
done:
    mdae_free(ids);
    mdae_free(sorted);
    return rc;
}
