/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * clients/cli_render.c -- the text forms of `mdae analyze` and `mdae mode`,
 * printed from their JSON (protocol/rpc_json.h), and writing DOT text.
 *
 * Why from the JSON: a server only sends JSON, and `mdae --server ...` must
 * print what the embedded engine prints. Rendering one representation
 * makes that true by construction instead of by two printers kept in step.
 * The JSON may come from another program (a server of another version), so
 * every member is looked up defensively: a missing or mistyped member
 * prints as absent ("?", nothing), never crashes.
 *
 * Orders are written like the DOT output (cdg_graph_dot) and the papers:
 * x, x', x'', x''' and from 4 on x^(4). An equation differentiated in a
 * block (order > 0) has its differentiated body on a line of its own under
 * the block, when the JSON carries it ("body", issue 38).
 */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Widest name/formula column we pad to; longer ones just push the line. */
#define CLI_MAX_COLUMN 32
/* Mode variables named in the verdict line before eliding. */
#define CLI_MAX_MODE_NAMES 12

/* ---- Defensive accessors ------------------------------------------------- */

static const cJSON *get(const cJSON *o, const char *key)
{
    return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
}

static const char *str_or(const cJSON *o, const char *key, const char *dflt)
{
    const char *s = cJSON_GetStringValue(get(o, key));
    return s ? s : dflt;
}

/* An array member, or NULL (iterating NULL with cJSON_ArrayForEach is a
 * no-op, and the size of NULL is 0). */
static const cJSON *arr(const cJSON *o, const char *key)
{
    const cJSON *a = get(o, key);
    return cJSON_IsArray(a) ? a : NULL;
}

static int size(const cJSON *a) { return a ? cJSON_GetArraySize(a) : 0; }

static bool num(const cJSON *o, const char *key, double *out)
{
    const cJSON *n = get(o, key);
    if (!cJSON_IsNumber(n))
        return false;
    *out = n->valuedouble;
    return true;
}

static bool flag(const cJSON *o, const char *key) { return cJSON_IsTrue(get(o, key)); }

/* "s" unless the exact count's digits are "1": "1 pair", "2 pairs". */
static const char *plural_s(const char *count) { return strcmp(count, "1") == 0 ? "" : "s"; }

/* ---- Pieces ---------------------------------------------------------------- */

/* "x''" for {"name":"x","order":2}. */
static void print_item(const cJSON *it)
{
    double order = 0;
    fputs(str_or(it, "name", "?"), stdout);
    if (!num(it, "order", &order) || order <= 0)
        return;
    if (order <= 3) {
        for (int k = 0; k < (int)order; k++)
            putchar('\'');
    } else {
        printf("^(%.0f)", order);
    }
}

/* "K1, K2'" */
static void print_items(const cJSON *items)
{
    const cJSON *it;
    bool first = true;
    cJSON_ArrayForEach(it, items) {
        if (!first)
            fputs(", ", stdout);
        print_item(it);
        first = false;
    }
    if (first)
        fputs("(none)", stdout);
}

/* One block: "K3', Z1 → u1', i1   reads v1', ..." */
static void print_block(const cJSON *b)
{
    print_items(arr(b, "equations"));
    fputs(" \u2192 ", stdout);
    print_items(arr(b, "unknowns"));
    const cJSON *reads = arr(b, "reads");
    if (size(reads) > 0) {
        fputs("   reads ", stdout);
        print_items(reads);
    }
}

/* Under a block line, one line per differentiated equation that has its
 * body (rpc_json_add_bodies): "        eh2' :  0 = der(x)". */
static void print_bodies(const cJSON *b)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, arr(b, "equations")) {
        const char *body = str_or(e, "body", NULL);
        if (body == NULL)
            continue;
        fputs("        ", stdout);
        print_item(e);
        printf(" :  %s\n", body);
    }
}

static void print_count(double v)
{
    /* Exact below 2^53, where the double holds every integer. */
    if (v < 9007199254740992.0)
        printf("%.0f", v);
    else
        printf("%.6g", v);
}

static int width(const cJSON *items, const char *key)
{
    size_t w = 1;
    const cJSON *it;
    cJSON_ArrayForEach(it, items) {
        size_t len = strlen(str_or(it, key, "?"));
        if (len > w)
            w = len;
    }
    return w > CLI_MAX_COLUMN ? CLI_MAX_COLUMN : (int)w;
}

/* ---- analyze ------------------------------------------------------------------ */

/* "K3  active g1  c = 1 when g1 & g2; 0 otherwise" */
static void print_offsets(const char *title, const char *sym, const cJSON *items)
{
    printf("\n%s:\n", title);
    if (size(items) == 0) {
        printf("  (none)\n");
        return;
    }
    int wn = width(items, "name"), wa = width(items, "guard");
    const cJSON *it;
    cJSON_ArrayForEach(it, items) {
        printf("  %-*s  active %-*s  %s = ", wn, str_or(it, "name", "?"), wa,
               str_or(it, "guard", "?"), sym);
        const cJSON *offs = arr(it, "offset");
        int n = size(offs);
        if (n == 0)
            printf("-  (active in no valid nonsingular mode)");
        int k = 0;
        const cJSON *oc;
        cJSON_ArrayForEach(oc, offs) {
            double v = 0;
            if (k > 0)
                printf("; ");
            if (num(oc, "value", &v))
                printf("%.0f", v);
            else
                printf("?");
            if (n == 1)
                break; /* one value wherever it is active */
            if (k + 1 == n)
                printf(" otherwise");
            else
                printf(" when %s", str_or(oc, "guard", "?"));
            k++;
        }
        printf("\n");
    }
}

static void print_singular(const cJSON *a)
{
    const char *where = str_or(get(a, "singular"), "guard", "?");
    if (strcmp(where, "true") == 0)
        printf("\nstructurally singular in every mode\n");
    else
        printf("\nstructurally singular when: %s\n", where);
    const cJSON *diags = arr(a, "diagnostics");
    size_t wn = 1;
    const cJSON *dg;
    cJSON_ArrayForEach(dg, diags) {
        bool over = strcmp(str_or(dg, "kind", ""), "overdetermined") == 0;
        size_t len = strlen(str_or(dg, over ? "equation" : "variable", "?"));
        if (len > wn)
            wn = len;
    }
    if (wn > CLI_MAX_COLUMN)
        wn = CLI_MAX_COLUMN;
    cJSON_ArrayForEach(dg, diags) {
        bool over = strcmp(str_or(dg, "kind", ""), "overdetermined") == 0;
        const char *g = str_or(dg, "guard", "?");
        bool always = strcmp(g, "true") == 0;
        printf("  %-15s %-8s %-*s  %s%s\n", over ? "overdetermined" : "underdetermined",
               over ? "equation" : "variable", (int)wn,
               str_or(dg, over ? "equation" : "variable", "?"), always ? "in every mode" : "when ",
               always ? "" : g);
    }
}

/* Edges {from, to, guard} as "  b1 → b2   when g" lines (prefix 'b' for
 * blocks, 'f' for families), "(none)" when there is none. */
