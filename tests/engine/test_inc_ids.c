/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_inc_ids.c -- inc_result_whole_ids (engine/inc_ids.c):
 * each block of the whole graph gets the stable id of the result's block
 * with the same identity, every id once, on models of one and of several
 * components; a block an edit does not touch keeps its id in the whole
 * graph of the next version; a graph of another model is refused.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdg.h"
#include "inc.h"
#include "mel.h"
#include "sa.h"

#include "model_files.h"

static void begin(void) { cr_assert_eq(sa_begin(NULL), MDAE_OK); }
static void end(void) { sa_end(); }

TestSuite(inc_ids, .init = begin, .fini = end, .timeout = 600);

typedef struct version {
    mel_model *m;
    inc_result *r;
    sa_result *res;  /* borrowed from r */
    cdg_graph *g;    /* borrowed from r */
    uint32_t *ids;   /* mdae_free */
} version;

static void analyse(inc_session *s, const char *text, long long n, version *v)
{
    mel_define d = {"N", n};
    mel_options mo = {0};
    mo.defines = &d;
    mo.n_defines = n > 0 ? 1 : 0;
    memset(v, 0, sizeof *v);
    cr_assert_eq(mel_model_parse(text, strlen(text), &mo, &v->m, NULL), MDAE_OK);
    cr_assert_eq(inc_analyze(s, v->m, NULL, &v->r, NULL), MDAE_OK);
    cr_assert_eq(inc_result_whole(v->r, v->m, NULL, &v->res, &v->g, NULL), MDAE_OK);
    cr_assert_eq(inc_result_whole_ids(v->r, v->g, &v->ids), MDAE_OK);
}

static void drop(version *v)
{
    mdae_free(v->ids);
    inc_result_free(v->r);
    mel_model_free(v->m);
}

static bool same_items(const cdg_item *a, size_t na, const cdg_item *b, size_t nb)
{
    if (na != nb)
        return false;
    for (size_t k = 0; k < na; k++)
        if (strcmp(a[k].name, b[k].name) != 0 || a[k].order != b[k].order)
            return false;
    return true;
}

static bool same_block(const cdg_block *a, const cdg_block *b)
{
    return same_items(a->equations, a->n_equations, b->equations, b->n_equations) &&
           same_items(a->unknowns, a->n_unknowns, b->unknowns, b->n_unknowns) &&
           same_items(a->reads, a->n_reads, b->reads, b->n_reads);
}

/* Every whole block has the identity of the result's block of its id, and
 * no id is given twice. */
static void check_ids(const version *v, const char *what)
{
    size_t n = cdg_graph_n_blocks(v->g);
    cr_assert_eq(n, inc_result_n_blocks(v->r), "%s", what);
    for (size_t k = 0; k < n; k++) {
        cdg_block wb, rb;
        cr_assert_eq(cdg_graph_block(v->g, (uint32_t)k, &wb), MDAE_OK);
        cr_assert_eq(inc_result_block_by_id(v->r, v->ids[k], &rb), MDAE_OK, "%s", what);
        cr_assert(same_block(&wb, &rb), "%s: block %zu has the identity of id %u", what, k,
                  v->ids[k]);
        for (size_t j = 0; j < k; j++)
            cr_assert_neq(v->ids[j], v->ids[k], "%s: id %u twice", what, v->ids[k]);
    }
}

Test(inc_ids, gives_every_whole_block_the_id_of_its_identity)
{
    static const struct {
        const char *file;
        long long n;
    } cases[] = {{"rldc2.mel", 0},       {"water_tank.mel", 0}, {"clutch.mel", 0},
                 {"rldc_chain.mel", 4}, {"brake.mel", 3},      {"building_compressible.mel", 2}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char *text = tm_slurp(cases[c].file);
        inc_session *s = NULL;
        cr_assert_eq(inc_session_new(&s), MDAE_OK);
        version v;
        analyse(s, text, cases[c].n, &v);
        check_ids(&v, cases[c].file);
        drop(&v);
        inc_session_free(s);
        free(text);
    }
}

