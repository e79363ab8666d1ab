/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/server/test_srv_inc.c -- the worker's incremental analysis (issue
 * 6): across session/edit, a model whose structure did not change is
 * reused (session/analyze {reuse:true} says so), a changed one recomputed,
 * and either way the result is exactly the cold one (a fresh session on the
 * same text).
 */
#include <stdarg.h>

#include "rpc_diff.h"
#include "srv_test.h"
#include "model_files.h"

static cJSON *edit_line(const char *sid, int line, int from, int to, const char *text)
{
    cJSON *p = session_params(sid);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(p, "edits"),
                         t_range_edit(line, from, line, to, text));
    return p;
}

/* session/analyze; rs (may be NULL) gets {components, reused, recomputed,
 * seeded, searched}, and the result is returned without that member. */
/* The "method" of analyze requests (NULL: none, the server's auto): the
 * seeding tests need the implicit path, which seeds (issue 10). */
static const char *analyze_method;
/* The parts' "seededZero", "seededRepaired", "blocksReused" and
 * "sccsReused" summed, from the last analyze with reuse. */
static int last_seeded_zero, last_seeded_repaired, last_blocks_reused, last_sccs_reused;
static int last_encoded_from_hint;
static int last_shared_equations; /* reuse.sharedEquations of the last analyze */

static cJSON *analyze(client *c, const char *sid, bool with_reuse, int rs[5])
{
    cJSON *p = session_params(sid);
    if (with_reuse)
        cJSON_AddBoolToObject(p, "reuse", true);
    if (analyze_method != NULL)
        cJSON_AddStringToObject(p, "method", analyze_method);
    cJSON *r = cl_request(c, 7, "session/analyze", p);
    cJSON *res = cJSON_DetachItemFromObject(r, "result");
    cr_assert_not_null(res, "%s", cJSON_PrintUnformatted(r));
    cJSON_Delete(r);
    cJSON *ru = cJSON_DetachItemFromObject(res, "reuse");
    cr_assert_eq(ru != NULL, with_reuse, "reuse only when asked");
    if (ru != NULL) {
        rs[0] = cJSON_GetObjectItem(ru, "components")->valueint;
        rs[1] = cJSON_GetObjectItem(ru, "reused")->valueint;
        rs[2] = cJSON_GetObjectItem(ru, "recomputed")->valueint;
        rs[3] = cJSON_GetObjectItem(ru, "seeded")->valueint;
        rs[4] = cJSON_GetObjectItem(ru, "searched")->valueint;
        last_shared_equations = cJSON_GetObjectItem(ru, "sharedEquations")->valueint;
        last_seeded_zero = last_seeded_repaired = last_blocks_reused = last_sccs_reused = 0;
        last_encoded_from_hint = 0;
        const cJSON *part;
        cJSON_ArrayForEach(part, cJSON_GetObjectItem(ru, "parts")) {
            last_seeded_zero += cJSON_GetObjectItem(part, "seededZero")->valueint;
            last_seeded_repaired += cJSON_GetObjectItem(part, "seededRepaired")->valueint;
            last_blocks_reused += cJSON_GetObjectItem(part, "blocksReused")->valueint;
            last_sccs_reused += cJSON_GetObjectItem(part, "sccsReused")->valueint;
            last_encoded_from_hint += cJSON_GetObjectItem(part, "encodedFromHint")->valueint;
        }
        cJSON_Delete(ru);
    }
    return res;
}

static cJSON *result_of_edit(cJSON *r)
{
    cJSON *res = cJSON_GetObjectItem(r, "result");
    cr_assert_not_null(res, "%s", cJSON_PrintUnformatted(r));
    return res;
}

static void assert_same(const cJSON *a, const cJSON *b, const char *what)
{
    char *x = cJSON_PrintUnformatted(a), *y = cJSON_PrintUnformatted(b);
    cr_assert_str_eq(x, y, "%s", what);
    cJSON_free(x);
    cJSON_free(y);
}

Test(srv_inc, an_edit_that_keeps_the_structure_is_reused_and_results_equal_cold_ones)
{
    srv_proc p;
    client c;
    analyze_method = "implicit";
    srv_start(&p, "", "");
    cl_connect(&c, &p);
    char *text = t_model("brake.mel");
    /* The line of `N : integer = 3;` (0-based). */
    const char *np = strstr(text, "N : integer = 3;");
    cr_assert_not_null(np);
    int nline = 0;
    for (const char *q = text; q < np; q++)
        nline += *q == '\n';

    char *sid = cl_open(&c, text);
    int rs[5];
    cJSON *r1 = analyze(&c, sid, true, rs);
    cr_assert_eq(rs[0], 1, "the brake is one component");
    cr_assert_eq(rs[2], 1);

    /* A comment: same structure, reused. */
    cJSON_Delete(cl_request(&c, 8, "session/edit", edit_line(sid, 0, 0, 0, "// edited\n")));
    cJSON *r2 = analyze(&c, sid, true, rs);
    cr_assert_eq(rs[1], 1, "reused after a comment");
    cr_assert_eq(rs[2], 0);
    assert_same(r1, r2, "same result after a comment");

    /* N = 4: recomputed, and equal to a cold session's result. */
    cJSON_Delete(cl_request(&c, 9, "session/edit",
                            edit_line(sid, nline + 1, 0, 16, "N : integer = 4;")));
    cJSON *r3 = analyze(&c, sid, true, rs);
    cr_assert_eq(rs[2], 1, "recomputed after N changed");
    cr_assert_eq(rs[3], 51, "the 12N+3 = 39 equations of N = 3 seed N = 4's by name, and car 3's\n"
                            "12 seed car 4's (sa_hint.c, neighbours): %d", rs[3]);
    char *t4 = malloc(strlen(text) + 16);
    size_t before = (size_t)(np - text);
    memcpy(t4, "// edited\n", 10);
    memcpy(t4 + 10, text, before);
    strcpy(t4 + 10 + before, "N : integer = 4;");
    strcat(t4, np + 16);
    char *cold_sid = cl_open(&c, t4);
    cJSON *cold = analyze(&c, cold_sid, false, NULL);
    assert_same(r3, cold, "incremental after N=4 equals cold");

    /* Back to N = 3: the cache still has it. */
    cJSON_Delete(cl_request(&c, 10, "session/edit",
                            edit_line(sid, nline + 1, 0, 16, "N : integer = 3;")));
    cJSON *r4 = analyze(&c, sid, true, rs);
    cr_assert_eq(rs[1], 1, "N = 3 again is reused");
    assert_same(r1, r4, "same result as the first N = 3");
    cr_assert_eq(last_shared_equations, 0, "N changed: every equation read again");

    /* server/status adds up what the workers reused: 4 analyses of the
     * session (2 reused, 2 recomputed) and the cold session's one. */
    cJSON *st = cl_request(&c, 14, "server/status", NULL);
    cJSON *ru = cJSON_GetObjectItem(cJSON_GetObjectItem(st, "result"), "reuse");
    cr_assert_not_null(ru, "%s", cJSON_PrintUnformatted(st));
    cr_assert_eq(cJSON_GetObjectItem(ru, "components")->valueint, 5);
    cr_assert_eq(cJSON_GetObjectItem(ru, "reused")->valueint, 2);
    cr_assert_eq(cJSON_GetObjectItem(ru, "recomputed")->valueint, 3);
    cr_assert_eq(cJSON_GetObjectItem(ru, "seeded")->valueint, 51,
                 "only N = 4 was analysed with a seed (N = 3 again was reused)");
    cJSON_Delete(st);

    /* A comment appended: the front-end takes every equation from the
     * version before (mel_options.since, issue 40 item 3). */
    int lines = 1; /* the comment edited in first */
    for (const char *q = text; *q; q++)
        lines += *q == '\n';
    cJSON_Delete(cl_request(&c, 11, "session/edit", edit_line(sid, lines, 0, 0, "// end\n")));
    cJSON *r5 = analyze(&c, sid, true, rs);
    assert_same(r1, r5, "same result after a comment at the end");
    cr_assert_eq(last_shared_equations, 39, "the 12N+3 equations shared: %d",
                 last_shared_equations);
    cJSON_Delete(r5);

    cJSON_Delete(r1);
    cJSON_Delete(r2);
    cJSON_Delete(r3);
    cJSON_Delete(r4);
    cJSON_Delete(cold);
    free(t4);
    free(sid);
    free(cold_sid);
    free(text);
    cl_close(&c);
    srv_stop(&p);
}