static void print_edges(const cJSON *edges, char prefix)
{
    if (size(edges) == 0)
        printf("  (none)\n");
    const cJSON *e;
    cJSON_ArrayForEach(e, edges) {
        double from = -1, to = -1;
        num(e, "from", &from);
        num(e, "to", &to);
        printf("  %c%.0f \u2192 %c%.0f", prefix, from, prefix, to);
        const char *guard = str_or(e, "guard", "?");
        if (strcmp(guard, "true") != 0)
            printf("   when %s", guard);
        printf("\n");
    }
}
/* "  b4  el2' → x'   reads z, yl   when bl" */
static void print_cdg(const cJSON *a)
{
    const cJSON *blocks = arr(a, "blocks"), *edges = arr(a, "edges");
    printf("\nblocks (%d), each with the valid nonsingular modes where it is a block:\n",
           size(blocks));
    if (size(blocks) == 0)
        printf("  (none)\n");
    const cJSON *b;
    cJSON_ArrayForEach(b, blocks) {
        double id = -1;
        num(b, "id", &id);
        printf("  b%-3.0f ", id);
        print_block(b);
        const char *guard = str_or(b, "guard", "?");
        if (strcmp(guard, "true") != 0)
            printf("   when %s", guard);
        printf("\n");
        print_bodies(b);
    }
    printf("\nedges (%d): block A \u2192 block B when B reads an unknown A solves\n",
           size(edges));
    print_edges(edges, 'b');
}

/* A family's items of one kind, grouped by their guard: "KS, KV[1]'; C[1]
 * when g[1] & g[2]; ..." (the family's own guard is not repeated). */
static void print_family_items(const char *title, const cJSON *items, const char *fguard)
{
    printf("      %-10s", title);
    if (size(items) == 0)
        fputs("(none)", stdout);
    const cJSON *it, *prev;
    bool first_group = true;
    cJSON_ArrayForEach(it, items) {
        const char *g = str_or(it, "guard", "?");
        bool seen = false; /* this guard's group was printed at its first item */
        for (prev = items->child; prev != it && !seen; prev = prev->next)
            seen = strcmp(str_or(prev, "guard", "?"), g) == 0;
        if (seen)
            continue;
        fputs(first_group ? "" : "; ", stdout);
        first_group = false;
        bool first = true;
        for (const cJSON *q = it; q != NULL; q = q->next) {
            if (strcmp(str_or(q, "guard", "?"), g) != 0)
                continue;
            fputs(first ? "" : ", ", stdout);
            print_item(q);
            first = false;
        }
        if (strcmp(g, fguard) != 0)
            printf(" when %s", g);
    }
    printf("\n");
}

/* --families (rpc_json_families): each family once, then the edges. */
static void print_families(const cJSON *a)
{
    const cJSON *fams = arr(a, "families"), *edges = arr(a, "familyEdges");
    const char *blocks = str_or(a, "blockCountExact", "?");
    printf("\nblock families (%d, standing for %s blocks): in each mode where a family\n"
           "applies, its block is the items whose modes hold there:\n",
           size(fams), blocks);
    if (size(fams) == 0)
        printf("  (none)\n");
    const cJSON *f;
    cJSON_ArrayForEach(f, fams) {
        double id = -1;
        num(f, "id", &id);
        const char *variants = str_or(f, "variantsExact", "?");
        const char *guard = str_or(f, "guard", "?");
        printf("  f%-3.0f %s variant%s", id, variants, strcmp(variants, "1") == 0 ? "" : "s");
        if (strcmp(guard, "true") != 0)
            printf("   when %s", guard);
        printf("\n");
        print_family_items("equations", arr(f, "equations"), guard);
        print_family_items("unknowns", arr(f, "unknowns"), guard);
        if (size(arr(f, "reads")) > 0)
            print_family_items("reads", arr(f, "reads"), guard);
    }
    printf("\nfamily edges (%d): family A \u2192 family B when the block of B reads an\n"
           "unknown the block of A solves\n",
           size(edges));
    print_edges(edges, 'f');
}

void cli_render_analysis(const char *file, const cJSON *a)
{
    printf("%s: %s\n", file, str_or(a, "status", "?"));
    const cJSON *names = arr(a, "modeVariables");
    int n_modes = size(names);
    double valid = 0;
    printf("valid modes: ");
    const char *exact = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(a, "validModesExact"));
    if (exact != NULL) /* issue 41 item 2: exact past 2^53 too */
        printf("%s", exact);
    else if (num(a, "validModes", &valid))
        print_count(valid);
    else
        printf("?");
    printf(" of ");
    if (n_modes < 64)
        printf("%llu", 1ULL << n_modes);
    else
        printf("2^%d", n_modes);
    /* A long list (open[1..100]) would drown the verdict: show the first
     * few; `mdae structure` lists them all. */
    printf(" (mode variables:");
    int shown = n_modes > CLI_MAX_MODE_NAMES ? CLI_MAX_MODE_NAMES - 2 : n_modes;
    for (int k = 0; k < shown; k++) {
        const char *nm = cJSON_GetStringValue(cJSON_GetArrayItem(names, k));
        printf(" %s", nm ? nm : "?");
    }
    if (shown < n_modes) {
        const char *nm = cJSON_GetStringValue(cJSON_GetArrayItem(names, n_modes - 1));
        printf(" ... %s, %d in all", nm ? nm : "?", n_modes);
    }
    printf("%s)\n", n_modes ? "" : " none");

    if (strcmp(str_or(a, "status", ""), "singular") == 0)
        print_singular(a);
    print_offsets("equation offsets (c), in the valid nonsingular modes", "c",
                  arr(a, "equations"));
    print_offsets("variable offsets (d), in the valid nonsingular modes", "d",
                  arr(a, "variables"));
    if (get(a, "families") != NULL)
        print_families(a);
    else
        print_cdg(a);
}

/* ---- mode ----------------------------------------------------------------------- */

/* "K1 0, K2 0, K3 1" for the active items; the inactive ones after. */
static void print_mode_offsets(const char *title, const cJSON *items, bool offsets)
{
    printf("%s:", title);
    const cJSON *it;
    int n = 0;
    cJSON_ArrayForEach(it, items) {
        if (!flag(it, "active"))
            continue;
        double v = 0;
        printf("%s %s", n++ ? "," : "", str_or(it, "name", "?"));
        if (offsets && num(it, "offset", &v))
            printf(" %.0f", v);
    }
    if (n == 0)
        printf(" (none active)");
    printf("\n");
    int k = 0;
    cJSON_ArrayForEach(it, items) {
        if (flag(it, "active"))
            continue;
        printf("%s %s", k++ ? "," : "  inactive:", str_or(it, "name", "?"));
    }
    if (k > 0)
        printf("\n");
}

static void print_names(const char *title, const cJSON *names)
{
    printf("%s:", title);
    const cJSON *n;
    int k = 0;
    cJSON_ArrayForEach(n, names) {
        const char *s = cJSON_GetStringValue(n);
        printf("%s %s", k++ ? "," : "", s ? s : "?");
    }
    printf("%s\n", k ? "" : " (none)");
}

