/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/sm_scc.c -- Tarjan's strongly connected components (sm.h says what
 * sm_sccs promises). Iterative: an explicit call stack of nodes, each with
 * the position of its next successor, so that chains of any length fit.
 *
 * The node being walked (g, its next successor p and its end) stays in
 * locals; only a descent saves p into pos[g] and g into call. A node
 * without successors met unvisited is its own component at once: the
 * recursive algorithm would push it, find nothing, and pop it alone as the
 * next component (its low, its index, is above its caller's, so no low
 * changes; it is never on the stack again). So the numbering is Tarjan's
 * (tests/engine/test_sm_single.c compares it with the plain walk on random
 * graphs; the parts' graphs of sa_blocks.c are mostly such leaves).
 */
#include "sm.h"

#include <string.h>

uint32_t sm_sccs(uint32_t n, const size_t *first, const uint32_t *to, uint32_t *comp,
                 const sm_scc_work *w)
{
    uint32_t *index = w->index, *low = w->low, *stack = w->stack, *call = w->call;
    size_t *pos = w->pos;
    bool *on = w->on;
    memset(index, 0, ((size_t)n + 1) * sizeof *index); /* 0: unvisited */
    memset(on, 0, (size_t)n + 1);
    uint32_t nb = 0, next = 0, sp = 0, cs = 0;
    for (uint32_t root = 0; root < n; root++) {
        if (index[root])
            continue;
        if (first[root] == first[root + 1]) { /* a leaf: a component alone */
            index[root] = ++next;
            comp[root] = nb++;
            continue;
        }
        uint32_t g = root;
        size_t p = first[g], end = first[g + 1];
        index[g] = low[g] = ++next;
        stack[sp++] = g;
        on[g] = true;
        for (;;) {
            while (p < end) {
                uint32_t h = to[p++];
                if (index[h]) {
                    if (on[h] && index[h] < low[g])
                        low[g] = index[h];
                    continue;
                }
                if (first[h] == first[h + 1]) { /* a leaf: a component alone */
                    index[h] = ++next;
                    comp[h] = nb++;
                    continue;
                }
                pos[g] = p; /* descend into h */
                call[cs++] = g;
                g = h;
                p = first[g];
                end = first[g + 1];
                index[g] = low[g] = ++next;
                stack[sp++] = g;
                on[g] = true;
            }
            if (low[g] == index[g]) { /* g is its component's root */
                uint32_t h;
                do {
                    h = stack[--sp];
                    on[h] = false;
                    comp[h] = nb;
                } while (h != g);
                nb++;
            }
            if (cs == 0)
                break;
            uint32_t up = call[--cs]; /* back to g's caller */
            if (low[g] < low[up])
                low[up] = low[g];
            g = up;
            p = pos[g];
            end = first[g + 1];
        }
    }
    return nb;
}
