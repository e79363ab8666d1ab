/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/ref/ref_change.c -- the brute-force reference of one mode change
 * (ref.h, ref_change_compute): the readings of engine/mc_change.c, none of
 * its code. Offsets come from ref_mode (Hungarian, Pryce); matchings are a
 * plain recursive Kuhn; the erasure is chosen by trying every subset of the
 * overdetermined rows of the right size.
 */
#include "ref.h"

#include <stdlib.h>
#include <string.h>

#define MAX_SUBSETS 2000000L

typedef struct row {
    uint32_t eq;
    int k;
    long cls;      /* erase preference: lower erases first */
    uint32_t *col; /* columns it mentions */
    size_t n;
} row;

typedef struct sys {
    row *rows;
    size_t n_rows, n_cols;
    uint32_t *col_var;
    int *col_l;
} sys;

/* ---- Kuhn, recursive ------------------------------------------------------------ */

static bool kuhn_try(const sys *s, const bool *use, size_t r, int *mate_col, bool *seen)
{
    for (size_t e = 0; e < s->rows[r].n; e++) {
        uint32_t c = s->rows[r].col[e];
        if (seen[c])
            continue;
        seen[c] = true;
        if (mate_col[c] < 0 || kuhn_try(s, use, (size_t)mate_col[c], mate_col, seen)) {
            mate_col[c] = (int)r;
            return true;
        }
    }
    return false;
}

static size_t maxmatch(const sys *s, const bool *use)
{
    int *mate = malloc((s->n_cols + 1) * sizeof *mate);
    bool *seen = malloc(s->n_cols + 1);
    size_t n = 0;
    for (size_t c = 0; c < s->n_cols; c++)
        mate[c] = -1;
    for (size_t r = 0; r < s->n_rows; r++) {
        if (!use[r])
            continue;
        memset(seen, 0, s->n_cols + 1);
        if (kuhn_try(s, use, r, mate, seen))
            n++;
    }
    free(mate);
    free(seen);
    return n;
}

/* ---- Items ------------------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return x < y ? -1 : x > y;
}

static void items_add(ref_items *it, uint64_t key)
{
    it->k = realloc(it->k, (it->n + 1) * sizeof *it->k);
    it->k[it->n++] = key;
}

static void items_sort(ref_items *it)
{
    if (it->n > 1)
        qsort(it->k, it->n, sizeof *it->k, cmp_u64);
}

void ref_change_close(ref_change *c)
{
    for (uint32_t r = 0; r < c->n_instants; r++) {
        ref_change_instant *in = &c->inst[r];
        free(in->equations.k);
        free(in->unknowns.k);
        free(in->known.k);
        free(in->context.k);
        free(in->erased.k);
        for (size_t a = 0; a < in->n_alts; a++)
            free(in->alts[a].k);
        free(in->alts);
    }
    free(c->inst);
    memset(c, 0, sizeof *c);
}

/* ---- The erasure by brute force ----------------------------------------------------- */

typedef struct best {
    bool *erase;       /* the chosen set */
    long *score;       /* erase counts per class rank */
    size_t n_class;
    long *classes;     /* distinct class keys, ascending */
    bool **optimal;    /* every optimal set */
    size_t n_optimal;
    long tried;
} best;

static size_t class_rank(const best *b, long cls)
{
    for (size_t k = 0; k < b->n_class; k++)
        if (b->classes[k] == cls)
            return k;
    return 0;
}

/* +1: a better than b; 0 equal; -1 worse (more erased in earlier classes). */
static int cmp_score(const long *a, const long *b, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (a[k] != b[k])
            return a[k] > b[k] ? 1 : -1;
    return 0;
}

static void consider(const sys *s, best *b, const bool *erase, size_t rank)
{
    bool *use = calloc(s->n_rows + 1, 1);
    for (size_t r = 0; r < s->n_rows; r++)
        use[r] = !erase[r];
    size_t mm = maxmatch(s, use);
    free(use);
    if (mm != rank)
        return;
    long *sc = calloc(b->n_class + 1, sizeof *sc);
    for (size_t r = 0; r < s->n_rows; r++)
        if (erase[r])
            sc[class_rank(b, s->rows[r].cls)]++;
    int c = b->n_optimal == 0 ? 1 : cmp_score(sc, b->score, b->n_class);
    if (c > 0) {
        for (size_t k = 0; k < b->n_optimal; k++)
            free(b->optimal[k]);
        b->n_optimal = 0;
        memcpy(b->score, sc, b->n_class * sizeof *sc);
    }
    if (c >= 0) {
        b->optimal = realloc(b->optimal, (b->n_optimal + 1) * sizeof *b->optimal);
        bool *copy = malloc(s->n_rows + 1);
        memcpy(copy, erase, s->n_rows);
        b->optimal[b->n_optimal++] = copy;
    }
    free(sc);
}