void cli_render_mode(const char *file, const cJSON *mj)
{
    printf("%s: mode", file);
    const cJSON *mode = get(mj, "mode");
    const cJSON *mv;
    int k = 0;
    if (cJSON_IsObject(mode)) {
        cJSON_ArrayForEach(mv, mode) {
            printf("%s%s=%d", k++ ? "," : " ", mv->string ? mv->string : "?",
                   cJSON_IsTrue(mv) ? 1 : 0);
        }
    }
    if (k == 0)
        printf(" (no mode variables)");
    bool valid = flag(mj, "valid"), singular = flag(mj, "singular");
    double wl = 0;
    if (!valid && num(get(get(get(mj, "transient"), "range"), "start"), "line", &wl)) {
        printf(": transient (the when-clause at line %d holds): it lasts one instant, so it "
               "has no long-mode analysis; mdae modechange analyses the changes into it\n",
               (int)wl);
        return;
    }
    if (!valid) {
        printf(": invalid (an invariant excludes it): the model has no behaviour here\n");
        return;
    }
    printf(": %s\n", singular ? "structurally singular" : "valid, nonsingular");
    if (singular) {
        print_names("overdetermined equations", arr(mj, "overdetermined"));
        print_names("underdetermined variables", arr(mj, "underdetermined"));
        print_mode_offsets("active equations", arr(mj, "equations"), false);
        print_mode_offsets("active variables", arr(mj, "variables"), false);
        return;
    }
    const cJSON *blocks = arr(mj, "blocks"), *edges = arr(mj, "edges");
    if (blocks == NULL) {
        printf("blocks: not in this result (the server sent none)\n");
    } else {
        printf("\nblock triangular form, in solving order (%d block%s; equations \u2192 "
               "unknowns):\n",
               size(blocks), size(blocks) == 1 ? "" : "s");
        int pos = 0;
        const cJSON *b;
        cJSON_ArrayForEach(b, blocks) {
            double id = -1;
            num(b, "id", &id);
            printf("  %2d. ", pos++);
            print_block(b);
            printf("   [b%.0f]\n", id);
            print_bodies(b);
        }
        printf("edges (by position above):");
        const cJSON *e;
        int ne = 0;
        cJSON_ArrayForEach(e, edges) {
            const cJSON *f = cJSON_GetArrayItem(e, 0), *t = cJSON_GetArrayItem(e, 1);
            printf("%s %.0f \u2192 %.0f", ne++ ? "," : "", cJSON_IsNumber(f) ? f->valuedouble : -1,
                   cJSON_IsNumber(t) ? t->valuedouble : -1);
        }
        printf("%s\n", ne ? "" : " (none: the blocks are independent)");
    }
    printf("\n");
    print_mode_offsets("equation offsets (c)", arr(mj, "equations"), true);
    print_mode_offsets("variable offsets (d)", arr(mj, "variables"), true);
    double dof = 0;
    if (num(get(mj, "initialization"), "degreesOfFreedom", &dof))
        printf("\ncold initialisation: %d degree%s of freedom (the values of the unknowns and "
               "their derivatives up to d, against the equations differentiated up to c)\n",
               (int)dof, dof == 1 ? "" : "s");
}

/* ---- DOT ------------------------------------------------------------------------ */

int cli_write_dot(const cli_opts *o, const char *dot)
{
    if (o->dot_file == NULL) {
        fputs(dot, stdout);
        return CLI_EXIT_OK;
    }
    FILE *f = fopen(o->dot_file, "w");
    if (f == NULL) {
        fprintf(stderr, "mdae: cannot write '%s': %s\n", o->dot_file, strerror(errno));
        return CLI_EXIT_IO;
    }
    fputs(dot, f);
    if (ferror(f) | (fclose(f) != 0)) {
        fprintf(stderr, "mdae: error writing '%s': %s\n", o->dot_file, strerror(errno));
        return CLI_EXIT_IO;
    }
    return CLI_EXIT_OK;
}

/* ---- Mode changes ------------------------------------------------------------------ */

static void print_mode_obj(const cJSON *mode)
{
    const cJSON *mv;
    int k = 0;
    if (cJSON_IsObject(mode))
        cJSON_ArrayForEach(mv, mode) {
            printf("%s%s=%d", k++ ? "," : "", mv->string ? mv->string : "?",
                   cJSON_IsTrue(mv) ? 1 : 0);
        }
}

/* x, x., x.2 for shifts 0, 1, 2 (the papers' x, x\u2022, x\u2022\u00b2). */
/* A name as the mode-change output shows it: a Modelica equation named by
 * its text in brackets; a name that carries the notation's own marks (' a
 * derivative, \u2022 a shift) quoted, 'f1\'' (issue 41 item 8). */
static void print_mc_name(const char *n)
{
    if (n == NULL) {
        fputs("?", stdout);
    } else if (strchr(n, ' ') != NULL) {
        printf("[%s]", n);
    } else if (strchr(n, '\'') != NULL || strstr(n, "\u2022") != NULL) {
        putchar('\'');
        for (const char *c = n; *c; c++) {
            if (*c == '\'' || *c == '\\')
                putchar('\\');
            putchar(*c);
        }
        putchar('\'');
    } else {
        fputs(n, stdout);
    }
}

/* name and shift: "k1", "k1\u2022", "k1\u20222". */
static void print_shifted_one(const cJSON *it)
{
    double s = 0;
    num(it, "shift", &s);
    print_mc_name(cJSON_GetStringValue(get(it, "name")));
    if (s == 1)
        printf("\u2022");
    else if (s > 1)
        printf("\u2022%d", (int)s);
}

/* An impulse value's order suffix: " = 0" when it has no order (an
 * order-0 value), " (order k)" when exact, " (order \u2264 k)" a bound. */
static void print_order_suffix(const cJSON *it)
{
    double o = 0, lo = 0;
    bool has_o = num(it, "order", &o), has_lo = num(it, "orderMin", &lo);
    if (!has_o)
        printf(" = 0");
    else
        printf(" (order %s%d)", has_lo && lo == o ? "" : "\u2264 ", (int)o);
}

static void print_shifted(const cJSON *list, const char *none)
{
    const cJSON *it;
    int k = 0;
    cJSON_ArrayForEach(it, list) {
        if (k++)
            fputs(", ", stdout);
        print_shifted_one(it);
    }
    if (k == 0)
        printf("%s", none);
}

/* One line per equation of list that has its body: "    e3\u2022:  w1\u2022 -
 * w2\u2022 = 0" (issue 41 item 8); whether any had one. */
static bool print_bodies_shifted(const cJSON *list, const char *indent)
{
    const cJSON *it;
    bool any = false;
    cJSON_ArrayForEach(it, list) {
        const char *body = cJSON_GetStringValue(get(it, "body"));
        if (body == NULL)
            continue;
        fputs(indent, stdout);
        print_shifted_one(it);
        printf(":  %s\n", body);
        any = true;
    }
    return any;
}

static bool same_item(const cJSON *a, const cJSON *b)
{
    const char *na = cJSON_GetStringValue(get(a, "name"));
    const char *nb = cJSON_GetStringValue(get(b, "name"));
    double sa = -1, sb = -2;
    num(a, "shift", &sa);
    num(b, "shift", &sb);
    return na != NULL && nb != NULL && strcmp(na, nb) == 0 && sa == sb;
}

