/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/support/cdg_canon.h -- a block of the dependency graph as a
 * canonical string, "E:i.c,..|U:j.d,..|R:j.k,.." (its equations with their
 * offsets, its unknowns with their orders, what it reads, each list
 * sorted), from the engine's graph (cdg_block_str) or from the brute-force
 * reference's block triangular form of one mode (brute_mode), so that the
 * two compare as strings. Every function fails the running Criterion test
 * on an error (allocation, the engine's or the reference's); the strings
 * are malloc'd and the caller's (strs_free frees a list and its strings).
 */
#ifndef MDAE_TESTS_CDG_CANON_H
#define MDAE_TESTS_CDG_CANON_H

#include <stddef.h>
#include <stdint.h>

#include "cdg.h"
#include "ref.h"

/* A growable list of owned strings. */
typedef struct strs {
    char **s;
    size_t n, cap;
} strs;

void strs_add(strs *l, char *s); /* takes s */
void strs_sort(strs *l);         /* by strcmp */
void strs_free(strs *l);         /* the strings and the list; l zeroed */

/* A copy of a; "a -> b", an edge between two blocks' strings. */
char *canon_dup(const char *a);
char *canon_arrow(const char *a, const char *b);

/* (index, order) pairs, ordered by index then order. */
typedef struct pair {
    int a, b;
} pair;

int pair_cmp(const void *x, const void *y);

/* The canonical string of the equations e, unknowns u and reads r, each
 * list already sorted by pair_cmp. */
char *block_str(const pair *e, size_t ne, const pair *u, size_t nu, const pair *r, size_t nr);

/* The canonical string of block id of g. */
char *cdg_block_str(const cdg_graph *g, uint32_t id);

/* The blocks (canonical strings, sorted) and condensation edges ("A -> B",
 * sorted) of one valid nonsingular mode rm of m, from the reference's
 * Tarjan on the leading-level dependency graph (ref_btf.c), appended to
 * blocks and edges. */
void brute_mode(const mel_model *m, const ref_mode *rm, strs *blocks, strs *edges);

#endif
