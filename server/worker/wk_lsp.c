/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * server/worker/wk_lsp.c -- the editor's questions (issue 15): hover,
 * document symbols, definition, references and code lenses, answered in the
 * session's worker from what it keeps: the text, its outline
 * (engine/mel_outline.h, built on first use), the model and the analysis
 * JSON (built once per loaded text, as for session/analyze). Nothing here
 * analyses again: a question before the first analysis of a text runs it
 * once, as session/mode does, and every later one reads the kept result.
 *
 * Why here and not in the router: the answers need the model's instances,
 * the offsets as functions of the mode and BDD counts (a mode variable's
 * valid modes), which only the worker holds (BuDDy is per process).
 *
 * Hover finds, at the cursor: a declared name (the outline's occurrence:
 * unknown, parameter, integer, mode variable), else a Modelica mode atom
 * (the model's mode ranges), else the innermost equation (the model's
 * equation ranges; a loop's instances share one range and are shown as one
 * with their count; an equation differentiated in some modes shows its
 * differentiated body for each offset c > 0, engine/fx_body.h). Results
 * are LSP's: Hover {contents: MarkupContent},
 * DocumentSymbol[], Location[], CodeLens[] whose command is mdae.showMode
 * with a mode where the lens applies.
 *
 * Half-typed text (issue 36 item 2): syntax errors leave out their
 * statements (the worker loads the editor's text with recovery), so most
 * texts analyse. One that does not (an undeclared name, a limit of the
 * front-end) is answered from the last version that did (wk.h, wk_good):
 * its fields are swapped into the state for the one request (with_good),
 * the cursor is carried over by the text the two versions share before and
 * after the edit (a cursor inside the edit has no answer), the ranges
 * answered are those of that version ("as they were"), and hovers and
 * lenses say so. Symbols, definition and references use the current
 * outline, which survives syntax errors, and the last good one only when
 * there is none.
 */
#include "wk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fx_body.h"
#include "rpc_message.h"

#define HOVER_LIST_MAX 8 /* equations, blocks, instances listed by name */

/* ---- What every method needs ------------------------------------------------------ */

static void nomem_check(int rc)
{
    if (rc == MDAE_E_NOMEM)
        wk_oom();
}

/* ---- Answering from the last version that analysed ------------------------------ */

#define SWAP(T, a, b) \
    do {              \
        T t_ = (a);   \
        (a) = (b);    \
        (b) = t_;     \
    } while (0)

/* Exchange the loaded version's fields with w->good's (twice: back). */
static void swap_good(wk_state *w)
{
    wk_good *g = &w->good;
    SWAP(char *, w->text, g->text);
    SWAP(size_t, w->text_len, g->text_len);
    SWAP(bool, w->modelica, g->modelica);
    SWAP(int, w->model_rc, g->model_rc);
    SWAP(mel_model *, w->model, g->model);
    SWAP(mel_outline *, w->outline, g->outline);
    SWAP(int, w->outline_rc, g->outline_rc);
    SWAP(inc_result *, w->inc_res, g->inc_res);
    SWAP(sa_result *, w->result, g->result);
    SWAP(cdg_graph *, w->graph, g->graph);
    SWAP(cJSON *, w->cached_report, g->cached_report);
    SWAP(cJSON *, w->prev_report, g->prev_report);
    SWAP(uint64_t, w->cached_serial, g->cached_serial);
    SWAP(uint64_t, w->prev_serial, g->prev_serial);
}

/* Run method fn on w->good's version when `use` and there is one, marked
 * (w->stale), else on the loaded one. */
static cJSON *with_good(wk_state *w, bool use, wk_method_fn *fn, const cJSON *id,
                        const cJSON *params)
{
    if (!use || w->good.model == NULL || w->text == NULL)
        return fn(w, id, params);
    w->stale = w->loads > w->good.load ? w->loads - w->good.load : 1;
    swap_good(w);
    cJSON *r = fn(w, id, params);
    swap_good(w);
    w->stale = 0;
    return r;
}

/* Offset off of text cur, in text old: through the bytes the two share
 * before and after the edit; false inside the edit. */
static bool carry_offset(const char *cur, size_t cur_len, const char *old, size_t old_len,
                         uint32_t off, uint32_t *out)
{
    size_t pre = 0, n = cur_len < old_len ? cur_len : old_len;
    while (pre < n && cur[pre] == old[pre])
        pre++;
    size_t suf = 0;
    while (suf < n - pre && cur[cur_len - 1 - suf] == old[old_len - 1 - suf])
        suf++;
    if (off <= pre) {
        *out = off;
        return true;
    }
    if (off >= cur_len - suf && off <= cur_len) {
        *out = (uint32_t)(off - (cur_len - suf) + (old_len - suf));
        return true;
    }
    return false;
}

/* "(N edits ago)" for marks. */
static void stale_note(const wk_state *w, char *buf, size_t n)
{
    snprintf(buf, n, "%llu edit%s ago", (unsigned long long)w->stale, w->stale == 1 ? "" : "s");
}

/* o[key] = s, marked "(as N edits ago)" when answered from the last
 * version that analysed (a symbol's detail, a lens's title). */
static void add_as_of(const wk_state *w, cJSON *o, const char *key, const char *s)
{
    if (w->stale == 0) {
        cJSON_AddStringToObject(o, key, s);
        return;
    }
    char ago[64];
    stale_note(w, ago, sizeof ago);
    char *t = mdae_asprintf("%s%s(as %s)", s, s[0] ? " " : "", ago);
    if (t == NULL)
        wk_oom();
    cJSON_AddStringToObject(o, key, t);
    mdae_free(t);
}

/* The outline of the loaded text (NULL when it does not parse). */
static const mel_outline *outline(wk_state *w)
{
    if (w->outline == NULL && w->outline_rc == MDAE_OK && w->text != NULL) {
        w->outline_rc = mel_outline_parse(w->text, w->text_len, w->modelica, 0, &w->outline);
        nomem_check(w->outline_rc);
    }
    return w->outline;
}

/* params.position as a byte offset of the text; false when absent. */
static bool position_param(const wk_state *w, const cJSON *params, uint32_t *offset)
{
    const cJSON *pos = cJSON_GetObjectItemCaseSensitive(params, "position");
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(pos, "line");
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(pos, "character");
    if (!cJSON_IsNumber(l) || !cJSON_IsNumber(c) || l->valuedouble < 0 || c->valuedouble < 0 ||
        w->text == NULL)
        return false;
    if (w->stale > 0) { /* the editor's position is in the current text (swapped out) */
        const wk_good *cur = &w->good;
        uint32_t off = (uint32_t)rpc_lsp_offset(cur->text, cur->text_len, l->valuedouble,
                                                c->valuedouble, w->enc);
        return carry_offset(cur->text, cur->text_len, w->text, w->text_len, off, offset);
    }
    *offset = (uint32_t)rpc_lsp_offset(w->text, w->text_len, l->valuedouble, c->valuedouble,
                                       w->enc);
    return true;
}

static cJSON *range_json(const wk_state *w, const mdae_range *r)
{
    cJSON *o = NULL;
    nomem_check(rpc_lsp_range(w->text, w->text_len, r, w->enc, &o));
    return o;
}

static cJSON *location(const wk_state *w, const mdae_range *r)
{
    cJSON *l = cJSON_CreateObject();
    cJSON_AddStringToObject(l, "uri", w->text_name ? w->text_name : "");
    cJSON_AddItemToObject(l, "range", range_json(w, r));
    return l;
}

static bool in_range(const mdae_range *r, uint32_t off)
{
    return r->start.line != 0 && r->start.offset <= off && off <= r->end.offset;
}

static bool same_range(const mdae_range *a, const mdae_range *b)
{
    return a->start.offset == b->start.offset && a->end.offset == b->end.offset;
}

/* The source text of r, at most max bytes, on one line (owned). */
static char *source_text(const wk_state *w, const mdae_range *r, size_t max)
{
    size_t a = r->start.offset, z = r->end.offset;
    if (r->start.line == 0 || z < a || z > w->text_len)
        a = z = 0;
    size_t n = z - a > max ? max : z - a;
    while (n > 0 && n < z - a && ((unsigned char)w->text[a + n] & 0xC0) == 0x80)
        n--; /* cut at a UTF-8 boundary */
    char *s = mdae_asprintf("%.*s%s", (int)n, w->text + a, z - a > n ? " ..." : "");
    if (s == NULL)
        wk_oom();
    for (char *p = s; *p; p++)
        if (*p == '\n' || *p == '\r' || *p == '\t')
            *p = ' ';
    return s;
}

/* ---- Reading the analysis JSON ------------------------------------------------------ */

/* The kept analysis (NULL when the model does not load or analyse; *err
 * then holds an error response the caller may send or drop). */
static const cJSON *report(wk_state *w, const cJSON *id, cJSON **err)
{
    *err = NULL;
    if (w->model == NULL || w->model_rc < 0 || !wk_analysed(w, id, false, err))
        return NULL;
    const cJSON *rep = NULL;
    int rc = wk_report(w, &rep);
    nomem_check(rc);
    return rc < 0 ? NULL : rep;
}

/* The item of rep.<member> for model index k, named name (the report lists
 * equations and variables in model order). */
static const cJSON *report_item(const cJSON *rep, const char *member, uint32_t k,
                                const char *name)
{
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(rep, member);
    const cJSON *it = cJSON_GetArrayItem(arr, (int)k);
    const cJSON *nm = cJSON_GetObjectItemCaseSensitive(it, "name");
    if (cJSON_IsString(nm) && strcmp(nm->valuestring, name) == 0)
        return it;
    cJSON_ArrayForEach(it, arr)
    {
        nm = cJSON_GetObjectItemCaseSensitive(it, "name");
        if (cJSON_IsString(nm) && strcmp(nm->valuestring, name) == 0)
            return it;
    }
    return NULL;
}

static const char *str_of(const cJSON *o, const char *k)
{
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(s) ? s->valuestring : "?";
}

/* "0 when `p`; 1 when `!p`" (or "always 0") of an item's offset cases. */
static void offsets_text(mdae_buf *b, const cJSON *item)
{
    const cJSON *offs = cJSON_GetObjectItemCaseSensitive(item, "offset");
    int n = cJSON_GetArraySize(offs);
    const cJSON *c;
    int k = 0;
    cJSON_ArrayForEach(c, offs)
    {
        char num[32];
        snprintf(num, sizeof num, "%d", cJSON_GetObjectItemCaseSensitive(c, "value")->valueint);
        if (n == 1 && strcmp(str_of(c, "guard"), "true") == 0) {
            mdae_buf_puts(b, num);
            mdae_buf_puts(b, " in every mode");
            return;
        }
        mdae_buf_puts(b, k++ ? "; " : "");
        mdae_buf_puts(b, num);
        mdae_buf_puts(b, " when `");
        mdae_buf_puts(b, str_of(c, "guard"));
        mdae_buf_puts(b, "`");
    }
    if (n == 0)
        mdae_buf_puts(b, "none (never active in a valid nonsingular mode)");
}

/* After an analysis that failed (kept by wk_methods.c, issue 36): that it
 * stopped, where, and why (a limit names itself and how to raise it). The
 * rest of the hover comes from the model and the outline. */
static void failure_note(const wk_state *w, mdae_buf *b)
{
    int rc;
    const mdae_diag *d = wk_failure(w, &rc);
    if (rc == MDAE_OK)
        return;
    char at[64] = "";
    if (d != NULL && d->where.start.line != 0)
        snprintf(at, sizeof at, " at line %u", (unsigned)d->where.start.line);
    mdae_buf_puts(b, b->len ? "\n\n---\n\n" : "");
    mdae_buf_puts(b, "**the analysis stopped**");
    mdae_buf_puts(b, at);
    mdae_buf_puts(b, ": ");
    mdae_buf_puts(b, d != NULL && d->message ? d->message : mdae_strerror(rc));
}

/* The hover's markdown, handed over as {contents:{kind:"markdown",value}}. */
static cJSON *hover_result(wk_state *w, mdae_buf *b, const mdae_range *r)
{
    failure_note(w, b);
    if (b->oom)
        wk_oom();
    cJSON *h = cJSON_CreateObject();
    cJSON *c = cJSON_AddObjectToObject(h, "contents");
    cJSON_AddStringToObject(c, "kind", "markdown");
    if (w->stale > 0) {
        char ago[64];
        stale_note(w, ago, sizeof ago);
        char *v = mdae_asprintf("*(from the last version that analysed, %s: the text now "
                                "does not)*\n\n%s", ago, b->p ? b->p : "");
        if (v == NULL)
            wk_oom();
        cJSON_AddStringToObject(c, "value", v);
        mdae_free(v);
    } else {
        cJSON_AddStringToObject(c, "value", b->p ? b->p : "");
    }
    if (r != NULL)
        cJSON_AddItemToObject(h, "range", range_json(w, r));
    mdae_free(b->p);
    return h;
}

/* ---- Hover ------------------------------------------------------------------------- */

/* Model variables whose instance name is `name` or `name[...]`. */
static bool is_instance(const char *inst, const char *name)
{
    size_t n = strlen(name);
    return strncmp(inst, name, n) == 0 && (inst[n] == '\0' || inst[n] == '[');
}

static void hover_variable(wk_state *w, mdae_buf *b, const cJSON *rep, const mel_symbol *sym)
{
    const mel_model *m = w->model;
    long first = -1;
    uint32_t count = 0;
    for (uint32_t v = 0; m != NULL && v < m->n_variables; v++)
        if (is_instance(m->variables[v].name, sym->name)) {
            if (first < 0)
                first = (long)v;
            count++;
        }
    if (first < 0)
        return;
    const mel_variable *var = &m->variables[first];
    if (count > 1) {
        char line[160];
        snprintf(line, sizeof line, "\n\n%u instances; shown: `%s`", count, var->name);
        mdae_buf_puts(b, line);
    }
    const cJSON *item = rep ? report_item(rep, "variables", (uint32_t)first, var->name) : NULL;
    if (item != NULL) {
        mdae_buf_puts(b, "\n\nexists when `");
        mdae_buf_puts(b, str_of(item, "guard"));
        mdae_buf_puts(b, "`\n\nd (leading derivative): ");
        offsets_text(b, item);
    }
    /* as an equation's hover says overdetermined (issue 42) */
    const cJSON *d, *diags = rep ? cJSON_GetObjectItemCaseSensitive(rep, "diagnostics") : NULL;
    cJSON_ArrayForEach(d, diags)
    {
        if (strcmp(str_of(d, "kind"), "underdetermined") == 0 &&
            strcmp(str_of(d, "variable"), var->name) == 0) {
            const char *g = str_of(d, "guard");
            bool always = strcmp(g, "true") == 0;
            mdae_buf_puts(b, always ? "\n\n**underdetermined** in every mode (no equation "
                                      "determines it)"
                                    : "\n\n**underdetermined** (no equation determines it) "
                                      "in the singular modes where `");
            mdae_buf_puts(b, always ? "" : g);
            mdae_buf_puts(b, always ? "" : "`");
        }
    }
    mdae_buf_puts(b, "\n\nused by: ");
    uint32_t used = 0;
    for (uint32_t e = 0; e < m->n_equations; e++)
        for (uint32_t i = 0; i < m->equations[e].n_incs; i++)
            if (m->equations[e].incs[i].var == (uint32_t)first) {
                if (used < HOVER_LIST_MAX) {
                    mdae_buf_puts(b, used ? ", `" : "`");
                    mdae_buf_puts(b, m->equations[e].name);
                    mdae_buf_puts(b, "`");
                }
                used++;
            }
    if (used > HOVER_LIST_MAX) {
        char more[48];
        snprintf(more, sizeof more, " and %u more", used - HOVER_LIST_MAX);
        mdae_buf_puts(b, more);
    }
    if (used == 0)
        mdae_buf_puts(b, "no equation");
}

/* "true in N of the M valid modes", both exact (issue 41 item 2). */
static void hover_mode(wk_state *w, mdae_buf *b, long k)
{
    mdae_bn n_true = {0}, all = {0};
    if (w->result != NULL &&
        sa_result_count_mode_exact(w->result, (uint32_t)k, true, &n_true) == MDAE_OK &&
        sa_result_valid_modes_exact(w->result, &all) == MDAE_OK) {
        char *t = mdae_bn_dec(&n_true), *a = mdae_bn_dec(&all);
        if (t == NULL || a == NULL)
            wk_oom();
        mdae_buf_puts(b, "\n\ntrue in ");
        mdae_buf_puts(b, t);
        mdae_buf_puts(b, " of the ");
        mdae_buf_puts(b, a);
        mdae_buf_puts(b, " valid modes");
        mdae_free(t);
        mdae_free(a);
    }
    mdae_bn_free(&n_true);
    mdae_bn_free(&all);
}

static void hover_mode_symbol(wk_state *w, mdae_buf *b, const mel_symbol *sym);

/* A declared name at the cursor: its declaration, and what the analysis
 * says of it. */
static void hover_symbol(wk_state *w, mdae_buf *b, const cJSON *rep, const mel_symbol *sym)
{
    static const char *const kinds[] = {"unknown", "parameter", "integer", "mode variable",
                                        "component"};
    char *decl = source_text(w, &sym->where, 200);
    mdae_buf_puts(b, "**");
    mdae_buf_puts(b, kinds[sym->kind]);
    mdae_buf_puts(b, "** `");
    mdae_buf_puts(b, sym->name);
    mdae_buf_puts(b, "`\n\n```\n");
    mdae_buf_puts(b, decl);
    mdae_buf_puts(b, "\n```");
    mdae_free(decl);
    if (sym->kind == MEL_OL_UNKNOWN)
        hover_variable(w, b, rep, sym);
    if (sym->kind == MEL_OL_MODE && w->model != NULL)
        hover_mode_symbol(w, b, sym);
}

/* A declared mode variable (MEL `g : boolean`, Modelica `Boolean g`): its
 * defining equation (Modelica), its instances, its count of valid modes. */
static void hover_mode_symbol(wk_state *w, mdae_buf *b, const mel_symbol *sym)
{
    long first = -1;
    uint32_t count = 0;
    for (uint32_t k = 0; k < w->model->n_modes; k++)
        if (is_instance(w->model->modes[k].name, sym->name)) {
            first = first < 0 ? (long)k : first;
            count++;
        }
    /* Modelica: the equations that define it (`open = s < 0`) are kept
     * among the model's events (discrete equations) */
    size_t nl = strlen(sym->name);
    for (uint32_t k = 0; k < w->model->n_events; k++) {
        const mel_event *ev = &w->model->events[k];
        if (ev->kind == MEL_EV_DISCRETE && strncmp(ev->text, sym->name, nl) == 0 &&
            strncmp(ev->text + nl, " = ", 3) == 0) {
            mdae_buf_puts(b, "\n\ndefined by `");
            mdae_buf_puts(b, ev->text);
            mdae_buf_puts(b, "`");
        }
    }
    if (first < 0)
        return; /* a Boolean that selects nothing (Modelica) is no mode variable */
    if (count > 1) {
        char line[160];
        snprintf(line, sizeof line, "\n\n%u instances; shown: `%s`", count,
                 w->model->modes[first].name);
        mdae_buf_puts(b, line);
    }
    hover_mode(w, b, first);
}

/* The blocks that solve equation `name`, with their guards. */
static void hover_blocks(mdae_buf *b, const cJSON *rep, const char *name)
{
    const cJSON *blocks = cJSON_GetObjectItemCaseSensitive(rep, "blocks"), *bl;
    unsigned n = 0;
    mdae_buf_puts(b, "\n\nblocks:");
    cJSON_ArrayForEach(bl, blocks)
    {
        const cJSON *eqs = cJSON_GetObjectItemCaseSensitive(bl, "equations"), *e;
        bool in = false;
        cJSON_ArrayForEach(e, eqs) in = in || strcmp(str_of(e, "name"), name) == 0;
        if (!in)
            continue;
        if (n++ >= HOVER_LIST_MAX)
            continue;
        char head[64];
        snprintf(head, sizeof head, "\n- block %d when `",
                 cJSON_GetObjectItemCaseSensitive(bl, "id")->valueint);
        mdae_buf_puts(b, head);
        mdae_buf_puts(b, str_of(bl, "guard"));
        mdae_buf_puts(b, "`: ");
        int k = 0;
        cJSON_ArrayForEach(e, eqs)
        {
            mdae_buf_puts(b, k++ ? ", " : "");
            mdae_buf_puts(b, str_of(e, "name"));
        }
        mdae_buf_puts(b, " → ");
        k = 0;
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(bl, "unknowns"))
        {
            mdae_buf_puts(b, k++ ? ", " : "");
            mdae_buf_puts(b, str_of(e, "name"));
            int order = cJSON_GetObjectItemCaseSensitive(e, "order")->valueint;
            for (int o = 0; o < order && o < 8; o++)
                mdae_buf_puts(b, "'");
        }
    }
    if (n > HOVER_LIST_MAX) {
        char more[48];
        snprintf(more, sizeof more, "\n- and %u more", n - HOVER_LIST_MAX);
        mdae_buf_puts(b, more);
    }
    if (n == 0)
        mdae_buf_puts(b, " none (the equation is in no valid nonsingular mode)");
}