/* ---- session/analyze {since} ------------------------------------------------ */

static char *item_key(const char *member, const cJSON *x)
{
    char buf[256];
    if (strcmp(member, "blocks") == 0)
        snprintf(buf, sizeof buf, "%d", cJSON_GetObjectItem(x, "id")->valueint);
    else if (strcmp(member, "edges") == 0)
        snprintf(buf, sizeof buf, "%d>%d", cJSON_GetObjectItem(x, "from")->valueint,
                 cJSON_GetObjectItem(x, "to")->valueint);
    else if (strcmp(member, "equations") == 0 || strcmp(member, "variables") == 0)
        snprintf(buf, sizeof buf, "%s", cJSON_GetObjectItem(x, "name")->valuestring);
    else {
        char *s = cJSON_PrintUnformatted(x);
        char *k = strdup(s);
        cJSON_free(s);
        return k;
    }
    return strdup(buf);
}

/* The key of a "removed" entry (an id, {from,to}, a name or a whole item). */
static char *removed_key(const char *member, const cJSON *x)
{
    char buf[256];
    if (strcmp(member, "blocks") == 0)
        snprintf(buf, sizeof buf, "%d", x->valueint);
    else if (strcmp(member, "equations") == 0 || strcmp(member, "variables") == 0)
        snprintf(buf, sizeof buf, "%s", x->valuestring);
    else
        return item_key(member, x);
    return strdup(buf);
}

static const char *const set_members[] = {"blocks", "edges", "equations", "variables",
                                          "diagnostics"};

static void drop_key(cJSON *arr, const char *member, const char *k)
{
    int i = 0;
    cJSON *x;
    cJSON_ArrayForEach(x, arr)
    {
        char *kx = item_key(member, x);
        bool same = strcmp(kx, k) == 0;
        free(kx);
        if (same) {
            cJSON_DeleteItemFromArray(arr, i);
            return;
        }
        i++;
    }
    cr_assert_fail("removed %s %s is not in the old result", member, k);
}

