/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/cdg_int.h -- internals of the CDG module (engine/cdg_*.c): the
 * graph structure shared by cdg_build.c (construction) and cdg_view.c
 * (report, one-mode view, DOT). Errors and BDD references follow the
 * discipline of engine/sa_int.h (entry points own an sa_ctx, failures
 * longjmp through sa__fail, temporaries live in slots).
 */
#ifndef CDG_INT_H
#define CDG_INT_H

#include "cdg.h"
#include "sa_int.h"

struct cdg_graph {
    const sa_result *r; /* borrowed */
    size_t n_blocks;
    cdg_block *blocks;  /* blocks[k].id == k; item arrays point into items */
    BDD *bguard;        /* n_blocks, referenced (bddfalse where not yet set);
                           exact on r->ok only, like eguard: a block's
                           modes are bguard[k] & r->ok, not empty (kept
                           unmasked: cdg_build.c, emit) */
    cdg_item *items;    /* pool of every block's items */
    size_t n_edges;
    uint32_t *efrom, *eto; /* n_edges, sorted by (from, to) */
    BDD *eguard;           /* n_edges, referenced; exact on r->ok only:
                              an edge's guard is eguard[k] & r->ok (not
                              kept masked: cdg_build.c, guard_and) */
    bool no_edges;         /* built without its edges (sa_options.families):
                              no report, mode view or DOT */
    size_t max_block;
    size_t n_sccs, sccs_reused; /* union-SCCs; of those, from the hint's memo
                                   or kept from the seed graph */
    /* What a build seeded by this graph reads (cdg_build_seeded; comp NULL:
     * nothing, the graph cannot seed). */
    BDD *blocal;        /* n_blocks, referenced: each block's local set
                           (cdg_build.c, tblock.local) */
    uint32_t *comp;     /* r->n_eq: each equation's union-SCC */
    size_t *arc_first;  /* r->n_eq + 1: the union graph by source ... */
    uint32_t *arc_to;   /* ... its targets, sorted per source */
    int w;              /* the steps' width (step_width) */
    unsigned long epoch; /* sa__layout_epoch of the build */
    size_t blocks_kept;  /* blocks taken from the seed graph as they were */
};

/* Tests: cdg_build's inputs take chi_E by bdd_simplify(chi_E, ok) (the path
 * before sa__within_simplify, compared with it by test_sa_te_within).
 * Process-global. */
extern bool cdg__inputs_exact;

#endif /* CDG_INT_H */