static void subsets(const sys *s, best *b, const size_t *over, size_t n_over, size_t at,
                    size_t left, bool *erase, size_t rank)
{
    if (b->tried > MAX_SUBSETS)
        return;
    if (left == 0) {
        b->tried++;
        consider(s, b, erase, rank);
        return;
    }
    if (n_over - at < left)
        return;
    erase[over[at]] = true;
    subsets(s, b, over, n_over, at + 1, left - 1, erase, rank);
    erase[over[at]] = false;
    subsets(s, b, over, n_over, at + 1, left, erase, rank);
}

/* Keep order: class descending, then row ascending. Is the kept set of a
 * lexicographically larger than b's (keeps an earlier row where they
 * first differ)? */
static bool keeps_earlier(const sys *s, const bool *a, const bool *b)
{
    size_t *ord = malloc((s->n_rows + 1) * sizeof *ord);
    for (size_t r = 0; r < s->n_rows; r++)
        ord[r] = r;
    for (size_t i = 1; i < s->n_rows; i++)
        for (size_t j = i; j > 0; j--) {
            const row *x = &s->rows[ord[j - 1]], *y = &s->rows[ord[j]];
            bool swap = x->cls < y->cls || (x->cls == y->cls && ord[j - 1] > ord[j]);
            if (!swap)
                break;
            size_t t = ord[j];
            ord[j] = ord[j - 1];
            ord[j - 1] = t;
        }
    bool res = false;
    for (size_t q = 0; q < s->n_rows; q++) {
        size_t r = ord[q];
        if (a[r] != b[r]) {
            res = !a[r]; /* a keeps r, b erases it */
            break;
        }
    }
    free(ord);
    return res;
}

/* ---- The unfolding -------------------------------------------------------------------- */

static bool same_body(const mel_model *m, uint32_t i, const bool *a, const bool *b)
{
    const mel_equation *q = &m->equations[i];
    if (!mel_guard_eval(q->guard, a) || !mel_guard_eval(q->guard, b))
        return false;
    for (uint32_t e = 0; e < q->n_incs; e++)
        for (uint32_t c = 0; c < q->incs[e].n_cases; c++)
            if (mel_guard_eval(q->incs[e].cases[c].guard, a) !=
                mel_guard_eval(q->incs[e].cases[c].guard, b))
                return false;
    return true;
}

static void sys_free(sys *s)
{
    for (size_t r = 0; r < s->n_rows; r++)
        free(s->rows[r].col);
    free(s->rows);
    free(s->col_var);
    free(s->col_l);
    memset(s, 0, sizeof *s);
}

/* The instants of a change from the state (known, done; both owned, freed
 * here) into the mode n: see ref.h. */