/* old + diff, in place. */
static void apply_diff(cJSON *full, const cJSON *diff)
{
    for (size_t m = 0; m < sizeof set_members / sizeof set_members[0]; m++) {
        const char *member = set_members[m];
        cJSON *arr = cJSON_GetObjectItem(full, member);
        const cJSON *d = cJSON_GetObjectItem(diff, member);
        cr_assert_not_null(arr);
        cr_assert_not_null(d, "diff has %s", member);
        const cJSON *x;
        cJSON_ArrayForEach(x, cJSON_GetObjectItem(d, "removed"))
        {
            char *k = removed_key(member, x);
            drop_key(arr, member, k);
            free(k);
        }
        cJSON_ArrayForEach(x, cJSON_GetObjectItem(d, "changed"))
        {
            char *k = item_key(member, x);
            drop_key(arr, member, k);
            free(k);
            cJSON_AddItemToArray(arr, cJSON_Duplicate(x, true));
        }
        cJSON_ArrayForEach(x, cJSON_GetObjectItem(d, "added"))
            cJSON_AddItemToArray(arr, cJSON_Duplicate(x, true));
    }
    const cJSON *x;
    cJSON_ArrayForEach(x, cJSON_GetObjectItem(diff, "members"))
    {
        if (cJSON_GetObjectItem(full, x->string) != NULL)
            cJSON_DeleteItemFromObject(full, x->string);
        if (!cJSON_IsNull(x)) /* null: the member is gone (rpc_diff.h) */
            cJSON_AddItemToObject(full, x->string, cJSON_Duplicate(x, true));
    }
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sets sorted by their printed items, other members as they are. */
static char *canonical(const cJSON *full)
{
    size_t cap = 1 << 16, len = 0;
    char *out = malloc(cap);
    out[0] = '\0';
    const cJSON *x;
    char **names = calloc(64, sizeof *names);
    size_t nn = 0;
    cJSON_ArrayForEach(x, full)
        names[nn++] = x->string;
    qsort(names, nn, sizeof *names, cmp_str);
    for (size_t q = 0; q < nn; q++) {
        const cJSON *v = cJSON_GetObjectItem(full, names[q]);
        bool is_set = false;
        for (size_t m = 0; m < sizeof set_members / sizeof set_members[0]; m++)
            is_set = is_set || strcmp(names[q], set_members[m]) == 0;
        int n = is_set ? cJSON_GetArraySize(v) : 1;
        char **items = calloc((size_t)n + 1, sizeof *items);
        for (int i = 0; i < n; i++)
            items[i] = cJSON_PrintUnformatted(is_set ? cJSON_GetArrayItem(v, i) : v);
        if (is_set)
            qsort(items, (size_t)n, sizeof *items, cmp_str);
        for (int i = -1; i < n; i++) {
            const char *s = i < 0 ? names[q] : items[i];
            size_t sl = strlen(s);
            while (len + sl + 2 > cap)
                out = realloc(out, cap *= 2);
            memcpy(out + len, s, sl);
            len += sl;
            out[len++] = '\n';
            out[len] = '\0';
        }
        for (int i = 0; i < n; i++)
            cJSON_free(items[i]);
        free(items);
    }
    free(names);
    return out;
}

static char *appended(const char *text, const char *more)
{
    char *o = malloc(strlen(text) + strlen(more) + 1);
    strcpy(o, text);
    strcat(o, more);
    return o;
}

static cJSON *analyze_with(client *c, const char *sid, const char *key, int since)
{
    cJSON *p = session_params(sid);
    if (strcmp(key, "since") == 0)
        cJSON_AddNumberToObject(p, "since", since);
    else
        cJSON_AddBoolToObject(p, key, true);
    cJSON *r = cl_request(c, 11, "session/analyze", p);
    cJSON *res = cJSON_DetachItemFromObject(r, "result");
    cr_assert_not_null(res, "%s", cJSON_PrintUnformatted(r));
    cJSON_Delete(r);
    return res;
}

Test(srv_inc, differences_applied_to_the_previous_result_give_the_new_one)
{
    srv_proc p;
    client c;
    srv_start(&p, "", "");
    cl_connect(&c, &p);
    char *t[7];
    t[0] = t_model("water_tank.mel");
    t[1] = tm_replaced(t[0], "e1 : equation z = inputFlow(time);",
                    "e1 : equation z = inputFlow(time) + der(y);");
    t[2] = tm_replaced(t[1], "invariant !(bh & bl);", "");
    t[3] = appended(t[2], "w : real;\new : equation der(w) = x;\n");
    t[4] = appended(t[3], "if bh then q : real; eq : equation q = w; end;\n");
    t[5] = tm_replaced(t[4], "eh2 : equation 0 = if bh then x - xmax else yh;",
                    "eh2 : equation 0 = if bl then x - xmax else yh;");
    t[6] = strdup(t[0]);
    char *sid = cl_open(&c, t[0]);
    cJSON *prev = analyze_with(&c, sid, "stableIds", 0);
    cJSON *first = cJSON_Duplicate(prev, true);
    int version = 1, kept_blocks = 0;
    for (int k = 1; k < 7; k++) {
        cJSON *params = session_params(sid);
        cJSON_AddStringToObject(params, "text", t[k]);
        cJSON *r = cl_request(&c, 12, "session/edit", params);
        version = cJSON_GetObjectItem(result_of_edit(r), "version")->valueint;
        cJSON_Delete(r);
        cJSON *diff = analyze_with(&c, sid, "since", version - 1);
        cr_assert_eq(cJSON_GetObjectItem(diff, "since")->valueint, version - 1);
        cr_assert_eq(cJSON_GetObjectItem(diff, "version")->valueint, version);
        cJSON *full = analyze_with(&c, sid, "stableIds", 0);
        apply_diff(prev, diff);
        char *a = canonical(prev), *b = canonical(full);
        cr_assert_str_eq(a, b, "edit %d: old + diff == new\n%s", k, cJSON_PrintUnformatted(diff));
        free(a);
        free(b);
        /* Blocks that did not change keep their id (not all change). */
        const cJSON *d = cJSON_GetObjectItem(diff, "blocks");
        int n_full = cJSON_GetArraySize(cJSON_GetObjectItem(full, "blocks"));
        kept_blocks += n_full - cJSON_GetArraySize(cJSON_GetObjectItem(d, "added")) -
                       cJSON_GetArraySize(cJSON_GetObjectItem(d, "changed"));
        cJSON_Delete(diff);
        cJSON_Delete(prev);
        prev = full;
    }
    cr_assert_gt(kept_blocks, 0, "some blocks kept their ids");

    /* Streamed, a difference sends only the blocks it adds or changes. */
    {
        cJSON *params = session_params(sid);
        cJSON_AddStringToObject(params, "text", t[1]);
        cJSON_Delete(cl_request(&c, 15, "session/edit", params));
        cJSON *ap = session_params(sid);
        cJSON_AddNumberToObject(ap, "since", version);
        cJSON_AddBoolToObject(ap, "stream", true);
        char *req = t_request(16, "session/analyze", ap);
        cl_send(&c, req);
        cl_send(&c, "\n");
        cJSON_free(req);
        int streamed = 0;
        cJSON *resp = NULL;
        while (resp == NULL) {
            cJSON *j = cl_json(&c);
            const cJSON *m = cJSON_GetObjectItem(j, "method");
            if (m == NULL) {
                resp = j;
                break;
            }
            if (strcmp(m->valuestring, "analysis/block") == 0)
                streamed++;
            cJSON_Delete(j);
        }
        const cJSON *d = cJSON_GetObjectItem(cJSON_GetObjectItem(resp, "result"), "blocks");
        cr_assert_not_null(d, "%s", cJSON_PrintUnformatted(resp));
        cr_assert_eq(streamed, cJSON_GetArraySize(cJSON_GetObjectItem(d, "added")) +
                                   cJSON_GetArraySize(cJSON_GetObjectItem(d, "changed")));
        cr_assert_gt(streamed, 0);
        cJSON_Delete(resp);
        /* Back to t[0] for the check below. */
        params = session_params(sid);
        cJSON_AddStringToObject(params, "text", t[0]);
        cJSON_Delete(cl_request(&c, 17, "session/edit", params));
        cJSON_Delete(prev);
        prev = analyze_with(&c, sid, "stableIds", 0);
    }
    /* Back to the first text: the same blocks, the same ids. */
    char *a = canonical(first), *b = canonical(prev);
    cr_assert_str_eq(a, b, "same text, same stable result");
    free(a);
    free(b);
    /* A version that was never kept is refused. */
    cJSON *pp = session_params(sid);
    cJSON_AddNumberToObject(pp, "since", 999);
    cJSON *r = cl_request(&c, 13, "session/analyze", pp);
    cr_assert_not_null(cJSON_GetObjectItem(r, "error"));
    cJSON_Delete(r);
    cJSON_Delete(first);
    cJSON_Delete(prev);
    for (int k = 0; k < 7; k++)
        free(t[k]);
    free(sid);
    cl_close(&c);
    srv_stop(&p);
}

/* A small random model: mode variables, unknowns, equations with random
 * derivative orders, some in if/else pairs (one equation per branch), and
 * sometimes an invariant. */
static uint64_t rnd(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void put(char **t, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char *o = appended(*t, buf);
    free(*t);
    *t = o;
}

static void term(char **t, uint64_t *s, unsigned n_vars)
{
    unsigned v = 1 + (unsigned)(rnd(s) % n_vars), o = (unsigned)(rnd(s) % 3);
    put(t, "%sx%u%s", o == 0 ? "" : o == 1 ? "der(" : "der(der(", v,
        o == 0 ? "" : o == 1 ? ")" : "))");
}

static char *random_text(uint64_t *s)
{
    char *t = strdup("");
    unsigned n_modes = 1 + (unsigned)(rnd(s) % 3), n_vars = 2 + (unsigned)(rnd(s) % 4);
    for (unsigned k = 1; k <= n_modes; k++)
        put(&t, "g%u : boolean;\n", k);
    for (unsigned k = 1; k <= n_vars; k++)
        put(&t, "x%u : real;\n", k);
    if (rnd(s) % 3 == 0)
        put(&t, "invariant !g1 | g%u;\n", 1 + (unsigned)(rnd(s) % n_modes));
    for (unsigned k = 1; k <= n_vars; k++) {
        bool cond = rnd(s) % 3 == 0;
        if (cond)
            put(&t, "if %sg%u then\n", rnd(s) % 2 ? "!" : "", 1 + (unsigned)(rnd(s) % n_modes));
        for (int branch = 0; branch < (cond ? 2 : 1); branch++) {
            if (branch == 1)
                put(&t, "else\n");
            put(&t, "e%u%s : equation ", k, branch ? "b" : "");
            term(&t, s, n_vars);
            for (unsigned q = rnd(s) % 3; q > 0; q--) {
                put(&t, " + ");
                term(&t, s, n_vars);
            }
            put(&t, " = 0;\n");
        }
        if (cond)
            put(&t, "end;\n");
    }
    return t;
}

Test(srv_inc, random_texts_differences_applied_give_the_new_results)
{
    srv_proc p;
    client c;
    srv_start(&p, "", "");
    cl_connect(&c, &p);
    uint64_t seed = 4242;
    int checked = 0;
    for (int seq = 0; seq < 30; seq++) {
        char *t = random_text(&seed);
        char *sid = cl_open(&c, t);
        free(t);
        cJSON *prev = analyze_with(&c, sid, "stableIds", 0);
        for (int k = 0; k < 6; k++) {
            /* A new random text half the time, else a local edit: an extra
             * equation with its unknown, or an invariant. */
            cJSON *params = session_params(sid);
            char *nt = random_text(&seed);
            if (rnd(&seed) % 2)
                put(&nt, "y : real;\nf : equation der(y) = x1;\n");
            cJSON_AddStringToObject(params, "text", nt);
            cJSON *r = cl_request(&c, 12, "session/edit", params);
            int version = cJSON_GetObjectItem(result_of_edit(r), "version")->valueint;
            cJSON_Delete(r);
            cJSON *diff = analyze_with(&c, sid, "since", version - 1);
            cJSON *full = analyze_with(&c, sid, "stableIds", 0);
            apply_diff(prev, diff);
            char *a = canonical(prev), *b = canonical(full);
            cr_assert_str_eq(a, b, "seq %d edit %d:\n%s", seq, k, nt);
            free(a);
            free(b);
            free(nt);
            cJSON_Delete(diff);
            cJSON_Delete(prev);
            prev = full;
            checked++;
        }
        cJSON_Delete(prev);
        cJSON_Delete(cl_request(&c, 13, "session/close", session_params(sid)));
        free(sid);
    }
    cr_assert_eq(checked, 180);
    cl_close(&c);
    srv_stop(&p);
}

/* Model `file` at N = n through a fresh mdaed: analysed, then the first
 * `eq` replaced by `eq2` with session/edit and analysed again (with reuse
 * statistics: last_*), which must equal a cold session of the edited text;
 * rs[2] (parts recomputed) must be 1, the model being one component. */
static void edit_and_compare(const char *file, int n, const char *eq, const char *eq2)
{
    srv_proc p;
    client c;
    analyze_method = NULL;
    srv_start(&p, "", "");
    cl_connect(&c, &p);
    char *base = t_model(file);
    const char *np = strstr(base, "N : integer = 3;");
    cr_assert_not_null(np);
    char *text = malloc(strlen(base) + 16);
    cr_assert_not_null(text);
    sprintf(text, "%.*sN : integer = %d;%s", (int)(np - base), base, n, np + 16);
    const char *at = strstr(text, eq);
    cr_assert_not_null(at);
    int line = 0, col = 0;
    for (const char *q = text; q < at; q++) {
        col = *q == '\n' ? 0 : col + 1;
        line += *q == '\n';
    }
    char *sid = cl_open(&c, text);
    int rs[5];
    cJSON_Delete(analyze(&c, sid, true, rs));
    cJSON_Delete(cl_request(&c, 8, "session/edit",
                            edit_line(sid, line, col, col + (int)strlen(eq), eq2)));
    cJSON *r = analyze(&c, sid, true, rs);
    cr_assert_eq(rs[2], 1, "%s: one component, recomputed", file);
    char *edited = malloc(strlen(text) + strlen(eq2) + 1);
    cr_assert_not_null(edited);
    sprintf(edited, "%.*s%s%s", (int)(at - text), text, eq2, at + strlen(eq));
    char *cold_sid = cl_open(&c, edited);
    cJSON *cold = analyze(&c, cold_sid, false, NULL);
    assert_same(r, cold, "the edited session's result equals the cold one");
    cJSON_Delete(r);
    cJSON_Delete(cold);
    free(edited);
    free(cold_sid);
    free(sid);
    free(text);
    free(base);
    cl_close(&c);
    srv_stop(&p);
}

/* The building at N = 20 (at N = 6 its modes are enumerated), one equation
 * of room 3 given a derivative: its large block's primal is the previous
 * chosen matching repaired near the edit (engine/sa_repair.c), which the
 * reuse statistics say, and the result is still the cold one. */
Test(srv_inc, an_edit_of_the_building_repairs_the_previous_matching_and_equals_cold)
{
    edit_and_compare("building_compressible.mel", 20,
                     "rimf[i] : equation mu_in[i] = flow_vent(Pin - Pr[i]);",
                     "rimf[i] : equation mu_in[i] = flow_vent(Pin - Pr[i]) + "
                     "(if i == 3 then der(Tr[i]) else 0);");
    cr_assert_gt(last_seeded_repaired, 0, "its block's matching repaired");
}

/* The brake at N = 40, railcar 20's brake force given a derivative: every
 * other railcar's blocks and dependency-graph SCCs come from the previous
 * version's memo (engine/sa_memo.c), which the reuse statistics say, and
 * the result is still the cold one. */
Test(srv_inc, an_edit_of_the_brake_reuses_the_other_railcars_blocks_and_equals_cold)
{
    edit_and_compare("brake.mel", 40, "px[i] : equation b[i] = K*x[i];",
                     "px[i] : equation b[i] = K*x[i] + (if i == 20 then der(x[i]) else 0);");
    cr_assert_gt(last_blocks_reused, 100, "the other railcars' blocks from the memo");
    cr_assert_gt(last_sccs_reused, 100, "the other railcars' graph from the memo");
    /* 12 N + 3 equations in one part: all but px[20] keep the previous
     * version's functions (engine/sa_encode.c). */
    cr_assert_eq(last_encoded_from_hint, 12 * 40 + 3 - 1, "%d equations not encoded again",
                 last_encoded_from_hint);
}

/* ---- Several components ------------------------------------------------------ */

Test(srv_inc, an_edit_of_one_component_reuses_the_others_and_the_result_equals_cold)
{
    static const char *text = "g : boolean; h : boolean;\n"
                              "a : real; b : real; x : real; y : real;\n"
                              "e1 : equation der(a) = b;\n"
                              "if g then e2 : equation b = a; else e3 : equation b = 0; end;\n"
                              "f1 : equation der(x) = y;\n"
                              "if h then f2 : equation y = x; else f3 : equation y = 0; end;\n";
    srv_proc p;
    client c;
    analyze_method = "implicit";
    srv_start(&p, "", "");
    cl_connect(&c, &p);
    char *sid = cl_open(&c, text);
    int rs[5];
    cJSON *r1 = analyze(&c, sid, true, rs);
    cr_assert_eq(rs[0], 2, "two components");
    cr_assert_eq(rs[2], 2);
    char *cold_sid = cl_open(&c, text);
    cJSON *cold = analyze(&c, cold_sid, false, NULL);
    assert_same(r1, cold, "composed result equals cold");

    /* Line 5 (0-based): `f2 : equation y = x;` becomes `y = der(x)`. */
    cJSON_Delete(cl_request(&c, 8, "session/edit",
                            edit_line(sid, 5, 10, 30, "f2 : equation y = der(x);")));
    cJSON *r2 = analyze(&c, sid, true, rs);
    cr_assert_eq(rs[0], 2);
    cr_assert_eq(rs[1], 1, "the untouched component is reused");
    cr_assert_eq(rs[2], 1, "the edited one is recomputed");
    cr_assert_eq(rs[3], 3, "f1, f2, f3 seeded by the previous version of their component");
    cr_assert_eq(last_seeded_zero, 1, "its primal: the cost-0 matchings of the previous offsets");
    char *t2 = strdup(text);
    char *q = strstr(t2, "f2 : equation y = x;");
    cr_assert_not_null(q);
    char *t3 = malloc(strlen(t2) + 16);
    sprintf(t3, "%.*sf2 : equation y = der(x);%s", (int)(q - t2), t2, q + 20);
    char *cold2_sid = cl_open(&c, t3);
    cJSON *cold2 = analyze(&c, cold2_sid, false, NULL);
    assert_same(r2, cold2, "composed result after the edit equals cold");
    char *s1 = cJSON_PrintUnformatted(r1), *s2 = cJSON_PrintUnformatted(r2);
    cr_assert_str_neq(s1, s2, "the edit changed the result");
    cJSON_free(s1);
    cJSON_free(s2);

    cJSON_Delete(r1);
    cJSON_Delete(r2);
    cJSON_Delete(cold);
    cJSON_Delete(cold2);
    free(t2);
    free(t3);
    free(sid);
    free(cold_sid);
    free(cold2_sid);
    cl_close(&c);
    srv_stop(&p);
}

/* ---- How each component is analysed (issue 10) --------------------------------- */

Test(srv_inc, the_method_is_chosen_per_component_reported_and_never_changes_the_result)
{
    /* One component with 2^12 modes and a chain beyond enumeration (2^20). */
    static const char *text = "g : boolean; h : boolean;\n"
                              "a : real; b : real;\n"
                              "e1 : equation der(a) = b;\n"
                              "if g then e2 : equation b = a; else e3 : equation b = 0; end;\n";
    srv_proc p;
    client c;
    srv_start(&p, "", "");
    cl_connect(&c, &p);
    const char *methods[] = {"auto", "implicit", "enumeration"};
    char *first = NULL;
    for (size_t k = 0; k < 3; k++) {
        char *sid = cl_open(&c, text);
        cJSON *pa = session_params(sid);
        cJSON_AddBoolToObject(pa, "reuse", true);
        cJSON_AddStringToObject(pa, "method", methods[k]);
        cJSON *r = cl_request(&c, 7, "session/analyze", pa);
        cJSON *res = cJSON_GetObjectItem(r, "result");
        cr_assert_not_null(res, "%s", cJSON_PrintUnformatted(r));
        cJSON *ru = cJSON_DetachItemFromObject(res, "reuse");
        cr_assert_not_null(ru);
        cJSON *parts = cJSON_GetObjectItem(ru, "parts");
        cr_assert_eq(cJSON_GetArraySize(parts), 1);
        const char *used = cJSON_GetObjectItem(cJSON_GetArrayItem(parts, 0), "method")->valuestring;
        cr_expect_str_eq(used, k == 1 ? "implicit" : "enumeration", "asked %s", methods[k]);
        cr_expect_eq(cJSON_GetObjectItem(ru, k == 1 ? "implicit" : "enumerated")->valueint, 1);
        if (k != 1) /* a forced implicit analysis does not count them */
            cr_expect_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(parts, 0), "modes")->valuedouble,
                         2.0, "g alone matters");
        char *txt = cJSON_PrintUnformatted(res);
        if (first == NULL)
            first = txt;
        else {
            cr_expect_str_eq(txt, first, "%s gives the same result", methods[k]);
            cJSON_free(txt);
        }
        cJSON_Delete(ru);
        cJSON_Delete(r);
        free(sid);
    }
    cJSON_free(first);
    /* server/status sums the methods over every analysis. */
    cJSON *st = cl_request(&c, 8, "server/status", NULL);
    cJSON *sru = cJSON_GetObjectItem(cJSON_GetObjectItem(st, "result"), "reuse");
    cr_assert_not_null(sru, "%s", cJSON_PrintUnformatted(st));
    cr_expect_eq(cJSON_GetObjectItem(sru, "implicit")->valueint, 1);
    cr_expect_eq(cJSON_GetObjectItem(sru, "enumerated")->valueint, 2);
    cr_expect_eq(cJSON_GetObjectItem(sru, "fellBack")->valueint, 0);
    cJSON_Delete(st);
    /* A method that does not exist: invalid params, nothing analysed. */
    char *sid = cl_open(&c, text);
    cJSON *pa = session_params(sid);
    cJSON_AddStringToObject(pa, "method", "guess");
    cJSON *r = cl_request(&c, 9, "session/analyze", pa);
    cJSON *e = cJSON_GetObjectItem(r, "error");
    cr_assert_not_null(e, "%s", cJSON_PrintUnformatted(r));
    cr_expect_eq(cJSON_GetObjectItem(e, "code")->valueint, -32602);
    cJSON_Delete(r);
    free(sid);
    /* Forced blocks, on a model of three union-graph blocks: the same
     * result as implicit, and the part says over how many blocks. */
    static const char *three =
        "x : real; y : real; z : real; u : real; v : real;\n"
        "g : boolean; h : boolean; k : boolean;\n"
        "e1 : equation 0 = if g then der(x) + x else 1.0;\n"
        "e2 : equation 0 = if h then y + z + x else y - z;\n"
        "if k then e3 : equation z = y * 2 + x else e4 : equation der(z) = y end;\n"
        "e5 : equation u = v + z;\n"
        "e6 : equation 0 = if h then u - v * v else der(v) + u;\n";
    char *texts[2] = {NULL, NULL};
    for (size_t k = 0; k < 2; k++) {
        char *bs = cl_open(&c, three);
        cJSON *bp = session_params(bs);
        cJSON_AddBoolToObject(bp, "reuse", true);
        cJSON_AddStringToObject(bp, "method", k == 0 ? "implicit" : "blocks");
        cJSON *br = cl_request(&c, 10 + (int)k, "session/analyze", bp);
        cJSON *bres = cJSON_GetObjectItem(br, "result");
        cr_assert_not_null(bres, "%s", cJSON_PrintUnformatted(br));
        cJSON *bru = cJSON_DetachItemFromObject(bres, "reuse");
        cJSON *part = cJSON_GetArrayItem(cJSON_GetObjectItem(bru, "parts"), 0);
        cr_expect_str_eq(cJSON_GetObjectItem(part, "method")->valuestring, "implicit");
        cr_expect_eq(cJSON_GetObjectItem(part, "blocks")->valueint, k == 0 ? 0 : 3);
        const cJSON *fb = cJSON_GetObjectItem(part, "blocksFellBack");
        cr_assert(cJSON_IsNumber(fb));
        cr_expect_eq(fb->valueint, 0, "the three small blocks are cheap: enumerated at once");
        const cJSON *tight = cJSON_GetObjectItem(part, "blocksTight");
        const cJSON *cof = cJSON_GetObjectItem(part, "maxByCofactors");
        cr_assert(cJSON_IsNumber(tight) && cJSON_IsNumber(cof));
        cr_assert(cJSON_IsNumber(cJSON_GetObjectItem(part, "blocksLearned")));
        cr_assert(cJSON_IsBool(cJSON_GetObjectItem(part, "seededTight")));
        const cJSON *rounds = cJSON_GetObjectItem(part, "seededRounds");
        cr_assert(cJSON_IsNumber(rounds));
        cr_expect_eq(rounds->valueint > 0, cJSON_IsTrue(cJSON_GetObjectItem(part, "seededTight")),
                     "rounds where seeded only");
        cr_assert(cJSON_IsNumber(cJSON_GetObjectItem(part, "seededZero")));
        cr_assert(cJSON_IsNumber(cJSON_GetObjectItem(part, "seededSampled")));
        cr_assert(cJSON_IsNumber(cJSON_GetObjectItem(part, "seededRepaired")));
        cr_assert(cJSON_IsNumber(cJSON_GetObjectItem(part, "blocksReused")));
        cr_assert(cJSON_IsNumber(cJSON_GetObjectItem(part, "encodedFromHint")));
        cr_assert(cJSON_IsNumber(cJSON_GetObjectItem(part, "sccs")));
        cr_assert(cJSON_IsNumber(cJSON_GetObjectItem(part, "sccsReused")));
        cr_expect_eq(tight->valueint, 0, "cheap blocks are enumerated, not solved by tight graphs");
        cr_assert(cJSON_IsBool(cJSON_GetObjectItem(part, "reordered")));
        texts[k] = cJSON_PrintUnformatted(bres);
        cJSON_Delete(bru);
        cJSON_Delete(br);
        free(bs);
    }
    cr_expect_str_eq(texts[1], texts[0], "blocks gives the same result as implicit");
    cJSON_free(texts[0]);
    cJSON_free(texts[1]);
    cl_close(&c);
    srv_stop(&p);
}