/* "(order ≤ 1, instant 0)": an exact order without ≤; null is -infinity. */
static void print_order(const cJSON *it)
{
    double o = 0, lo = 0, r = 0;
    bool has_o = num(it, "order", &o);
    bool has_lo = num(it, "orderMin", &lo);
    num(it, "instant", &r);
    if (!has_o)
        printf(" (identically 0, instant %d)", (int)r);
    else
        printf(" (order %s%d, instant %d)", has_lo && lo == o ? "" : "\u2264 ", (int)o, (int)r);
}

/* The impulsive values, those of equal order joined by "=" (RR-9459 (40):
 * lambda = s), then the finite ones. */
static void render_orders(const cJSON *cj)
{
    const cJSON *imp = arr(cj, "impulsive");
    int n = size(imp);
    if (n > 0) {
        bool *done = calloc((size_t)n, sizeof *done);
        printf("\nimpulsive:");
        int k = 0, shown = 0;
        const cJSON *it;
        cJSON_ArrayForEach(it, imp) {
            if (done != NULL && done[k]) {
                k++;
                continue;
            }
            printf("%s ", shown++ ? "," : "");
            print_shifted_one(it);
            const cJSON *eq;
            cJSON_ArrayForEach(eq, arr(it, "equal")) {
                printf(" = ");
                print_shifted_one(eq);
                int j = 0;
                const cJSON *other;
                cJSON_ArrayForEach(other, imp) {
                    double r1 = -1, r2 = -2;
                    num(it, "instant", &r1);
                    num(other, "instant", &r2);
                    if (done != NULL && j > k && r1 == r2 && same_item(other, eq))
                        done[j] = true;
                    j++;
                }
            }
            print_order(it);
            k++;
        }
        printf("\n");
        free(done);
    }
    const cJSON *fin = arr(cj, "finite");
    if (size(fin) > 0) {
        printf("finite (not impulsive):");
        const cJSON *it;
        double last = -1;
        int k = 0;
        cJSON_ArrayForEach(it, fin) {
            double r = 0;
            num(it, "instant", &r);
            if (k++ == 0 || r != last)
                printf("%s instant %d:", k > 1 ? ";" : "", (int)r);
            else
                printf(",");
            printf(" ");
            print_shifted_one(it);
            print_order_suffix(it);
            last = r;
        }
        printf("\n");
    }
}

/* The residuals of the erased equations (RR-9459 (49)-(51)). */
static void render_residuals(const cJSON *cj)
{
    const cJSON *it;
    int k = 0;
    cJSON_ArrayForEach(it, arr(cj, "residuals")) {
        double r = 0, o = 0, lo = 0;
        num(it, "instant", &r);
        bool has_o = num(it, "order", &o), has_lo = num(it, "orderMin", &lo);
        printf("%sresidual of ", k++ ? "" : "\n");
        print_shifted_one(it);
        if (has_o && has_lo && o == 0 && lo == 0)
            printf(" at instant %d: finite and nonzero (order 0, the prior RR-9459 (51)): "
                   "the old state violates it\n", (int)r);
        else if (has_o && o < 0)
            printf(" at instant %d: infinitesimal (order \u2264 %d): the old state satisfies "
                   "it at the change (finite states force it)\n", (int)r, (int)o);
        else if (!has_o)
            printf(" at instant %d: identically 0\n", (int)r);
        else
            printf(" at instant %d: finite (order \u2264 %d)\n", (int)r, (int)o);
    }
}

/* x, x', x'', x^(k), then ⁻ or ⁺. */
/* x-, x+, or x<e> for the value after event e of a cascade (event > 0). */
static void print_standard_name(const char *n, int level, bool plus, int event)
{
    printf("%s", n ? n : "?");
    if (level > 0 && level <= 3)
        for (int k = 0; k < level; k++)
            printf("'");
    else if (level > 3)
        printf("^(%d)", level);
    if (event > 0)
        printf("\u27e8%d\u27e9", event);
    else
        printf("%s", plus ? "\u207a" : "\u207b");
}

/* The event of a standard value ("side": "event"), else 0. */
static int standard_event(const cJSON *e)
{
    double ev = 0;
    const char *side = cJSON_GetStringValue(get(e, "side"));
    if (side == NULL || strcmp(side, "event") != 0 || !num(e, "event", &ev))
        return 0;
    return (int)ev;
}

/* The restart system of instant r as dt -> 0 (standardEquations). */
static void render_std_equations(const cJSON *cj, double r)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, arr(cj, "standardEquations")) {
        double ri = -1, dv = 0;
        num(it, "instant", &ri);
        num(it, "derivative", &dv);
        if (ri != r)
            continue;
        printf("    ");
        print_shifted_one(it);
        if (dv > 0)
            printf(" (as der%s(", dv > 1 ? "^n" : "");
        const char *eq = cJSON_GetStringValue(get(it, "equation"));
        if (dv > 0) {
            printf("%s)", cJSON_GetStringValue(get(it, "name")));
            if ((int)dv > 1)
                printf(", n = %d", (int)dv);
            printf(")");
        }
        if (eq != NULL)
            printf(":  %s\n", eq);
        else
            printf(": not read (%s)\n", cJSON_GetStringValue(get(it, "why")) ?: "?");
    }
}

/* The standard meaning of each instant's values (RR-9459 (18), (30), (34))
 * and the restart values it determines. */
static void render_standard(const cJSON *cj)
{
    const cJSON *std = arr(cj, "standard");
    if (size(std) == 0)
        return;
    printf("\nstandard values (dt \u2192 0):\n");
    double r_last = -1;
    const cJSON *it;
    cJSON_ArrayForEach(it, std) {
        double r = 0;
        num(it, "instant", &r);
        if (r == r_last)
            continue;
        r_last = r;
        printf("  instant %d: ", (int)r);
        int k = 0;
        const cJSON *e;
        cJSON_ArrayForEach(e, std) {
            double re = 0, lv = 0;
            num(e, "instant", &re);
            num(e, "level", &lv);
            if (re != r)
                continue;
            const char *side = cJSON_GetStringValue(get(e, "side"));
            printf("%s", k++ ? ", " : "");
            if (lv == 0)
                print_shifted_one(e);
            else { /* the Euler difference of that level at that shift */
                const char *n = cJSON_GetStringValue(get(e, "name"));
                double sh = 0;
                num(e, "shift", &sh);
                printf("%s", n ? n : "?");
                for (int p = 0; p < (int)lv && p < 3; p++)
                    printf("'");
                if (sh == 1)
                    printf("\u2022");
                else if (sh > 1)
                    printf("\u2022%d", (int)sh);
            }
            printf(" \u2192 ");
            print_standard_name(cJSON_GetStringValue(get(e, "name")), (int)lv,
                                side != NULL && side[0] == '+', standard_event(e));
        }
        printf("; determines");
        k = 0;
        const cJSON *a;
        cJSON_ArrayForEach(a, std) { /* per variable: its newest value of its top level,
                                          unless it is the one before the change */
            double ra = 0, la = 0, sha = 0;
            num(a, "instant", &ra);
            num(a, "level", &la);
            num(a, "shift", &sha);
            const char *na = cJSON_GetStringValue(get(a, "name"));
            const char *sa = cJSON_GetStringValue(get(a, "side"));
            if (ra != r || na == NULL || sa == NULL || sa[0] == '-')
                continue;
            bool newest = true;
            const cJSON *b;
            cJSON_ArrayForEach(b, std) {
                double rb = 0, lb = 0, shb = 0;
                num(b, "instant", &rb);
                num(b, "level", &lb);
                num(b, "shift", &shb);
                const char *nb = cJSON_GetStringValue(get(b, "name"));
                if (b != a && rb == r && nb != NULL && strcmp(nb, na) == 0 &&
                    (lb > la || (lb == la && shb > sha)))
                    newest = false;
            }
            if (!newest)
                continue;
            printf("%s ", k++ ? "," : "");
            print_standard_name(na, (int)la, true, standard_event(a));
        }
        printf("%s\n", k ? "" : " nothing new");
        render_std_equations(cj, r);
    }
}