/* The innermost equation at the cursor (first instance), its count. */
static long equation_at(const mel_model *m, uint32_t off, uint32_t *count)
{
    long best = -1;
    for (uint32_t e = 0; e < m->n_equations; e++) {
        const mdae_range *r = &m->equations[e].where;
        if (!in_range(r, off))
            continue;
        if (best >= 0 && same_range(r, &m->equations[best].where)) {
            (*count)++;
            continue;
        }
        if (best < 0 || r->end.offset - r->start.offset <
                            m->equations[best].where.end.offset -
                                m->equations[best].where.start.offset) {
            best = (long)e;
            *count = 1;
        }
    }
    return best;
}

/* For each offset case c > 0 of equation e's report item, the equation
 * differentiated c times (engine/fx_body.h), in the model's language. */
static void hover_bodies(const wk_state *w, mdae_buf *b, const cJSON *item, long e)
{
    const char *lang = fx_body_syntax(w->model) == FX_SYNTAX_MODELICA ? "modelica" : "mel";
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(item, "offset"))
    {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(c, "value");
        if (!cJSON_IsNumber(v) || v->valueint <= 0)
            continue;
        char *body = NULL;
        int rc = fx_body_format(w->model, (uint32_t)e, (unsigned)v->valueint, &body);
        nomem_check(rc);
        char head[64];
        snprintf(head, sizeof head, "\n\ndifferentiated \u00d7%d", v->valueint);
        mdae_buf_puts(b, head);
        const char *guard = str_of(c, "guard");
        bool always = strcmp(guard, "true") == 0;
        mdae_buf_puts(b, always ? " in every mode" : " when `");
        mdae_buf_puts(b, always ? "" : guard);
        mdae_buf_puts(b, always ? "" : "`");
        if (body == NULL) {
            mdae_buf_puts(b, rc == MDAE_E_LIMIT ? ": too large to show" : "");
            continue;
        }
        mdae_buf_puts(b, ":\n```");
        mdae_buf_puts(b, lang);
        mdae_buf_puts(b, "\n");
        mdae_buf_puts(b, body);
        mdae_buf_puts(b, "\n```");
        mdae_free(body);
    }
}