/* ---- since from digests against the whole-tree difference (issue 40 item 5) ---- */

static unsigned next_rand(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 16) & 0x7fff;
}

/* text without its k-th line (of n) holding " : equation", or a copy of
 * text if it has none. */
static char *without_an_equation(const char *text, unsigned *seed)
{
    int n = 0;
    for (const char *p = strstr(text, " : equation"); p != NULL; p = strstr(p + 1, " : equation"))
        n++;
    if (n == 0)
        return strdup(text);
    int k = (int)(next_rand(seed) % (unsigned)n);
    const char *p = strstr(text, " : equation");
    while (k-- > 0)
        p = strstr(p + 1, " : equation");
    const char *a = p, *b = strchr(p, '\n');
    while (a > text && a[-1] != '\n')
        a--;
    b = b ? b + 1 : p + strlen(p);
    char *o = malloc(strlen(text) + 1);
    memcpy(o, text, (size_t)(a - text));
    strcpy(o + (a - text), b);
    return o;
}

/* session/edit to text t: the version it made (a text that does not
 * parse, a line of a statement on several lines deleted, has one too). */
static long edited_version(client *c, const char *sid, const char *t)
{
    cJSON *params = session_params(sid);
    cJSON_AddStringToObject(params, "text", t);
    cJSON *r = cl_request(c, 12, "session/edit", params);
    const cJSON *er = cJSON_GetObjectItem(r, "result");
    if (er == NULL)
        er = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "error"), "data");
    cr_assert_not_null(cJSON_GetObjectItem(er, "version"), "%s", cJSON_PrintUnformatted(r));
    long v = cJSON_GetObjectItem(er, "version")->valueint;
    cJSON_Delete(r);
    return v;
}

