/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/cdg_report_keys.h -- the report of a result and its graph (sa.h's
 * sa_result_report, cdg.h's cdg_graph_report) made after the report of a
 * previous version, leaving out what is the previous report's (issue 40
 * item 3: "the JSON difference is produced per changed item").
 *
 * An item's report (an equation's or a variable's: its name, where it is
 * active, its offsets by value), a block's (its identity, its guard) and an
 * edge's (its ends, its guard) are functions of a few BDD handles and of
 * what every set of the report is a function of. The keys of a report hold
 * those handles referenced, so that their nodes stay the functions they
 * were: a later report whose item has the same handles (and the same
 * name, identity or ends) at the same place has the same report there, and
 * that item's sets are not computed (why they would be the same:
 * sa_report.c for the items, cdg_view.c, which makes the combined report,
 * for blocks and edges). The caller takes such items from what it made of
 * the earlier report (protocol/rpc_json.h, rpc_json_analysis_since).
 */
#ifndef MDAE_CDG_REPORT_KEYS_H
#define MDAE_CDG_REPORT_KEYS_H

#include "cdg.h"
#include "sa.h"

/* What the items of one report (and its graph's blocks and edges) are
 * functions of: BDD handles, referenced, and copies of the names. Owned:
 * cdg_report_keys_free, before sa_end. */
typedef struct cdg_report_keys cdg_report_keys;

/* Which items of a report made by cdg_report_since are the previous
 * report's at the same place, their sets not computed (each array as long
 * as the report's; owned: cdg_report_same_free). */
typedef struct cdg_report_same {
    bool *equations; /* sa_report.n_equations */
    bool *variables; /* sa_report.n_variables */
    bool *blocks;    /* cdg_report.n_blocks; NULL without a graph */
    bool *edges;     /* cdg_report.n_edges; NULL without a graph */
} cdg_report_same;

/* sa_result_report(r) in *rep and, g not NULL, cdg_graph_report(g) in
 * *crep, with their keys in *keys (new, owned).
 * With prev, the keys of an earlier report (NULL: none): an item, block or
 * edge whose keys are prev's at the same place is marked in *same and its
 * sets are left empty (formula NULL, no cubes, no offsets): only its name,
 * block identity or ends are there. The caller vouches that it holds what
 * was made of the report prev is the keys of, and takes the marked items
 * from there. prev is only read (it may be freed after the call). On
 * failure nothing is returned (codes of sa_result_report and
 * cdg_graph_report). */
MDAE_API int cdg_report_since(const sa_result *r /* borrowed */, const cdg_graph *g /* NULL ok */,
                             const cdg_report_keys *prev /* borrowed; NULL ok */,
                             sa_report **rep /* out: owned */, cdg_report **crep /* out: owned */,
                             cdg_report_keys **keys /* out: owned */,
                             cdg_report_same *same /* out: owned arrays */);
MDAE_API void cdg_report_keys_free(cdg_report_keys *k /* NULL ok */);
MDAE_API void cdg_report_same_free(cdg_report_same *s /* NULL ok; zeroed */);

#endif /* MDAE_CDG_REPORT_KEYS_H */