static void hover_equation(wk_state *w, mdae_buf *b, const cJSON *rep, long e, uint32_t count)
{
    const mel_equation *eq = &w->model->equations[e];
    mdae_buf_puts(b, "**equation** `");
    mdae_buf_puts(b, eq->name);
    mdae_buf_puts(b, "`");
    if (count > 1) {
        char line[96];
        snprintf(line, sizeof line, " (first of %u instances)", count);
        mdae_buf_puts(b, line);
    }
    const cJSON *item = rep ? report_item(rep, "equations", (uint32_t)e, eq->name) : NULL;
    if (item == NULL) {
        mdae_buf_puts(b, "\n\nno analysis (the model does not analyse)");
        return;
    }
    mdae_buf_puts(b, "\n\nactive when `");
    mdae_buf_puts(b, str_of(item, "guard"));
    mdae_buf_puts(b, "`\n\nc (differentiated): ");
    offsets_text(b, item);
    hover_bodies(w, b, item, e);
    const cJSON *d;
    cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(rep, "diagnostics"))
    {
        if (strcmp(str_of(d, "kind"), "overdetermined") == 0 &&
            strcmp(str_of(d, "equation"), eq->name) == 0) {
            mdae_buf_puts(b, "\n\n**overdetermined** in the singular modes where `");
            mdae_buf_puts(b, str_of(d, "guard"));
            mdae_buf_puts(b, "`");
        }
    }
    hover_blocks(b, rep, eq->name);
}