Test(inc_ids, keeps_the_ids_of_the_blocks_an_edit_does_not_touch)
{
    /* Two components; the edit changes the second only. */
    static const char v1[] = "a : real; b : real; e1 : equation der(a) = b; e2 : equation b = a;\n"
                             "x : real; y : real; e3 : equation der(x) = y; e4 : equation y = x;\n";
    static const char v2[] = "a : real; b : real; e1 : equation der(a) = b; e2 : equation b = a;\n"
                             "x : real; y : real; e3 : equation x = y; e4 : equation der(y) = x;\n";
    inc_session *s = NULL;
    cr_assert_eq(inc_session_new(&s), MDAE_OK);
    version a, b;
    analyse(s, v1, 0, &a);
    analyse(s, v2, 0, &b);
    check_ids(&a, "v1");
    check_ids(&b, "v2");
    size_t kept = 0;
    for (size_t i = 0; i < cdg_graph_n_blocks(a.g); i++)
        for (size_t j = 0; j < cdg_graph_n_blocks(b.g); j++) {
            cdg_block x, y;
            cr_assert_eq(cdg_graph_block(a.g, (uint32_t)i, &x), MDAE_OK);
            cr_assert_eq(cdg_graph_block(b.g, (uint32_t)j, &y), MDAE_OK);
            if (same_block(&x, &y)) {
                cr_assert_eq(a.ids[i], b.ids[j], "an unchanged block keeps its id");
                kept++;
            } else {
                cr_assert_neq(a.ids[i], b.ids[j], "a changed block gets a new id");
            }
        }
    cr_assert_gt(kept, 0, "the e1/e2 blocks are in both versions");
    /* v2's graph is not v1's result's. */
    uint32_t *ids = NULL;
    cr_assert_eq(inc_result_whole_ids(a.r, b.g, &ids), MDAE_E_INVAL);
    cr_assert_null(ids);
    drop(&a);
    drop(&b);
    inc_session_free(s);
}

/* ---- Ids across edits: a function of the identity by names ---------------
 * A part analysed anew takes the ids of the blocks it shares with its seed
 * (the previous version's part: engine/inc_session.c, part_ids) without a
 * key; a renaming keeps every index, so a block whose indices are the
 * seed's but whose names are not must not take the seed's id. */

/* text with every occurrence of `from` replaced by `to`. */
static char *replace_all(const char *text, const char *from, const char *to)
{
    size_t nf = strlen(from), nt = strlen(to), n = 0;
    for (const char *p = strstr(text, from); p != NULL; p = strstr(p + nf, from))
        n++;
    char *out = malloc(strlen(text) + n * nt + 1), *o = out;
    cr_assert_not_null(out);
    for (const char *p = text, *q; (q = strstr(p, from)) != NULL || *p != '\0'; p = q + nf) {
        if (q == NULL) {
            strcpy(o, p);
            return out;
        }
        memcpy(o, p, (size_t)(q - p));
        o += q - p;
        memcpy(o, to, nt);
        o += nt;
    }
    *o = '\0';
    return out;
}

/* A block's identity by names and orders, one string (malloc). */
static char *identity_text(const cdg_block *b)
{
    size_t cap = 64, len = 0;
    char *s = malloc(cap);
    cr_assert_not_null(s);
    const cdg_item *sets[3] = {b->equations, b->unknowns, b->reads};
    size_t ns[3] = {b->n_equations, b->n_unknowns, b->n_reads};
    for (int k = 0; k < 3; k++)
        for (size_t a = 0; a <= ns[k]; a++) {
            char item[256];
            int n = a < ns[k] ? snprintf(item, sizeof item, "%s'%d,", sets[k][a].name,
                                         sets[k][a].order)
                              : snprintf(item, sizeof item, "|");
            while (len + (size_t)n + 1 > cap)
                cr_assert_not_null(s = realloc(s, cap *= 2));
            memcpy(s + len, item, (size_t)n + 1);
            len += (size_t)n;
        }
    return s;
}

/* Every identity -> id the session gave so far, both ways a function. */
typedef struct id_book {
    char **ident;
    uint32_t *id;
    size_t n;
} id_book;

static void book_check(id_book *bk, const version *v, const char *what)
{
    for (size_t k = 0; k < inc_result_n_blocks(v->r); k++) {
        cdg_block b;
        cr_assert_eq(inc_result_block(v->r, k, &b), MDAE_OK);
        char *ident = identity_text(&b);
        bool known = false;
        for (size_t q = 0; q < bk->n && !known; q++) {
            bool same_ident = strcmp(bk->ident[q], ident) == 0, same_id = bk->id[q] == b.id;
            cr_assert_eq(same_ident, same_id,
                         "%s: block %u (%s) against id %u (%s): an identity has one id, an id "
                         "one identity",
                         what, b.id, ident, bk->id[q], bk->ident[q]);
            known = same_ident;
        }
        if (known) {
            free(ident);
            continue;
        }
        cr_assert_not_null(bk->ident = realloc(bk->ident, (bk->n + 1) * sizeof *bk->ident));
        cr_assert_not_null(bk->id = realloc(bk->id, (bk->n + 1) * sizeof *bk->id));
        bk->ident[bk->n] = ident;
        bk->id[bk->n++] = b.id;
    }
}

