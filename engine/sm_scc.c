/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/sm_scc.c -- Tarjan's strongly connected components (sm.h says what
 * sm_sccs promises). Iterative: an explicit call stack of nodes, each with
 * the position of its next successor, so that chains of any length fit.
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
        call[cs++] = root;
        index[root] = low[root] = ++next;
        pos[root] = first[root];
        stack[sp++] = root;
        on[root] = true;
        while (cs > 0) {
            uint32_t g = call[cs - 1];
            if (pos[g] < first[g + 1]) {
                uint32_t h = to[pos[g]++];
                if (!index[h]) {
                    index[h] = low[h] = ++next;
                    pos[h] = first[h];
                    stack[sp++] = h;
                    on[h] = true;
                    call[cs++] = h;
                } else if (on[h] && index[h] < low[g]) {
                    low[g] = index[h];
                }
                continue;
            }
            cs--;
            if (cs > 0 && low[g] < low[call[cs - 1]])
                low[call[cs - 1]] = low[g];
            if (low[g] == index[g]) {
                uint32_t h;
                do {
                    h = stack[--sp];
                    on[h] = false;
                    comp[h] = nb;
                } while (h != g);
                nb++;
            }
        }
    }
    return nb;
}