static cJSON *m_hover(wk_state *w, const cJSON *id, const cJSON *params)
{
    uint32_t off;
    if (!position_param(w, params, &off))
        return rpc_response_result(id, cJSON_CreateNull());
    cJSON *err = NULL;
    const cJSON *rep = report(w, id, &err);
    cJSON_Delete(err); /* a model that does not analyse still has declarations */
    mdae_buf b = {0};
    const mel_outline *o = outline(w);
    const mel_occurrence *oc = o ? mel_outline_occurrence_at(o, off) : NULL;
    const mel_model *m = w->model;
    if (oc != NULL)
        hover_symbol(w, &b, rep, &o->symbols[oc->sym]);
    for (uint32_t k = 0; m != NULL && k < m->n_modes; k++) {
        /* a Modelica atom (`gear == 1`) around the cursor, even on a name */
        if (!in_range(&m->modes[k].where, off) ||
            (oc != NULL && strcmp(m->modes[k].name, o->symbols[oc->sym].name) == 0))
            continue;
        mdae_buf_puts(&b, oc ? "\n\n---\n\n**mode atom** `" : "**mode variable** `");
        mdae_buf_puts(&b, m->modes[k].name);
        mdae_buf_puts(&b, "`");
        hover_mode(w, &b, (long)k);
        if (oc == NULL)
            return rpc_response_result(id, hover_result(w, &b, &m->modes[k].where));
        break;
    }
    if (oc != NULL)
        return rpc_response_result(id, hover_result(w, &b, &oc->where));
    uint32_t count = 0;
    long e = m ? equation_at(m, off, &count) : -1;
    if (e < 0)
        return rpc_response_result(id, cJSON_CreateNull());
    hover_equation(w, &b, rep, e, count);
    return rpc_response_result(id, hover_result(w, &b, &m->equations[e].where));
}