/* Impulse orders, residuals and standard values of a change (mc.h). */
/* A restart relation whose values were eliminated (issue 41 item 8): the
 * relations as equations, each as dt -> 0, and the pivots assumed non-zero;
 * false (nothing printed) when the JSON has no elimination. */
static bool render_elimination(const cJSON *rs, int shown)
{
    const cJSON *list = arr(rs, "eliminated");
    if (size(list) == 0 || cJSON_GetStringValue(get(rs, "why")) != NULL)
        return false;
    double r = 0;
    num(rs, "instant", &r);
    printf("%srestart relation%s at instant %d: ", shown ? "" : "\n", size(list) == 1 ? "" : "s",
           (int)r);
    print_shifted(arr(rs, "eliminate"), "");
    printf(" eliminated from ");
    print_shifted(arr(rs, "from"), "");
    printf(" (linear in them)\n");
    const cJSON *e;
    cJSON_ArrayForEach(e, list) {
        printf("    %s\n", cJSON_GetStringValue(get(e, "equation")));
        const char *st = cJSON_GetStringValue(get(e, "standard"));
        const char *why = cJSON_GetStringValue(get(e, "standardWhy"));
        if (st != NULL)
            printf("      as dt \u2192 0:  %s\n", st);
        else if (why != NULL)
            printf("      as dt \u2192 0: not read (%s)\n", why);
    }
    const char *cond = cJSON_GetStringValue(get(rs, "conditions"));
    if (cond != NULL)
        printf("    where %s (the pivots of the elimination)\n", cond);
    return true;
}

/* The restart values solved (issue 41 item 6; restartValues), after the
 * restart relations: per instant, the values with the same expression on
 * one line ("w1\u207a = w2\u207a = ..."), the pivots assumed non-zero, what
 * the old values must satisfy; or why they were not solved. */
static void render_restart_values(const cJSON *cj, int shown)
{
    const cJSON *rv;
    cJSON_ArrayForEach(rv, arr(cj, "restartValues")) {
        double r = 0;
        num(rv, "instant", &r);
        printf("%srestart values at instant %d:", shown++ ? "" : "\n", (int)r);
        const char *why = cJSON_GetStringValue(get(rv, "why"));
        if (why != NULL) {
            printf(" not solved: %s\n", why);
            continue;
        }
        const cJSON *vs = arr(rv, "values"), *v;
        int groups = 0, k = 0;
        cJSON_ArrayForEach(v, vs) { /* the first of each expression */
            const char *val = cJSON_GetStringValue(get(v, "value"));
            bool first = true;
            for (int i = 0; i < k && first; i++) {
                const char *o = cJSON_GetStringValue(get(cJSON_GetArrayItem(vs, i), "value"));
                first = !(o != NULL && val != NULL && strcmp(o, val) == 0);
            }
            groups += first;
            k++;
        }
        k = 0;
        cJSON_ArrayForEach(v, vs) {
            const char *val = cJSON_GetStringValue(get(v, "value"));
            bool first = true;
            for (int i = 0; i < k && first; i++) {
                const char *o = cJSON_GetStringValue(get(cJSON_GetArrayItem(vs, i), "value"));
                first = !(o != NULL && val != NULL && strcmp(o, val) == 0);
            }
            k++;
            if (!first)
                continue;
            printf("%s", groups > 1 ? "\n    " : " ");
            const cJSON *w;
            cJSON_ArrayForEach(w, vs) {
                const char *wv = cJSON_GetStringValue(get(w, "value"));
                if (wv != NULL && val != NULL && strcmp(wv, val) == 0)
                    printf("%s = ", cJSON_GetStringValue(get(w, "name")) ?: "?");
            }
            printf("%s", val ? val : "?");
        }
        printf("\n");
        const char *cond = cJSON_GetStringValue(get(rv, "conditions"));
        const char *req = cJSON_GetStringValue(get(rv, "requires"));
        if (cond != NULL)
            printf("    where %s (the pivots)\n", cond);
        if (req != NULL)
            printf("    provided %s (the old values satisfy it)\n", req);
    }
}

static void render_impulses(const cJSON *cj)
{
    render_orders(cj);
    render_residuals(cj);
    render_standard(cj);
}

/* The cascade through a transient mode (engine/mc.h), when there is one:
 * from its first event (the new mode, or for a change out of a transient
 * mode the one the cascade enters first). */
static void render_transient(const cJSON *cj, const cJSON *tj)
{
    if (tj == NULL)
        return;
    const cJSON *evs = arr(tj, "events"), *first = get(cJSON_GetArrayItem(evs, 0), "mode");
    const cJSON *before = get(cj, "enteredFrom");
    if (before != NULL) {
        printf("a change out of a transient mode: analysed as the cascade entered from ");
        print_mode_obj(before);
        printf("\n");
    }
    printf("transient mode ");
    print_mode_obj(first != NULL ? first : get(cj, "to"));
    printf(" (when");
    const cJSON *w;
    int k = 0;
    cJSON_ArrayForEach(w, arr(tj, "whens")) {
        double line = 0;
        num(get(get(w, "range"), "start"), "line", &line);
        const char *c = cJSON_GetStringValue(get(w, "condition"));
        printf("%s %s, line %d", k++ ? ";" : "", c ? c : "?", (int)line);
    }
    printf("): one instant, then ");
    const cJSON *ev;
    int e = 0;
    cJSON_ArrayForEach(ev, evs) {
        if (e++ == 0)
            continue;
        print_mode_obj(get(ev, "mode"));
        printf(" (transient: event %d of the cascade, one instant), then ", e);
    }
    if (flag(tj, "endless") || flag(tj, "tooLong")) {
        printf("%s\n", flag(tj, "endless")
                           ? "the same events again: an endless cascade (rejected)"
                           : "more than 64 events: not followed (rejected)");
        return;
    }
    print_mode_obj(get(tj, "back"));
    double depth = -1, maxd = 0, rows = 0, cols = 0;
    num(tj, "arrayDepth", &depth);
    num(tj, "maxDepth", &maxd);
    num(get(tj, "array"), "equations", &rows);
    num(get(tj, "array"), "values", &cols);
    if (cJSON_IsNull(get(tj, "maxDepth")))
        printf("\n  difference array: not analysed (the change is refused before the event)\n");
    else if (cJSON_IsNull(get(tj, "arrayDepth")))
        printf("\n  difference array: no A_n, n <= %d, determines the event (underdetermined)\n",
               (int)maxd);
    else
        printf("\n  difference array: A_%d determines the event (%d equations, %d values)\n",
               (int)depth, (int)rows, (int)cols);
}