int ref_change_unfold(const mel_model *m, const ref_mode *nm, size_t L, bool *known, bool *done,
                      const bool *is_new, uint32_t bound, ref_change *out)
{
    uint32_t ne = m->n_equations, nv = m->n_variables;
    const ref_mode n = *nm; /* the loop below reads n.eq_active, n.c */
    int rc = MDAE_OK;
    for (uint32_t r = 0;; r++) {
        if (r >= bound) {
            out->status = 2;
            break;
        }
        /* the candidate system */
        sys s;
        memset(&s, 0, sizeof s);
        long *col_of = malloc((nv * L + 1) * sizeof *col_of);
        bool *mention = calloc(nv * L + 1, 1);
        for (size_t x = 0; x < nv * L; x++)
            col_of[x] = -1;
        ref_change_instant in;
        memset(&in, 0, sizeof in);
        for (uint32_t i = 0; i < ne; i++) {
            if (!n.eq_active[i])
                continue;
            for (int k = 0; k <= n.c[i]; k++) {
                if (done[i * L + (size_t)k + 1]) {
                    items_add(&in.context, REF_KEY(i, k));
                    continue;
                }
                s.rows = realloc(s.rows, (s.n_rows + 1) * sizeof *s.rows);
                row *w = &s.rows[s.n_rows++];
                memset(w, 0, sizeof *w);
                w->eq = i;
                w->k = k;
                w->cls = (is_new[i] ? 0 : 1L << 20) + k;
                for (uint32_t j = 0; j < nv; j++) {
                    int sg = ref_mode_sigma(&n, i, j);
                    for (int l = k; sg >= 0 && l <= k + sg; l++) {
                        size_t slot = j * L + (size_t)l;
                        if (known[slot]) {
                            mention[slot] = true;
                            continue;
                        }
                        if (col_of[slot] < 0) {
                            s.col_var = realloc(s.col_var, (s.n_cols + 1) * sizeof *s.col_var);
                            s.col_l = realloc(s.col_l, (s.n_cols + 1) * sizeof *s.col_l);
                            s.col_var[s.n_cols] = j;
                            s.col_l[s.n_cols] = l;
                            col_of[slot] = (long)s.n_cols++;
                        }
                        w->col = realloc(w->col, (w->n + 1) * sizeof *w->col);
                        w->col[w->n++] = (uint32_t)col_of[slot];
                    }
                }
            }
        }
        bool *all = malloc(s.n_rows + 1);
        memset(all, 1, s.n_rows + 1);
        size_t rank = maxmatch(&s, all);
        bool *erase = calloc(s.n_rows + 1, 1);
        best b;
        memset(&b, 0, sizeof b);
        if (rank < s.n_rows) {
            size_t *over = malloc((s.n_rows + 1) * sizeof *over), n_over = 0;
            for (size_t q = 0; q < s.n_rows; q++) {
                all[q] = false;
                if (maxmatch(&s, all) == rank)
                    over[n_over++] = q; /* some maximum matching leaves it out */
                all[q] = true;
            }
            b.classes = malloc((s.n_rows + 1) * sizeof *b.classes);
            for (size_t q = 0; q < s.n_rows; q++) {
                bool seen = false;
                for (size_t c = 0; c < b.n_class; c++)
                    seen |= b.classes[c] == s.rows[q].cls;
                if (!seen)
                    b.classes[b.n_class++] = s.rows[q].cls;
            }
            qsort(b.classes, b.n_class, sizeof *b.classes, cmp_long);
            b.score = calloc(b.n_class + 1, sizeof *b.score);
            subsets(&s, &b, over, n_over, 0, s.n_rows - rank, erase, rank);
            free(over);
            if (b.tried > MAX_SUBSETS || b.n_optimal == 0)
                rc = MDAE_E_LIMIT;
            size_t pick = 0;
            for (size_t k = 1; k < b.n_optimal; k++)
                if (keeps_earlier(&s, b.optimal[k], b.optimal[pick]))
                    pick = k;
            if (rc == MDAE_OK) {
                memcpy(erase, b.optimal[pick], s.n_rows);
                for (size_t k = 0; k < b.n_optimal; k++) {
                    if (k == pick)
                        continue;
                    in.alts = realloc(in.alts, (in.n_alts + 1) * sizeof *in.alts);
                    ref_items *it = &in.alts[in.n_alts++];
                    memset(it, 0, sizeof *it);
                    for (size_t q = 0; q < s.n_rows; q++)
                        if (b.optimal[k][q])
                            items_add(it, REF_KEY(s.rows[q].eq, s.rows[q].k));
                    items_sort(it);
                }
            }
        }
        bool erased_any = false;
        for (size_t q = 0; q < s.n_rows; q++) {
            uint64_t key = REF_KEY(s.rows[q].eq, s.rows[q].k);
            erased_any |= erase[q];
            items_add(erase[q] ? &in.erased : &in.equations, key);
        }
        for (size_t c = 0; c < s.n_cols; c++)
            items_add(&in.unknowns, REF_KEY(s.col_var[c], s.col_l[c]));
        for (uint32_t j = 0; j < nv; j++)
            for (size_t l = 0; l < L; l++)
                if (mention[j * L + l])
                    items_add(&in.known, REF_KEY(j, l));
        in.underdetermined = s.n_cols > rank;
        ref_items *lists[] = {&in.equations, &in.unknowns, &in.known, &in.context, &in.erased};
        for (size_t k = 0; k < 5; k++)
            items_sort(lists[k]);
        bool stop = rc < 0 || (!erased_any && !in.underdetermined);
        if (stop || rc < 0) {
            for (size_t a = 0; a < in.n_alts; a++)
                free(in.alts[a].k);
            free(in.alts);
            free(in.equations.k);
            free(in.unknowns.k);
            free(in.known.k);
            free(in.context.k);
            free(in.erased.k);
            if (rc == MDAE_OK)
                out->status = r == 0 ? 0 : 1;
        } else {
            out->inst = realloc(out->inst, (out->n_instants + 1) * sizeof *out->inst);
            out->inst[out->n_instants++] = in;
            if (in.underdetermined) {
                out->status = 2;
                stop = true;
            }
        }
        if (!stop) { /* the next instant: what was computed is known; what was
                        solved or in the context is the next context */
            bool *known2 = calloc(nv * L + 1, 1), *done2 = calloc(ne * L + 1, 1);
            for (uint32_t j = 0; j < nv; j++)
                for (size_t l = 0; l + 1 < L; l++)
                    known2[j * L + l] = known[j * L + l + 1] || col_of[j * L + l + 1] >= 0;
            for (size_t q = 0; q < s.n_rows; q++)
                if (!erase[q])
                    done2[s.rows[q].eq * L + (size_t)s.rows[q].k] = true;
            for (uint32_t i = 0; i < ne; i++)
                for (int k = 0; n.eq_active[i] && k <= n.c[i]; k++)
                    if (done[i * L + (size_t)k + 1])
                        done2[i * L + (size_t)k] = true;
            free(known);
            free(done);
            known = known2;
            done = done2;
        }
        for (size_t k = 0; k < b.n_optimal; k++)
            free(b.optimal[k]);
        free(b.optimal);
        free(b.score);
        free(b.classes);
        free(erase);
        free(all);
        free(col_of);
        free(mention);
        sys_free(&s);
        if (stop)
            break;
    }
    free(known);
    free(done);
    return rc;
}