/* ---- Document symbols -------------------------------------------------------------- */

static int symbol_kind(mel_ol_kind k)
{
    /* LSP SymbolKind */
    switch (k) {
    case MEL_OL_UNKNOWN: return 13;   /* Variable */
    case MEL_OL_PARAMETER: return 14; /* Constant */
    case MEL_OL_INTEGER: return 16;   /* Number */
    case MEL_OL_MODE: return 17;      /* Boolean */
    case MEL_OL_OTHER: return 8;      /* Field */
    case MEL_OL_EQUATION: return 12;  /* Function */
    case MEL_OL_INVARIANT: return 20; /* Key */
    case MEL_OL_IF: return 3;         /* Namespace */
    case MEL_OL_FOR: return 3;        /* Namespace */
    case MEL_OL_WHEN: return 24;      /* Event */
    case MEL_OL_CLASS: return 5;      /* Class */
    }
    return 13;
}

static cJSON *symbol_json(const wk_state *w, const mel_symbol *s)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", s->name[0] ? s->name : "?");
    if (w->stale > 0 || s->detail[0])
        add_as_of(w, o, "detail", s->detail);
    cJSON_AddNumberToObject(o, "kind", symbol_kind(s->kind));
    /* selectionRange must lie inside range (LSP DocumentSymbol) */
    mdae_range sel = s->name_where;
    if (sel.start.line == 0 || sel.start.offset < s->where.start.offset ||
        sel.end.offset > s->where.end.offset) {
        sel = s->where;
        sel.end = sel.start;
    }
    cJSON_AddItemToObject(o, "range", range_json(w, &s->where));
    cJSON_AddItemToObject(o, "selectionRange", range_json(w, &sel));
    return o;
}