void cli_render_modechange(const char *file, const cJSON *cj)
{
    const char *status = cJSON_GetStringValue(get(cj, "status"));
    const cJSON *ins = arr(cj, "instants");
    printf("%s: change ", file);
    print_mode_obj(get(cj, "from"));
    printf(" \u2192 ");
    print_mode_obj(get(cj, "to"));
    status = status ? status : "?";
    if (strcmp(status, "continuous") == 0)
        printf(": continuous (nothing erased: the new mode starts from the old state)\n");
    else if (strcmp(status, "reset") == 0)
        printf(": reset (%d restart instant%s)%s\n", size(ins), size(ins) == 1 ? "" : "s",
               flag(cj, "ambiguous") ? ", ambiguous erasure (see alternatives)" : "");
    else
        printf(": %s\n", status);
    bool bodies = false; /* some equation printed with its body: the legend */
    render_transient(cj, get(cj, "transient"));
    if (strcmp(status, "rejected") == 0) { /* the reason on stdout too (issue 41 item 3) */
        const cJSON *d;
        cJSON_ArrayForEach(d, arr(cj, "diagnostics")) {
            const char *sev = cJSON_GetStringValue(get(d, "severity"));
            if (sev != NULL && strcmp(sev, "error") == 0) {
                printf("  why: %s\n", str_or(d, "message", "?"));
                break;
            }
        }
    }
    const cJSON *in;
    cJSON_ArrayForEach(in, ins) {
        double r = 0;
        num(in, "r", &r);
        const char *st = cJSON_GetStringValue(get(in, "status"));
        printf("\ninstant %d: erased ", (int)r);
        print_shifted(arr(in, "erased"), "(none)");
        printf("\n");
        bodies |= print_bodies_shifted(arr(in, "erased"), "    ");
        printf("  restart system (%d equation%s, %s): ", size(arr(in, "equations")),
               size(arr(in, "equations")) == 1 ? "" : "s", st ? st : "?");
        print_shifted(arr(in, "equations"), "(none)");
        printf(" \u2192 ");
        print_shifted(arr(in, "unknowns"), "(none)");
        printf("\n");
        bodies |= print_bodies_shifted(arr(in, "equations"), "    ");
        printf("  known: ");
        print_shifted(arr(in, "known"), "(none)");
        printf("\n  context: ");
        print_shifted(arr(in, "context"), "(none)");
        printf("\n");
        if (size(arr(in, "underdetermined")) > 0) {
            printf("  underdetermined: ");
            print_shifted(arr(in, "underdetermined"), "");
            printf("\n");
        }
        const cJSON *alt;
        cJSON_ArrayForEach(alt, arr(in, "alternatives")) {
            printf("  or erase: ");
            print_shifted(alt, "(none)");
            printf("\n");
        }
    }
    render_impulses(cj);
    const cJSON *rs;
    int shown = 0;
    cJSON_ArrayForEach(rs, arr(cj, "resets")) {
        if (size(arr(rs, "eliminate")) == 0) { /* an equation of the restart system as it is */
            double r = 0;
            num(rs, "instant", &r);
            const cJSON *eq;
            cJSON_ArrayForEach(eq, arr(rs, "from")) {
                printf("%srestart relation at instant %d: ", shown++ ? "" : "\n", (int)r);
                print_shifted_one(eq);
                const char *body = cJSON_GetStringValue(get(eq, "body"));
                if (body != NULL)
                    printf(":  %s", body);
                printf("\n");
            }
            continue;
        }
        if (render_elimination(rs, shown++))
            continue;
        double r = 0, n = 0;
        num(rs, "instant", &r);
        num(rs, "relations", &n);
        printf("%srestart relation%s at instant %d: eliminate ", shown > 1 ? "" : "\n",
               n == 1 ? "" : "s", (int)r);
        print_shifted(arr(rs, "eliminate"), "");
        printf(" from ");
        print_shifted(arr(rs, "from"), "");
        printf(" (%d relation%s among ", (int)n, n == 1 ? "" : "s");
        print_shifted(arr(rs, "among"), "");
        const char *why = cJSON_GetStringValue(get(rs, "why"));
        if (why != NULL)
            printf("; not eliminated: %s)\n", why);
        else
            printf("; exact when linear in the eliminated values)\n");
        bodies |= print_bodies_shifted(arr(rs, "from"), "    ");
    }
    render_restart_values(cj, shown);
    if (bodies)
        printf("\n(x\u2022: x one instant later, x\u2022k: k instants later; x': the "
               "derivative, (x\u2022 - x)/\u2202; the known values are the old mode's, x\u207b, "
               "the last instant's the new mode's, x\u207a)\n");
}

static bool render_refusal(const char *file, const cJSON *json);

void cli_render_modechanges(const char *file, const cJSON *aj)
{
    if (render_refusal(file, aj))
        return;
    const cJSON *counts = get(aj, "counts");
    double c = 0, r = 0, j = 0, p = 0, v = 0;
    num(counts, "continuous", &c);
    num(counts, "reset", &r);
    num(counts, "rejected", &j);
    num(aj, "pairs", &p);
    num(aj, "validModes", &v);
    const char *method = cJSON_GetStringValue(get(aj, "method"));
    printf("%s: %d change%s between %d valid mode%s (method: %s): %d continuous, %d reset, "
           "%d rejected\n", file, (int)p, p == 1 ? "" : "s", (int)v, v == 1 ? "" : "s",
           method ? method : "?", (int)c, (int)r, (int)j);
    static const char *const cls[] = {"continuous", "reset", "rejected"};
    for (int k = 0; k < 3; k++) {
        const char *g = cJSON_GetStringValue(get(get(get(aj, "classes"), cls[k]), "guard"));
        if (g != NULL)
            printf("  %-10s when %s\n", cls[k], g);
    }
    const cJSON *eq;
    cJSON_ArrayForEach(eq, arr(aj, "equations")) {
        const char *n = cJSON_GetStringValue(get(eq, "name"));
        const char *g = cJSON_GetStringValue(get(get(eq, "erasedWhen"), "guard"));
        if (n != NULL && g != NULL)
            printf("  %s is erased at the first instant when %s\n", n, g);
    }
    printf("(g: before the change, g\u207a: after)\n");
    const cJSON *ch;
    cJSON_ArrayForEach(ch, arr(aj, "changes")) {
        const char *st = cJSON_GetStringValue(get(ch, "status"));
        double n = 0;
        num(ch, "instants", &n);
        printf("  ");
        print_mode_obj(get(ch, "from"));
        printf(" \u2192 ");
        print_mode_obj(get(ch, "to"));
        printf(": %s", st ? st : "?");
        if (n > 0)
            printf(" (%d instant%s)", (int)n, n == 1 ? "" : "s");
        if (size(arr(ch, "erased")) > 0) {
            printf(", erases ");
            print_shifted(arr(ch, "erased"), "");
        }
        printf("%s\n", flag(ch, "ambiguous") ? ", ambiguous" : "");
    }
}