/* A session's random edits (an equation's line deleted, or back to an
 * earlier text): every since answer is, printed, what rpc_diff_analysis
 * makes of the two versions' full results with stable ids (the path
 * before digests), so an item the digests miss or add fails it. */
static void since_as_whole_trees(const char *model, const char *from, const char *to, int steps,
                                 unsigned seed)
{
    srv_proc p;
    client c;
    srv_start(&p, "", "");
    cl_connect(&c, &p);
    char *texts[64];
    int nt = 0;
    texts[nt++] = t_model(model);
    if (from != NULL) {
        char *t = tm_replaced(texts[0], from, to);
        free(texts[0]);
        texts[0] = t;
    }
    char *sid = cl_open(&c, texts[0]);
    cJSON *prev = NULL;
    long pv = -1;
    const char *cur = texts[0], *good = texts[0]; /* good: the last that analysed */
    for (int k = 0; k <= steps && nt < 64; k++) {
        char *t = k == 0 ? strdup(cur)
                  : next_rand(&seed) % 3 == 0 ? strdup(texts[next_rand(&seed) % (unsigned)nt])
                                              : without_an_equation(cur, &seed);
        texts[nt++] = t;
        cur = t;
        long v = edited_version(&c, sid, t);
        cJSON *dp = session_params(sid);
        cJSON_AddNumberToObject(dp, "since", (double)pv);
        cJSON *dr = pv >= 0 ? cl_request(&c, 13, "session/analyze", dp) : NULL;
        if (pv < 0)
            cJSON_Delete(dp);
        cJSON *sp = session_params(sid);
        cJSON_AddBoolToObject(sp, "stableIds", true);
        cJSON *fr = cl_request(&c, 14, "session/analyze", sp);
        cJSON *full = cJSON_DetachItemFromObject(fr, "result");
        cJSON_Delete(fr);
        if (full == NULL) { /* this text does not analyse: nothing kept */
            cr_assert(dr == NULL || cJSON_GetObjectItem(dr, "result") == NULL);
            cJSON_Delete(dr);
            cur = good; /* edit on from the last text that analysed */
            continue;
        }
        if (dr != NULL) {
            cJSON *want = NULL;
            cr_assert_eq(rpc_diff_analysis(prev, full, pv, v, &want), MDAE_OK);
            char *a = cJSON_PrintUnformatted(cJSON_GetObjectItem(dr, "result"));
            char *b = cJSON_PrintUnformatted(want);
            cr_assert_str_eq(a, b, "%s step %d (version %ld since %ld)", model, k, v, pv);
            free(a);
            free(b);
            cJSON_Delete(want);
            cJSON_Delete(dr);
        }
        cJSON_Delete(prev);
        prev = full;
        pv = v;
        good = cur;
    }
    cJSON_Delete(prev);
    for (int k = 0; k < nt; k++)
        free(texts[k]);
    free(sid);
    cl_close(&c);
    cr_assert_eq(srv_stop(&p), 0);
}

