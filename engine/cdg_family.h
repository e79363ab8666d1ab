/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/cdg_family.h -- block families: the blocks of a CDG (cdg.h)
 * grouped so that a result whose blocks multiply across the modes is
 * printed in a size that follows the structure, not the number of modes
 * (issue 40 item 4; docs/block_families.md says why the blocks multiply).
 *
 * What a family is. A family is a set of blocks of the graph (its
 * *variants*) such that
 *   - no two of them apply in the same mode (their guards are disjoint),
 *   - each one shares an equation with an earlier one of the family.
 * It is written once, as the union of its variants' items: each equation
 * (with its order), unknown (with its order) and read, with the set of
 * modes where it belongs to the family's block: the union of the guards
 * of the variants that hold it. Because the variants' guards are
 * disjoint, the family is *faithful*: in a mode m, the family's block is
 * exactly the items whose set holds m (none when m is outside the
 * family's modes), which is the identity of the one variant whose guard
 * holds m. In each valid nonsingular mode, the families' blocks are
 * therefore exactly the graph's blocks of that mode.
 *
 * How the blocks are grouped (deterministic): blocks are taken largest
 * first (ties: by id); each joins, among the families that hold one of
 * its equations and whose modes are disjoint from its guard, the one
 * holding most of its equations (ties: the one founded first); else it
 * founds a new family. Families are numbered by their first block's id.
 * Two blocks that share an equation never coexist in a mode, but a
 * class of blocks connected by shared equations may hold coexisting
 * blocks (a capacitor loop's block and a blocking cell's block of
 * rldc_parallel, which share that cell's C equation in other modes): the
 * disjointness test splits such a class into several families, so
 * faithfulness holds by construction, and no variant is ever listed
 * twice.
 *
 * Edges: family F -> family G in the modes where a variant of F is a
 * predecessor of a variant of G (the union of the block edges' guards
 * between them); F != G always (a family's variants never coexist).
 * They are found from the families' items (an unknown of F read by G),
 * so the graph needs no block edges: sa_options.families builds none.
 *
 * Promises: no I/O. Uses the process-global BuDDy manager like cdg_*;
 * deterministic: families numbered by their first block's id, their
 * variants ascending, their items sorted by (index, order), edges by
 * (from, to). The work is linear in the blocks' items, plus one BDD
 * conjunction per candidate family of a block, plus one per pair of an
 * unknown and a read of two families: never per pair of blocks. The
 * families are built from the blocks, so a graph past cdg_build's limit
 * of the blocks' identities has no families either.
 *
 * Errors: MDAE_OK, MDAE_E_INVAL, MDAE_E_STATE (no sa_begin), MDAE_E_NOMEM,
 * MDAE_E_BDD_LIMIT, MDAE_E_BDD, MDAE_E_LIMIT (a set of more than
 * SA_MAX_CUBES cubes, in the report). On failure nothing is written.
 *
 * Ownership: cdg_families borrows the graph (which must outlive it) and
 * holds referenced BDDs: free it with cdg_families_free() before sa_end().
 * The report is plain data owned by the caller (cdg_family_report_free);
 * it borrows names from the model and items from the families.
 */
#ifndef CDG_FAMILY_H
#define CDG_FAMILY_H

#include "cdg.h"

typedef struct cdg_families cdg_families;

/* The families of graph g (borrowed; must outlive them). On MDAE_OK *out
 * is new (owned: cdg_families_free). */
MDAE_API int cdg_families_build(const cdg_graph *g, cdg_families **out);
MDAE_API void cdg_families_free(cdg_families *f /* takes ownership; NULL ok */);

MDAE_API size_t cdg_families_count(const cdg_families *f);
MDAE_TEST_API size_t cdg_families_n_edges(const cdg_families *f);
/* The family of block `block` of the graph; UINT32_MAX if out of range. */
MDAE_TEST_API uint32_t cdg_families_of_block(const cdg_families *f, uint32_t block);
/* Family k's block at the mode (mode[q] = value of mode variable q; NULL
 * when there are none): its items whose sets hold there, as a cdg_block
 * (id: the family's variant that applies, or UINT32_MAX and no items when
 * none does). Arrays owned: cdg_families_variant_close. Tests: expanding
 * the families mode by mode must give the graph's blocks. */
MDAE_TEST_API int cdg_families_variant_at(const cdg_families *f, size_t k, const bool *mode,
                                          cdg_block *out /* out */);
MDAE_TEST_API void cdg_families_variant_close(cdg_block *b /* NULL ok; safe twice */);
/* Family edge e: its ends, and whether it holds at the mode. */
MDAE_TEST_API int cdg_families_edge_at(const cdg_families *f, size_t e, const bool *mode,
                                       uint32_t *from, uint32_t *to, bool *holds);

/* ---- Report: sets of modes as formulas and cubes (sa_set, sa.h) ---------- */
typedef struct cdg_family_item {
    cdg_item item; /* name borrowed from the model */
    sa_set modes;  /* owned by the report */
} cdg_family_item;

typedef struct cdg_report_family {
    uint32_t id;
    size_t n_variants;        /* exact: the blocks of the graph it stands for */
    const uint32_t *variants; /* their block ids, ascending (borrowed from f) */
    sa_set modes;             /* the union of their guards */
    size_t n_equations, n_unknowns, n_reads;
    cdg_family_item *equations, *unknowns, *reads; /* owned; by (index, order) */
} cdg_report_family;

typedef struct cdg_family_report {
    uint32_t n_modes;
    const char *const *mode_names; /* owned array, names borrowed from the model */
    size_t n_blocks;               /* the graph's blocks, all families together */
    size_t n_families;
    cdg_report_family *families;   /* families[k].id == k */
    size_t n_edges;
    cdg_report_edge *edges;        /* from/to are family ids; by (from, to) */
} cdg_family_report;

/* Sets exact on the valid modes, invalid modes being don't-cares (as in
 * cdg_graph_report). f (and its graph) must outlive the report. */
MDAE_API int cdg_families_report(const cdg_families *f, cdg_family_report **out);
MDAE_API void cdg_family_report_free(cdg_family_report *rep /* NULL ok */);

#endif /* CDG_FAMILY_H */