/* json[key] when it holds what `kind` says (an array, an object); else
 * NULL, after printing `label: not computed (why)` if it was asked. */
static const cJSON *computed_part(const cJSON *json, const char *key, const char *why_key,
                                  cJSON_bool (*kind)(const cJSON *), const char *label)
{
    const cJSON *part = cJSON_GetObjectItemCaseSensitive(json, key);
    if (part == NULL || kind(part))
        return part;
    const char *why = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(json, why_key));
    printf("  %s: not computed (%s)\n", label, why != NULL ? why : "?");
    return NULL;
}

/* A count of o as text (issue 41 item 2): o[key "Exact"], the exact
 * decimal digits, when the server gave them, else o[key] as an integer.
 * Returns buf (or the borrowed string). */
static const char *count_text(const cJSON *o, const char *key, char *buf, size_t n)
{
    char ek[64];
    snprintf(ek, sizeof ek, "%sExact", key);
    const char *e = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, ek));
    if (e != NULL)
        return e;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    snprintf(buf, n, "%.0f", cJSON_IsNumber(v) ? v->valuedouble : 0.0);
    return buf;
}

#define COUNT(o, key, buf) count_text((o), (key), (buf), sizeof(buf))

/* The equations the first instant erases, pair by pair (--erasures). */
static void render_erasures(const cJSON *json)
{
    const cJSON *er =
        computed_part(json, "erasures", "erasuresNotComputed", cJSON_IsArray, "erased equations");
    if (er == NULL)
        return;
    const char *partial = cJSON_GetStringValue(get(json, "erasuresOfRejectedWhy"));
    if (partial != NULL)
        printf("  (%s)\n", partial);
    const cJSON *e;
    cJSON_ArrayForEach(e, er)
    {
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "name"));
        const char *g = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "guard"));
        int shift = cJSON_GetObjectItemCaseSensitive(e, "shift")->valueint;
        char pb[64];
        const char *pairs = COUNT(e, "pairs", pb);
        char row[160];
        if (shift == 0)
            snprintf(row, sizeof row, "%s", name ? name : "?");
        else
            snprintf(row, sizeof row, "%s (shift %d)", name ? name : "?", shift);
        if (g == NULL)
            printf("  %s is erased at the first instant in %s pairs (more than 4,096 cubes, "
                   "not printed)\n",
                   row, pairs);
        else if (strlen(g) <= 300)
            printf("  %s is erased at the first instant when %s (%s pair%s)\n", row, g, pairs,
                   plural_s(pairs));
        else
            printf("  %s is erased at the first instant when %.240s ... (%s pairs; --json)\n",
                   row, g, pairs);
    }
}

/* One class of impulse orders (issue 41 item 7): how the analysis ended,
 * the impulsive values (those of equal order joined by "="), the finite
 * ones, on the rest of the line. */
static void print_impulse_class(const cJSON *c)
{
    const char *st = cJSON_GetStringValue(get(c, "status"));
    if (st != NULL && strcmp(st, "too large") == 0) {
        printf("not done: the restart system is too large for the impulse analysis\n");
        return;
    }
    if (st != NULL && strcmp(st, "no assignment") == 0) {
        printf("no assignment of impulse orders satisfies the structural rules\n");
        return;
    }
    const cJSON *it, *eq;
    int k = 0;
    cJSON_ArrayForEach(it, arr(c, "impulsive")) {
        bool shown = false; /* in the equalities of a value before it */
        for (const cJSON *p = arr(c, "impulsive")->child; p != it && !shown; p = p->next)
            cJSON_ArrayForEach(eq, arr(p, "equal")) shown |= same_item(eq, it);
        if (shown)
            continue;
        printf("%s", k++ ? ", " : "impulsive ");
        print_shifted_one(it);
        cJSON_ArrayForEach(eq, arr(it, "equal")) {
            printf(" = ");
            print_shifted_one(eq);
        }
        double o = 0, lo = 0;
        bool has_lo = num(it, "orderMin", &lo);
        num(it, "order", &o);
        printf(" (order %s%d)", has_lo && lo == o ? "" : "\u2264 ", (int)o);
    }
    printf("%s", k ? "; " : "nothing impulsive; ");
    int f = 0;
    cJSON_ArrayForEach(it, arr(c, "finite")) {
        printf("%s", f++ ? ", " : "finite ");
        print_shifted_one(it);
        print_order_suffix(it);
    }
    if (st != NULL && strcmp(st, "bounds") == 0)
        printf("%s(bounds by propagation only)", f ? " " : "");
    if (cJSON_IsTrue(get(c, "priorsForced")))
        printf("%s(finite states force some old values or residuals to be infinitesimal)",
               f ? " " : "");
    printf("\n");
}

/* The impulse orders of a restart instant by class of pairs (key
 * "impulses" of o), each on a line after indent; nothing when not asked. */
static void render_impulse_classes(const cJSON *o, const char *indent, const char *what)
{
    const cJSON *im = get(o, "impulses");
    if (im == NULL)
        return;
    if (!cJSON_IsArray(im)) {
        const char *why = cJSON_GetStringValue(get(o, "impulsesNotComputed"));
        printf("%simpulse orders%s: not computed (%s)\n", indent, what, why ? why : "?");
        return;
    }
    const cJSON *c;
    cJSON_ArrayForEach(c, im) {
        const char *g = cJSON_GetStringValue(get(c, "guard"));
        char pb[64];
        const char *pairs = COUNT(c, "pairs", pb);
        printf("%simpulse orders%s when %.240s%s (%s pair%s): ", indent, what,
               g != NULL ? g : "(more than 4,096 cubes)", g != NULL && strlen(g) > 240 ? " ..." : "",
               pairs, plural_s(pairs));
        print_impulse_class(c);
    }
}

/* Each later instant (--instants): its pairs, classes, the rows it erases
 * with their pairs, and the size of its restart system (rows: --json). */
static void render_later(const cJSON *ch)
{
    const cJSON *li;
    cJSON_ArrayForEach(li, arr(ch, "instants"))
    {
        const cJSON *c = get(li, "counts");
        char b0[64], b1[64], b2[64], b3[64];
        const char *still = COUNT(li, "pairs", b0);
        int rows = cJSON_GetArraySize(get(li, "restartSystem"));
        printf("  instant %d, %s pair%s still restarting: ends in %s, erases in %s, "
               "rejected in %s; restart system: %d row%s (their pairs: --json)\n",
               get(li, "r")->valueint, still,
               plural_s(still), COUNT(c, "ends", b1), COUNT(c, "erases", b2),
               COUNT(c, "rejected", b3), rows, rows == 1 ? "" : "s");
        const cJSON *e;
        cJSON_ArrayForEach(e, arr(li, "erasures"))
        {
            const char *name = cJSON_GetStringValue(get(e, "name"));
            const char *g = cJSON_GetStringValue(get(e, "guard"));
            int shift = get(e, "shift")->valueint;
            char pb[64];
            const char *pairs = COUNT(e, "pairs", pb);
            printf("    erases %s", name ? name : "?");
            if (shift != 0)
                printf(" (shift %d)", shift);
            if (g == NULL)
                printf(" in %s pairs (more than 4,096 cubes, not printed)\n", pairs);
            else
                printf(" when %.240s%s (%s pair%s)\n", g, strlen(g) > 240 ? " ..." : "", pairs,
                       plural_s(pairs));
        }
        render_impulse_classes(li, "    ", "");
    }
}