Test(inc_ids, a_block_renamed_in_place_gets_a_new_id_and_the_others_keep_theirs)
{
    char *text = tm_slurp("brake.mel");
    char *renamed_var = replace_all(text, "ft[i]", "fq[i]");  /* same indices */
    char *renamed_eq = replace_all(text, "mer[i] :", "mrr[i] :");
    char *edited = replace_all(text, "px[i] : equation b[i] = K*x[i];",
                               "px[i] : equation b[i] = K*x[i] + (if i == 2 then der(x[i]) "
                               "else 0);");
    const char *versions[] = {text, renamed_var, renamed_eq, edited, renamed_var, text};
    const char *names[] = {"original", "ft renamed", "mer renamed", "px[2] edited",
                           "ft renamed again", "original again"};
    inc_session *s = NULL;
    cr_assert_eq(inc_session_new(&s), MDAE_OK);
    id_book bk = {0};
    size_t first_n = 0;
    for (size_t k = 0; k < sizeof versions / sizeof versions[0]; k++) {
        version v;
        analyse(s, versions[k], 4, &v);
        inc_stats st;
        inc_result_stats(v.r, &st);
        /* the first four analysed anew, seeded by the one before */
        if (k < 4)
            cr_assert_eq(st.reused, 0, "%s: reused %zu", names[k], st.reused);
        check_ids(&v, names[k]);
        book_check(&bk, &v, names[k]);
        if (k == 0)
            first_n = bk.n;
        if (k == 1) /* fq's blocks are new identities: new ids */
            cr_assert_gt(bk.n, first_n, "the renaming made new identities");
        drop(&v);
    }
    for (size_t q = 0; q < bk.n; q++)
        free(bk.ident[q]);
    free(bk.ident);
    free(bk.id);
    inc_session_free(s);
    free(edited);
    free(renamed_eq);
    free(renamed_var);
    free(text);
}

/* The brake is one part: after an edit its graph is seeded by the previous
 * one and the result's blocks borrow its item arrays (the ids are matched
 * by smallest equation, then identity: engine/inc_ids.c). A whole block of
 * the edited version has the previous id iff the previous whole graph had
 * a block of its identity by names; the edited equation's blocks get new
 * ids. Some smallest equation starts several blocks (the matching must
 * compare within its bucket). */
Test(inc_ids, follows_an_edit_of_one_part_block_by_block)
{
    char *text = tm_slurp("brake.mel");
    char *edited = replace_all(text, "px[i] : equation b[i] = K*x[i];",
                               "px[i] : equation b[i] = K*x[i] + (if i == 2 then der(x[i]) "
                               "else 0);");
    inc_session *s = NULL;
    cr_assert_eq(inc_session_new(&s), MDAE_OK);
    version a, b;
    analyse(s, text, 6, &a);
    analyse(s, edited, 6, &b);
    check_ids(&a, "original");
    check_ids(&b, "edited");
    size_t na = cdg_graph_n_blocks(a.g), nb = cdg_graph_n_blocks(b.g), kept = 0, fresh = 0,
           shared_first = 0;
    char **ia = malloc((na + 1) * sizeof *ia);
    cr_assert_not_null(ia);
    for (size_t i = 0; i < na; i++) {
        cdg_block x, y;
        cr_assert_eq(cdg_graph_block(a.g, (uint32_t)i, &x), MDAE_OK);
        ia[i] = identity_text(&x);
        if (i > 0 && cdg_graph_block(a.g, (uint32_t)i - 1, &y) == MDAE_OK)
            shared_first += x.equations[0].index == y.equations[0].index;
    }
    for (size_t j = 0; j < nb; j++) {
        cdg_block y;
        cr_assert_eq(cdg_graph_block(b.g, (uint32_t)j, &y), MDAE_OK);
        char *iy = identity_text(&y);
        size_t i = 0;
        while (i < na && strcmp(ia[i], iy) != 0)
            i++;
        for (size_t q = 0; q < na && i == na; q++)
            cr_assert_neq(a.ids[q], b.ids[j], "new block %s takes the old id %u", iy, b.ids[j]);
        if (i < na)
            cr_assert_eq(a.ids[i], b.ids[j], "kept block %s: id %u, was %u", iy, b.ids[j],
                         a.ids[i]);
        kept += i < na;
        fresh += i == na;
        free(iy);
    }
    cr_assert_gt(kept, 0);
    cr_assert_gt(fresh, 0, "the edit changes some block");
    cr_assert_gt(shared_first, 0, "some equation starts several blocks");
    for (size_t i = 0; i < na; i++)
        free(ia[i]);
    free(ia);
    drop(&a);
    drop(&b);
    inc_session_free(s);
    free(edited);
    free(text);
}