Test(srv_inc, since_from_digests_equals_the_whole_tree_difference_on_random_edits, .timeout = 300)
{
    since_as_whole_trees("brake.mel", "N : integer = 3;", "N : integer = 12;", 12, 7u);
    since_as_whole_trees("water_tank.mel", NULL, NULL, 8, 11u);
    since_as_whole_trees("cup_and_ball.mel", NULL, NULL, 8, 13u);
    since_as_whole_trees("clutch.mel", NULL, NULL, 8, 17u);
    since_as_whole_trees("rldc2.mel", NULL, NULL, 8, 19u);
}

/* The full result kept as a tree (stableIds builds it, taking what it can
 * from the previous version's: issue 40 item 5), asked for again without
 * stableIds: the tree's blocks with their canonical ids. */
static cJSON *kept_tree_result(client *c, const char *sid)
{
    cJSON_Delete(analyze_with(c, sid, "stableIds", 0));
    return analyze(c, sid, false, NULL);
}

/* A block taken from the version before keeps its equations' bodies only
 * when they are still right: an edit of an integer constant far from an
 * equation changes its body (its statement and guard unchanged: 2*der(x)
 * becomes 3*der(x)), an edit after it (same places) does not. Each
 * version's full result, built from the one before, equals a cold
 * session's; the bodies seen differ where they must. */
