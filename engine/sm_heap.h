/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/sm_heap.h -- the binary min-heap of (distance, column) that the
 * shortest augmenting paths use (Dijkstra: sm_solve.c's, and sm_warm.c's
 * on the part of a mode an edit reaches). Private to engine/sm_*.c. The
 * heap is the caller's array (room for every push) and its size *n.
 */
#ifndef SM_HEAP_H
#define SM_HEAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct sm_heap_item {
    long long key;
    uint32_t col;
} sm_heap_item;

static inline void sm_heap_push(sm_heap_item *heap, size_t *n, long long key, uint32_t col)
{
    size_t k = (*n)++;
    while (k > 0) {
        size_t p = (k - 1) / 2;
        if (heap[p].key <= key)
            break;
        heap[k] = heap[p];
        k = p;
    }
    heap[k] = (sm_heap_item){key, col};
}

/* The smallest item, removed (*n > 0). */
static inline sm_heap_item sm_heap_pop(sm_heap_item *heap, size_t *n)
{
    sm_heap_item top = heap[0], last = heap[--*n];
    size_t k = 0, m = *n;
    for (;;) {
        size_t a = 2 * k + 1;
        if (a >= m)
            break;
        if (a + 1 < m && heap[a + 1].key < heap[a].key)
            a++;
        if (heap[a].key >= last.key)
            break;
        heap[k] = heap[a];
        k = a;
    }
    if (m > 0)
        heap[k] = last;
    return top;
}

#endif /* SM_HEAP_H */