int ref_change_compute(const mel_model *m, const bool *from, const bool *to, ref_change *out)
{
    memset(out, 0, sizeof *out);
    bool differ = false;
    for (uint32_t k = 0; k < m->n_modes; k++)
        differ |= from[k] != to[k];
    if (!differ)
        return MDAE_E_INVAL;
    ref_mode o, n;
    memset(&o, 0, sizeof o);
    memset(&n, 0, sizeof n);
    int rc = ref_mode_compute(m, from, &o);
    if (rc == MDAE_OK)
        rc = ref_mode_compute(m, to, &n);
    if (rc == MDAE_OK && (!o.valid || !n.valid))
        rc = MDAE_E_INVAL;
    if (rc < 0)
        goto done;
    if (o.singular || n.singular) {
        out->status = 2;
        out->singular = true;
        goto done;
    }
    uint32_t ne = m->n_equations, nv = m->n_variables;
    int maxc = 0, maxd = 0;
    for (uint32_t i = 0; i < ne; i++) {
        maxc = o.c[i] > maxc ? o.c[i] : maxc;
        maxc = n.c[i] > maxc ? n.c[i] : maxc;
    }
    for (uint32_t j = 0; j < nv; j++) {
        maxd = o.d[j] > maxd ? o.d[j] : maxd;
        maxd = n.d[j] > maxd ? n.d[j] : maxd;
    }
    size_t L = (size_t)(maxc + maxd) + 4; /* shifts 0 .. L-1 */
    bool *known = calloc(nv * L + 1, 1), *done = calloc(ne * L + 1, 1);
    bool *is_new = calloc(ne + 1, 1);
    for (uint32_t j = 0; j < nv; j++)
        for (int l = 0; o.var_active[j] && l < o.d[j]; l++)
            known[j * L + (size_t)l] = true;
    for (uint32_t i = 0; i < ne; i++) {
        bool same = same_body(m, i, from, to);
        is_new[i] = !same;
        for (int k = 0; same && k <= o.c[i]; k++)
            done[i * L + (size_t)k] = true;
    }
    uint32_t bound = 2 + (uint32_t)maxc + 2 * (uint32_t)maxd;
    rc = ref_change_unfold(m, &n, L, known, done, is_new, bound, out);
    free(is_new);
done:
    ref_mode_close(&o);
    ref_mode_close(&n);
    if (rc < 0)
        ref_change_close(out);
    return rc;
}