/* The whole of every change, instant after instant (--instants). */
static void render_changes(const cJSON *json)
{
    const cJSON *ch =
        computed_part(json, "changes", "changesNotComputed", cJSON_IsObject, "every instant");
    if (ch == NULL)
        return;
    const cJSON *c = get(ch, "counts");
    char b0[64], b1[64], b2[64];
    printf("  every instant: %s continuous, %s reset, %s rejected\n", COUNT(c, "continuous", b0),
           COUNT(c, "reset", b1), COUNT(c, "rejected", b2));
    const cJSON *o;
    cJSON_ArrayForEach(o, arr(ch, "outcomes"))
    {
        const char *st = cJSON_GetStringValue(get(o, "status"));
        const char *g = cJSON_GetStringValue(get(o, "guard"));
        int n = get(o, "instants")->valueint;
        char pb[64];
        const char *pairs = COUNT(o, "pairs", pb);
        printf("    %s after %d instant%s (%s pair%s) when %s\n", st ? st : "?", n,
               n == 1 ? "" : "s", pairs, plural_s(pairs),
               g == NULL ? "(more than 4,096 cubes)" : g);
    }
    render_later(ch);
}

/* A model-wide refusal (rpc_json_guard_refusal: a guard fixpoint) in
 * place of the changes: one line; true if json is one. */
static bool render_refusal(const char *file, const cJSON *json)
{
    const char *reason = cJSON_GetStringValue(get(json, "reason"));
    if (reason == NULL)
        return false;
    printf("%s: every mode change is rejected: %s\n", file, reason);
    return true;
}

void cli_render_first(const char *file, const cJSON *json)
{
    if (render_refusal(file, json))
        return;
    static const char *const keys[3] = {"continuous", "restart", "rejected"};
    const cJSON *counts = cJSON_GetObjectItemCaseSensitive(json, "counts");
    const cJSON *classes = cJSON_GetObjectItemCaseSensitive(json, "classes");
    char b[4][64];
    const char *pairs = COUNT(json, "pairs", b[3]), *restart = COUNT(counts, keys[1], b[1]);
    printf("%s: the first instant of %s change%s (method: bdd): %s continuous, %s need%s a "
           "restart, %s rejected there\n",
           file, pairs, plural_s(pairs), COUNT(counts, keys[0], b[0]), restart,
           strcmp(restart, "1") == 0 ? "s" : "", COUNT(counts, keys[2], b[2]));
    for (int k = 0; k < 3; k++) {
        const cJSON *set = cJSON_GetObjectItemCaseSensitive(classes, keys[k]);
        const char *g = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(set, "guard"));
        int n = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(set, "cubes"));
        if (g == NULL)
            g = "(a set of more than 4,096 cubes, not printed)";
        if (strlen(g) <= 400)
            printf("  %-10s when %s\n", keys[k], g);
        else
            printf("  %-10s when %.300s ... (%d cubes: --json)\n", keys[k], g, n);
    }
    render_erasures(json);
    render_impulse_classes(json, "  ", " at the first instant");
    render_changes(json);
    const cJSON *ev = cJSON_GetObjectItemCaseSensitive(json, "events");
    if (ev != NULL) {
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(ev, "counts");
        const cJSON *cl = cJSON_GetObjectItemCaseSensitive(ev, "classes");
        printf("  through when events (method: enumeration; every instant, cascades "
               "included): %.0f changes: %.0f continuous, %.0f reset, %.0f rejected\n",
               cJSON_GetObjectItemCaseSensitive(ev, "pairs")->valuedouble,
               cJSON_GetObjectItemCaseSensitive(c, "continuous")->valuedouble,
               cJSON_GetObjectItemCaseSensitive(c, "reset")->valuedouble,
               cJSON_GetObjectItemCaseSensitive(c, "rejected")->valuedouble);
        static const char *const st[3] = {"continuous", "reset", "rejected"};
        for (int k = 0; k < 3; k++) {
            const char *g = cJSON_GetStringValue(
                cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(cl, st[k]), "guard"));
            if (g != NULL && strcmp(g, "false") != 0)
                printf("    %-10s when %.300s%s\n", st[k], g, strlen(g) > 300 ? " ..." : "");
        }
    }
    const char *evwhy = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(json, "eventsWhy"));
    if (evwhy != NULL)
        printf("  the changes through when events are not enumerated: %s\n", evwhy);
    const cJSON *whens = cJSON_GetObjectItemCaseSensitive(json, "whenClausesNotCovered");
    if (cJSON_IsNumber(whens))
        printf("  not covered: the changes through the transient modes of the model's %d "
               "when-clause%s (events);\n  `mdae modechange FILE --all` (small models) or "
               "--from/--to analyse them\n",
               whens->valueint, whens->valueint == 1 ? "" : "s");
    printf("(g: before the change, g\u207a: after; the pairs of different valid nonsingular long "
           "modes%s%s)\n",
           cJSON_GetObjectItemCaseSensitive(json, "changes") != NULL
               ? ""
               : ";\n every later instant: --instants",
           cJSON_GetObjectItemCaseSensitive(json, "erasures") != NULL
               ? ""
               : "; what the first instant erases, and its impulse orders: --erasures");
}

/* ---- `mdae approx` (issue 38; rpc_json_approx) ----------------------------- */

/* One finding as a compiler warning at its source location. */
static void print_approx_finding(const char *file, const cJSON *f)
{
    const cJSON *start = get(get(f, "where"), "start");
    double line = 0, col = 0;
    if (num(start, "line", &line) && line > 0 && num(start, "col", &col))
        printf("%s:%.0f:%.0f: warning: %s\n", file, line, col, str_or(f, "message", "?"));
    else
        printf("%s: warning: %s\n", file, str_or(f, "message", "?"));
}

void cli_render_approx(const char *file, const cJSON *approx)
{
    const cJSON *f;
    cJSON_ArrayForEach(f, arr(approx, "findings")) print_approx_finding(file, f);
    double valid = 0, wrong = 0;
    num(approx, "valid_modes", &valid);
    const cJSON *w = get(approx, "wrong_modes");
    num(w, "count", &wrong);
    int n = size(arr(approx, "findings"));
    if (!flag(approx, "accepted"))
        printf("%s: a single-mode analysis refuses this model", file);
    else
    {
        int ne = size(arr(approx, "equations")), nb = size(arr(approx, "blocks"));
        printf("%s: a single-mode analysis accepts this model (%d equation%s, %d block%s)", file,
               ne, ne == 1 ? "" : "s", nb, nb == 1 ? "" : "s");
    }
    if (wrong > 0)
        printf("; it is wrong in %.0f of %.0f valid modes (%s): %d finding%s\n", wrong, valid,
               str_or(w, "formula", "?"), n, n == 1 ? "" : "s");
    else if (!flag(approx, "accepted"))
        printf(", as the exact analysis does: no valid mode (%.0f) is solvable\n", valid);
    else
        printf("; it is right in every valid mode (%.0f)\n", valid);
}