static cJSON *m_symbols(wk_state *w, const cJSON *id, const cJSON *params)
{
    const mel_outline *o = outline(w);
    cJSON *top = cJSON_CreateArray();
    if (o == NULL)
        return rpc_response_result(id, top);
    cJSON **made = mdae_calloc(o->n_symbols + 1, sizeof *made);
    for (size_t k = 0; k < o->n_symbols; k++) {
        const mel_symbol *s = &o->symbols[k];
        made[k] = symbol_json(w, s);
        cJSON *into = top;
        if (s->parent >= 0 && (size_t)s->parent < k) { /* parents come first */
            into = cJSON_GetObjectItemCaseSensitive(made[s->parent], "children");
            if (into == NULL)
                into = cJSON_AddArrayToObject(made[s->parent], "children");
        }
        cJSON_AddItemToArray(into, made[k]);
    }
    mdae_free(made);
    return rpc_response_result(id, top);
}

/* The occurrence of a name at params' position, with the outline it belongs
 * to in *o; NULL when there is no outline, no valid position or no name. */
static const mel_occurrence *occurrence_param(wk_state *w, const cJSON *params,
                                              const mel_outline **o)
{
    uint32_t off;
    *o = outline(w);
    if (*o == NULL || !position_param(w, params, &off))
        return NULL;
    return mel_outline_occurrence_at(*o, off);
}