Test(srv_inc, bodies_kept_from_the_version_before_are_those_of_a_cold_analysis)
{
    srv_proc p;
    client c;
    srv_start(&p, "", "");
    cl_connect(&c, &p);
    char *t0 = t_model("water_tank.mel");
    char *t[4];
    t[0] = tm_replaced(t0, "el2 : equation 0 = if bl then xmin - x else yl;",
                    "el2 : equation 0 = if bl then xmin - K*x else yl;");
    char *with_k = tm_replaced(t[0], "x : real;    // stored water mass",
                            "K : integer = 2;\nx : real;    // stored water mass");
    free(t[0]);
    t[0] = with_k;
    t[1] = tm_replaced(t[0], "K : integer = 2;", "K : integer = 3;"); /* same length, same places */
    t[2] = appended(t[1], "// a comment after every statement\n");
    t[3] = strdup(t[0]);
    char *sid = cl_open(&c, t[0]);
    cJSON_Delete(kept_tree_result(&c, sid));
    char *seen[4];
    for (int k = 1; k < 4; k++) {
        cJSON *params = session_params(sid);
        cJSON_AddStringToObject(params, "text", t[k]);
        cJSON_Delete(cl_request(&c, 12, "session/edit", params));
        cJSON *mine = kept_tree_result(&c, sid);
        char *cold_sid = cl_open(&c, t[k]);
        cJSON *cold = analyze(&c, cold_sid, false, NULL);
        assert_same(mine, cold, "a tree built from the one before equals a cold result");
        seen[k] = cJSON_PrintUnformatted(cJSON_GetObjectItem(mine, "blocks"));
        cJSON_Delete(mine);
        cJSON_Delete(cold);
        free(cold_sid);
    }
    cr_assert(strstr(seen[1], "3 * der(x)") != NULL && strstr(seen[3], "2 * der(x)") != NULL,
              "the bodies print K's value:\n%s\n%s", seen[1], seen[3]);
    cr_assert_str_eq(seen[1], seen[2]);
    cr_assert_str_neq(seen[1], seen[3]);
    for (int k = 1; k < 4; k++)
        cJSON_free(seen[k]);
    for (int k = 0; k < 4; k++)
        free(t[k]);
    free(t0);
    free(sid);
    cl_close(&c);
    srv_stop(&p);
}

/* One edit of session sid to text and the answer of analyze {since: pv}
 * (pv >= 0), checked against rpc_diff_analysis of the two full results
 * (stable ids); the new full result (owned) and its version in *v. */
static cJSON *edit_and_check_since(client *c, const char *sid, const char *text,
                                   const cJSON *prev, long pv, long *v)
{
    cJSON *params = session_params(sid);
    cJSON_AddStringToObject(params, "text", text);
    cJSON *r = cl_request(c, 12, "session/edit", params);
    const cJSON *ver = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "result"), "version");
    cr_assert_not_null(ver, "%s", cJSON_PrintUnformatted(r));
    *v = ver->valueint;
    cJSON_Delete(r);
    cJSON *dp = session_params(sid);
    cJSON_AddNumberToObject(dp, "since", (double)pv);
    cJSON *dr = cl_request(c, 13, "session/analyze", dp);
    cJSON *sp = session_params(sid);
    cJSON_AddBoolToObject(sp, "stableIds", true);
    cJSON *fr = cl_request(c, 14, "session/analyze", sp);
    cJSON *full = cJSON_DetachItemFromObject(fr, "result");
    cJSON_Delete(fr);
    cr_assert_not_null(full);
    cJSON *want = NULL;
    cr_assert_eq(rpc_diff_analysis(prev, full, pv, *v, &want), MDAE_OK);
    char *a = cJSON_PrintUnformatted(cJSON_GetObjectItem(dr, "result"));
    char *b = cJSON_PrintUnformatted(want);
    cr_assert_str_eq(a, b, "version %ld since %ld", *v, pv);
    free(a);
    free(b);
    cJSON_Delete(want);
    cJSON_Delete(dr);
    return full;
}

/* A session of text t[0] (sid) edited to t[1..n-1] in turn: each since
 * answer checked (edit_and_check_since) and, if against_cold, each full
 * result built from the tree before against a cold session's. */
static void edits_checked(client *c, const char *sid, char *const *t, int n, bool against_cold)
{
    cJSON *sp = session_params(sid);
    cJSON_AddBoolToObject(sp, "stableIds", true);
    cJSON *fr = cl_request(c, 14, "session/analyze", sp);
    cJSON *prev = cJSON_DetachItemFromObject(fr, "result");
    cJSON_Delete(fr);
    cr_assert_not_null(prev);
    long pv = cJSON_GetObjectItem(prev, "version") != NULL
                  ? (long)cJSON_GetObjectItem(prev, "version")->valuedouble
                  : 1;
    for (int k = 1; k < n; k++) {
        long v = 0;
        cJSON *full = edit_and_check_since(c, sid, t[k], prev, pv, &v);
        if (against_cold) {
            cJSON *mine = kept_tree_result(c, sid);
            char *cold_sid = cl_open(c, t[k]);
            cJSON *cold = analyze(c, cold_sid, false, NULL);
            assert_same(mine, cold, "a tree built from the one before equals a cold result");
            cJSON_Delete(mine);
            cJSON_Delete(cold);
            free(cold_sid);
        }
        cJSON_Delete(prev);
        prev = full;
        pv = v;
    }
    cJSON_Delete(prev);
}

/* A block taken from the version before whose bodies are given again (K's
 * value printed in them changes) is hashed again by the digest: the since
 * answer lists it changed; one whose bodies are kept (a comment appended)
 * takes its hash from the digest before and is no change. */
