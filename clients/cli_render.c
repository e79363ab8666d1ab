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
    printf("\nstructurally singular in: %s\n", str_or(get(a, "singular"), "guard", "?"));
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
        printf("  %-15s %-8s %-*s  when %s\n", over ? "overdetermined" : "underdetermined",
               over ? "equation" : "variable", (int)wn,
               str_or(dg, over ? "equation" : "variable", "?"), str_or(dg, "guard", "?"));
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
    if (size(edges) == 0)
        printf("  (none)\n");
    const cJSON *e;
    cJSON_ArrayForEach(e, edges) {
        double from = -1, to = -1;
        num(e, "from", &from);
        num(e, "to", &to);
        printf("  b%.0f \u2192 b%.0f", from, to);
        const char *guard = str_or(e, "guard", "?");
        if (strcmp(guard, "true") != 0)
            printf("   when %s", guard);
        printf("\n");
    }
}

void cli_render_analysis(const char *file, const cJSON *a)
{
    printf("%s: %s\n", file, str_or(a, "status", "?"));
    const cJSON *names = arr(a, "modeVariables");
    int n_modes = size(names);
    double valid = 0;
    printf("valid modes: ");
    if (num(a, "validModes", &valid))
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
static void print_shifted(const cJSON *list, const char *none)
{
    const cJSON *it;
    int k = 0;
    cJSON_ArrayForEach(it, list) {
        const char *n = cJSON_GetStringValue(get(it, "name"));
        double s = 0;
        num(it, "shift", &s);
        bool spaced = n != NULL && strchr(n, ' ') != NULL; /* Modelica: the text */
        printf("%s%s%s%s", k++ ? ", " : "", spaced ? "[" : "", n ? n : "?", spaced ? "]" : "");
        if (s == 1)
            printf("\u2022");
        else if (s > 1)
            printf("\u2022%d", (int)s);
    }
    if (k == 0)
        printf("%s", none);
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
    render_transient(cj, get(cj, "transient"));
    const cJSON *in;
    cJSON_ArrayForEach(in, ins) {
        double r = 0;
        num(in, "r", &r);
        const char *st = cJSON_GetStringValue(get(in, "status"));
        printf("\ninstant %d: erased ", (int)r);
        print_shifted(arr(in, "erased"), "(none)");
        printf("\n  restart system (%d equation%s, %s): ", size(arr(in, "equations")),
               size(arr(in, "equations")) == 1 ? "" : "s", st ? st : "?");
        print_shifted(arr(in, "equations"), "(none)");
        printf(" \u2192 ");
        print_shifted(arr(in, "unknowns"), "(none)");
        printf("\n  known: ");
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
    const cJSON *imp = arr(cj, "impulsive");
    if (size(imp) > 0) {
        printf("\nimpulsive:");
        const cJSON *it;
        int k = 0;
        cJSON_ArrayForEach(it, imp) {
            const char *n = cJSON_GetStringValue(get(it, "name"));
            if (k++)
                printf(",");
            double o = 0, s = 0, r = 0;
            num(it, "order", &o);
            num(it, "shift", &s);
            num(it, "instant", &r);
            printf(" %s", n ? n : "?");
            if (s == 1)
                printf("\u2022");
            else if (s > 1)
                printf("\u2022%d", (int)s);
            double lo = 0;
            bool exact = num(it, "orderMin", &lo) && lo == o;
            printf(" (order %s%d, instant %d)", exact ? "" : "\u2264 ", (int)o, (int)r);
        }
        printf("\n");
    }
    const cJSON *rs;
    int shown = 0;
    cJSON_ArrayForEach(rs, arr(cj, "resets")) {
        if (size(arr(rs, "eliminate")) == 0)
            continue; /* an equation of the restart system as it is */
        double r = 0, n = 0;
        num(rs, "instant", &r);
        num(rs, "relations", &n);
        printf("%srestart relation%s at instant %d: eliminate ", shown++ ? "" : "\n",
               n == 1 ? "" : "s", (int)r);
        print_shifted(arr(rs, "eliminate"), "");
        printf(" from ");
        print_shifted(arr(rs, "from"), "");
        printf(" (%d relation%s among ", (int)n, n == 1 ? "" : "s");
        print_shifted(arr(rs, "among"), "");
        printf("; exact when linear in the eliminated values)\n");
    }
}

void cli_render_modechanges(const char *file, const cJSON *aj)
{
    const cJSON *counts = get(aj, "counts");
    double c = 0, r = 0, j = 0, p = 0, v = 0;
    num(counts, "continuous", &c);
    num(counts, "reset", &r);
    num(counts, "rejected", &j);
    num(aj, "pairs", &p);
    num(aj, "validModes", &v);
    const char *method = cJSON_GetStringValue(get(aj, "method"));
    printf("%s: %d changes between %d valid modes (method: %s): %d continuous, %d reset, "
           "%d rejected\n", file, (int)p, (int)v, method ? method : "?", (int)c, (int)r,
           (int)j);
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
    printf("(g: before the change, g': after)\n");
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

/* The equations the first instant erases, pair by pair (--erasures). */
static void render_erasures(const cJSON *json)
{
    const cJSON *er =
        computed_part(json, "erasures", "erasuresNotComputed", cJSON_IsArray, "erased equations");
    if (er == NULL)
        return;
    const cJSON *e;
    cJSON_ArrayForEach(e, er)
    {
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "name"));
        const char *g = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "guard"));
        int shift = cJSON_GetObjectItemCaseSensitive(e, "shift")->valueint;
        double pairs = cJSON_GetObjectItemCaseSensitive(e, "pairs")->valuedouble;
        char row[160];
        if (shift == 0)
            snprintf(row, sizeof row, "%s", name ? name : "?");
        else
            snprintf(row, sizeof row, "%s (shift %d)", name ? name : "?", shift);
        if (g == NULL)
            printf("  %s is erased at the first instant in %.0f pairs (more than 4,096 cubes, "
                   "not printed)\n",
                   row, pairs);
        else if (strlen(g) <= 300)
            printf("  %s is erased at the first instant when %s (%.0f pair%s)\n", row, g, pairs,
                   pairs == 1 ? "" : "s");
        else
            printf("  %s is erased at the first instant when %.240s ... (%.0f pairs; --json)\n",
                   row, g, pairs);
    }
}