/* ---- Definition and references ------------------------------------------------------ */

static cJSON *m_definition(wk_state *w, const cJSON *id, const cJSON *params)
{
    const mel_outline *o;
    const mel_occurrence *oc = occurrence_param(w, params, &o);
    if (oc == NULL)
        return rpc_response_result(id, cJSON_CreateNull());
    cJSON *arr = cJSON_CreateArray();
    /* a name declared in both branches of an `if`: every declaration */
    const mel_symbol *s = &o->symbols[oc->sym];
    for (size_t k = 0; k < o->n_occurrences; k++) {
        const mel_occurrence *d = &o->occurrences[k];
        if (d->decl && strcmp(o->symbols[d->sym].name, s->name) == 0)
            cJSON_AddItemToArray(arr, location(w, &d->where));
    }
    return rpc_response_result(id, arr);
}

static cJSON *m_references(wk_state *w, const cJSON *id, const cJSON *params)
{
    const mel_outline *o;
    const mel_occurrence *oc = occurrence_param(w, params, &o);
    if (oc == NULL)
        return rpc_response_result(id, cJSON_CreateNull());
    const cJSON *ctx = cJSON_GetObjectItemCaseSensitive(params, "context");
    bool with_decl = !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(ctx, "includeDeclaration"));
    cJSON *arr = cJSON_CreateArray();
    uint32_t sym = oc->sym;
    for (size_t k = 0; k < o->n_occurrences; k++) {
        const mel_occurrence *r = &o->occurrences[k];
        if (r->sym == sym && (with_decl || !r->decl))
            cJSON_AddItemToArray(arr, location(w, &r->where));
    }
    return rpc_response_result(id, arr);
}

/* ---- Code lenses ---------------------------------------------------------------------- */

/* A lens at r titled `title`, whose command shows the first mode of
 * `cubes` (mdae.showMode [uri, mode]). */
static void add_lens(const wk_state *w, cJSON *arr, const mdae_range *r, const char *title,
                     const cJSON *cubes)
{
    cJSON *l = cJSON_CreateObject();
    cJSON_AddItemToObject(l, "range", range_json(w, r));
    cJSON *cmd = cJSON_AddObjectToObject(l, "command");
    add_as_of(w, cmd, "title", title);
    cJSON_AddStringToObject(cmd, "command", "mdae.showMode");
    cJSON *args = cJSON_AddArrayToObject(cmd, "arguments");
    cJSON_AddItemToArray(args, cJSON_CreateString(w->text_name ? w->text_name : ""));
    const cJSON *first = cJSON_GetArrayItem(cubes, 0);
    cJSON_AddItemToArray(args, first ? cJSON_Duplicate(first, true) : cJSON_CreateObject());
    cJSON_AddItemToArray(arr, l);
}

/* "differentiated ×1 when g" for each nonzero offset case of item; a
 * loop's instances share one source range: the first one speaks for them. */