Test(srv_inc, since_lists_a_block_taken_whose_bodies_were_given_again)
{
    srv_proc p;
    client c;
    srv_start(&p, "", "");
    cl_connect(&c, &p);
    char *t0 = t_model("water_tank.mel");
    char *t[4];
    t[0] = tm_replaced(t0, "el2 : equation 0 = if bl then xmin - x else yl;",
                    "el2 : equation 0 = if bl then xmin - K*x else yl;");
    char *with_k = tm_replaced(t[0], "x : real;    // stored water mass",
                            "K : integer = 2;\nx : real;    // stored water mass");
    free(t[0]);
    t[0] = with_k;
    t[1] = tm_replaced(t[0], "K : integer = 2;", "K : integer = 3;");
    t[2] = appended(t[1], "// a comment after every statement\n");
    t[3] = strdup(t[0]);
    char *sid = cl_open(&c, t[0]);
    edits_checked(&c, sid, t, 4, false);
    for (int k = 0; k < 4; k++)
        free(t[k]);
    free(t0);
    free(sid);
    cl_close(&c);
    srv_stop(&p);
}

/* An edit of a loop's statement whose other instances lower to the sides
 * they had (the brake's piston equation gains a derivative in one railcar,
 * bench_server's row 5): the blocks taken keep those instances' bodies
 * (wk_methods.c, sides_same: equal trees, the declarations the same), and
 * every since answer is the whole-tree difference and every full result a
 * cold session's, also when the railcar edited moves back and forth and
 * when an integer constant changes (nothing shared: bodies given again). */
Test(srv_inc, an_edited_loop_keeps_its_unchanged_instances_bodies_and_equals_cold)
{
    srv_proc p;
    client c;
    srv_start(&p, "", "");
    cl_connect(&c, &p);
    char *t0 = t_model("brake.mel");
    char *base = tm_replaced(t0, "N : integer = 3;", "N : integer = 6;");
    const char *from = "px[i] : equation b[i] = K*x[i];";
    char *t[5];
    t[0] = strdup(base);
    t[1] = tm_replaced(base, from,
                    "px[i] : equation b[i] = K*x[i] + (if i == 3 then der(x[i]) else 0);");
    t[2] = tm_replaced(base, from,
                    "px[i] : equation b[i] = K*x[i] + (if i == 4 then der(x[i]) else 0);");
    t[3] = tm_replaced(t[2], "N : integer = 6;", "N : integer = 7;");
    t[4] = strdup(t[1]);
    char *sid = cl_open(&c, t[0]);
    edits_checked(&c, sid, t, 5, true);
    for (int k = 0; k < 5; k++)
        free(t[k]);
    free(base);
    free(t0);
    free(sid);
    cl_close(&c);
    srv_stop(&p);
}

/* Since from any kept version, with other requests between (issue 40 item
 * 5: the digests share their names and indexes with the one before, and
 * the oldest kept is evicted while later ones share them): a session's
 * random edits, each followed by a since from a version no longer kept
 * (an error), a since from one of the three versions before, and the full
 * result, with a plain session/analyze before them (written as produced:
 * the tree before dropped, nothing to take) or after the since (sent from
 * its tree): every since answer is rpc_diff_analysis's of the full
 * results. Twenty-four edits: past the sixteen pools a digest shares. */
Test(srv_inc, since_from_older_kept_versions_with_requests_between_is_the_whole_tree_difference,
     .timeout = 300)
{
    srv_proc p;
    client c;
    srv_start(&p, "", "");
    cl_connect(&c, &p);
    char *texts[64];
    int nt = 0;
    char *t0 = t_model("brake.mel");
    texts[nt++] = tm_replaced(t0, "N : integer = 3;", "N : integer = 12;");
    free(t0);
    char *sid = cl_open(&c, texts[0]);
    cJSON *full[4] = {NULL}; /* the last good versions' full results, newest last */
    long fv[4] = {-1, -1, -1, -1}, evicted = -1;
    unsigned seed = 23u;
    const char *cur = texts[0], *good = texts[0];
    for (int k = 0; k <= 24 && nt < 64; k++) {
        char *t = k == 0 ? strdup(cur)
                  : next_rand(&seed) % 3 == 0 ? strdup(texts[next_rand(&seed) % (unsigned)nt])
                                              : without_an_equation(cur, &seed);
        texts[nt++] = t;
        cur = t;
        long v = edited_version(&c, sid, t);
        if (k % 2 == 0) /* written as produced: the tree before is dropped, nothing taken */
            cJSON_Delete(cl_request(&c, 13, "session/analyze", session_params(sid)));
        if (evicted >= 0) {
            cJSON *ep = session_params(sid);
            cJSON_AddNumberToObject(ep, "since", (double)evicted);
            cJSON *e = cl_request(&c, 14, "session/analyze", ep);
            cr_assert_null(cJSON_GetObjectItem(e, "result"), "since %ld: %s", evicted,
                           cJSON_PrintUnformatted(e));
            cJSON_Delete(e);
        }
        int back = 1 + (int)(next_rand(&seed) % 3);
        while (back > 1 && full[4 - back] == NULL)
            back--;
        cJSON *dr = NULL;
        if (full[4 - back] != NULL) {
            cJSON *dp = session_params(sid);
            cJSON_AddNumberToObject(dp, "since", (double)fv[4 - back]);
            dr = cl_request(&c, 15, "session/analyze", dp);
        }
        if (k % 2 == 1) /* sent from the tree the since request built */
            cJSON_Delete(cl_request(&c, 13, "session/analyze", session_params(sid)));
        cJSON *sp = session_params(sid);
        cJSON_AddBoolToObject(sp, "stableIds", true);
        cJSON *fr = cl_request(&c, 16, "session/analyze", sp);
        cJSON *now = cJSON_DetachItemFromObject(fr, "result");
        cJSON_Delete(fr);
        if (now == NULL) { /* does not analyse: nothing kept */
            cJSON_Delete(dr);
            cur = good;
            continue;
        }
        if (dr != NULL) {
            cJSON *want = NULL;
            cr_assert_eq(rpc_diff_analysis(full[4 - back], now, fv[4 - back], v, &want), MDAE_OK);
            char *a = cJSON_PrintUnformatted(cJSON_GetObjectItem(dr, "result"));
            char *b = cJSON_PrintUnformatted(want);
            cr_assert_str_eq(a, b, "step %d (version %ld since %ld)", k, v, fv[4 - back]);
            free(a);
            free(b);
            cJSON_Delete(want);
            cJSON_Delete(dr);
        }
        if (fv[0] >= 0) /* four versions kept: the oldest goes */
            evicted = fv[0];
        cJSON_Delete(full[0]);
        memmove(full, full + 1, 3 * sizeof *full);
        memmove(fv, fv + 1, 3 * sizeof *fv);
        full[3] = now;
        fv[3] = v;
        good = cur;
    }
    for (int k = 0; k < 4; k++)
        cJSON_Delete(full[k]);
    for (int k = 0; k < nt; k++)
        free(texts[k]);
    free(sid);
    cl_close(&c);
    cr_assert_eq(srv_stop(&p), 0);
}