/* Each later instant (--instants): its pairs, classes, the rows it erases
 * with their pairs, and the size of its restart system (rows: --json). */
static void render_later(const cJSON *ch)
{
    const cJSON *li;
    cJSON_ArrayForEach(li, cJSON_GetObjectItemCaseSensitive(ch, "instants"))
    {
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(li, "counts");
        printf("  instant %d, %.0f pairs still restarting: ends in %.0f, erases in %.0f, "
               "rejected in %.0f; restart system: %d rows (their pairs: --json)\n",
               cJSON_GetObjectItemCaseSensitive(li, "r")->valueint,
               cJSON_GetObjectItemCaseSensitive(li, "pairs")->valuedouble,
               cJSON_GetObjectItemCaseSensitive(c, "ends")->valuedouble,
               cJSON_GetObjectItemCaseSensitive(c, "erases")->valuedouble,
               cJSON_GetObjectItemCaseSensitive(c, "rejected")->valuedouble,
               cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(li, "restartSystem")));
        const cJSON *e;
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(li, "erasures"))
        {
            const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "name"));
            const char *g = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "guard"));
            int shift = cJSON_GetObjectItemCaseSensitive(e, "shift")->valueint;
            double pairs = cJSON_GetObjectItemCaseSensitive(e, "pairs")->valuedouble;
            printf("    erases %s", name ? name : "?");
            if (shift != 0)
                printf(" (shift %d)", shift);
            if (g == NULL)
                printf(" in %.0f pairs (more than 4,096 cubes, not printed)\n", pairs);
            else
                printf(" when %.240s%s (%.0f pair%s)\n", g, strlen(g) > 240 ? " ..." : "", pairs,
                       pairs == 1 ? "" : "s");
        }
    }
}

/* The whole of every change, instant after instant (--instants). */
static void render_changes(const cJSON *json)
{
    const cJSON *ch =
        computed_part(json, "changes", "changesNotComputed", cJSON_IsObject, "every instant");
    if (ch == NULL)
        return;
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(ch, "counts");
    printf("  every instant: %.0f continuous, %.0f reset, %.0f rejected\n",
           cJSON_GetObjectItemCaseSensitive(c, "continuous")->valuedouble,
           cJSON_GetObjectItemCaseSensitive(c, "reset")->valuedouble,
           cJSON_GetObjectItemCaseSensitive(c, "rejected")->valuedouble);
    const cJSON *o;
    cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(ch, "outcomes"))
    {
        const char *st = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "status"));
        const char *g = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "guard"));
        int n = cJSON_GetObjectItemCaseSensitive(o, "instants")->valueint;
        double pairs = cJSON_GetObjectItemCaseSensitive(o, "pairs")->valuedouble;
        printf("    %s after %d instant%s (%.0f pair%s) when %s\n", st ? st : "?", n,
               n == 1 ? "" : "s", pairs, pairs == 1 ? "" : "s",
               g == NULL ? "(more than 4,096 cubes)" : g);
    }
    render_later(ch);
}

void cli_render_first(const char *file, const cJSON *json)
{
    static const char *const keys[3] = {"continuous", "restart", "rejected"};
    const cJSON *counts = cJSON_GetObjectItemCaseSensitive(json, "counts");
    const cJSON *classes = cJSON_GetObjectItemCaseSensitive(json, "classes");
    printf("%s: the first instant of %.0f changes (method: bdd): %.0f continuous, %.0f need a "
           "restart, %.0f rejected there\n",
           file, cJSON_GetObjectItemCaseSensitive(json, "pairs")->valuedouble,
           cJSON_GetObjectItemCaseSensitive(counts, keys[0])->valuedouble,
           cJSON_GetObjectItemCaseSensitive(counts, keys[1])->valuedouble,
           cJSON_GetObjectItemCaseSensitive(counts, keys[2])->valuedouble);
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
    printf("(g: before the change, g': after; the pairs of different valid nonsingular long "
           "modes%s%s)\n",
           cJSON_GetObjectItemCaseSensitive(json, "changes") != NULL
               ? ""
               : ";\n every later instant: --instants",
           cJSON_GetObjectItemCaseSensitive(json, "erasures") != NULL
               ? ""
               : "; what the first instant erases: --erasures");
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