static void lens_offsets(const wk_state *w, cJSON *arr, const mdae_range *r, const cJSON *item,
                         uint32_t count)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(item, "offset"))
    {
        int v = cJSON_GetObjectItemCaseSensitive(c, "value")->valueint;
        if (v <= 0)
            continue;
        const char *g = str_of(c, "guard");
        char inst[160] = "";
        if (count > 1)
            snprintf(inst, sizeof inst, " (%s, first of %u)", str_of(item, "name"), count);
        char *t = strcmp(g, "true") == 0 ? mdae_asprintf("differentiated ×%d%s", v, inst)
                                         : mdae_asprintf("differentiated ×%d when %s%s", v, g, inst);
        if (t == NULL)
            wk_oom();
        add_lens(w, arr, r, t, cJSON_GetObjectItemCaseSensitive(c, "cubes"));
        mdae_free(t);
    }
}

/* An equation's source range and index: sorted, a loop's instances come
 * together, first instance first. */
typedef struct eq_key {
    uint32_t start, end, index;
} eq_key;

static int cmp_eq_key(const void *pa, const void *pb)
{
    const eq_key *a = pa, *b = pb;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    if (a->end != b->end)
        return a->end < b->end ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

static cJSON *m_code_lens(wk_state *w, const cJSON *id, const cJSON *params)
{
    cJSON *err = NULL;
    const cJSON *rep = report(w, id, &err);
    cJSON_Delete(err);
    cJSON *arr = cJSON_CreateArray();
    if (rep == NULL)
        return rpc_response_result(id, arr);
    const mel_model *m = w->model;
    eq_key *keys = mdae_malloc(((size_t)m->n_equations + 1) * sizeof *keys);
    for (uint32_t e = 0; e < m->n_equations; e++)
        keys[e] = (eq_key){m->equations[e].where.start.offset, m->equations[e].where.end.offset, e};
    if (m->n_equations > 1)
        qsort(keys, m->n_equations, sizeof *keys, cmp_eq_key);
    /* the report's equations by index (a cJSON array is a list) */
    const cJSON **items = mdae_calloc((size_t)m->n_equations + 1, sizeof *items);
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(rep, "equations");
    it = it ? it->child : NULL;
    for (uint32_t e = 0; e < m->n_equations && it != NULL; e++, it = it->next)
        items[e] = it;
    for (uint32_t k = 0; k < m->n_equations;) {
        uint32_t count = 1;
        while (k + count < m->n_equations && keys[k + count].start == keys[k].start &&
               keys[k + count].end == keys[k].end)
            count++;
        const mel_equation *eq = &m->equations[keys[k].index];
        const cJSON *item = items[keys[k].index];
        if (item == NULL || strcmp(str_of(item, "name"), eq->name) != 0)
            item = report_item(rep, "equations", keys[k].index, eq->name);
        if (item != NULL)
            lens_offsets(w, arr, &eq->where, item, count);
        k += count;
    }
    mdae_free(items);
    mdae_free(keys);
    const cJSON *d;
    cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(rep, "diagnostics"))
    {
        if (strcmp(str_of(d, "kind"), "overdetermined") != 0)
            continue;
        long e = mel_model_find_equation(m, str_of(d, "equation"));
        if (e < 0)
            continue;
        char *t = mdae_asprintf("overdetermined when %s", str_of(d, "guard"));
        if (t == NULL)
            wk_oom();
        add_lens(w, arr, &m->equations[e].where, t, cJSON_GetObjectItemCaseSensitive(d, "cubes"));
        mdae_free(t);
    }
    return rpc_response_result(id, arr);
}

/* ---- Entry points: the loaded version, or the last that analysed -------------------- */

/* The loaded text does not analyse (nor load) at all. */
static bool unanalysable(wk_state *w) { return w->model == NULL || w->model_rc < 0; }

/* The loaded text has no outline (and so no names to point at). */
static bool no_outline(wk_state *w) { return outline(w) == NULL; }

cJSON *wk_m_hover(wk_state *w, const cJSON *id, const cJSON *params)
{
    return with_good(w, unanalysable(w), m_hover, id, params);
}

cJSON *wk_m_code_lens(wk_state *w, const cJSON *id, const cJSON *params)
{
    return with_good(w, unanalysable(w), m_code_lens, id, params);
}

cJSON *wk_m_symbols(wk_state *w, const cJSON *id, const cJSON *params)
{
    return with_good(w, no_outline(w), m_symbols, id, params);
}

cJSON *wk_m_definition(wk_state *w, const cJSON *id, const cJSON *params)
{
    return with_good(w, no_outline(w), m_definition, id, params);
}

cJSON *wk_m_references(wk_state *w, const cJSON *id, const cJSON *params)
{
    return with_good(w, no_outline(w), m_references, id, params);
}
