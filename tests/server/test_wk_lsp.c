/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/server/test_wk_lsp.c -- the editor's questions (issue 15) over the
 * LSP framing, against a real mdaed and its workers: capabilities and the
 * position encoding, hover, documentSymbol, definition, references, code
 * lenses and mdae.showMode on MEL and Modelica models, positions after
 * multi-byte characters in both encodings, didSave and
 * didChangeConfiguration; the diagnostics of mode changes (guard
 * fixpoints, rejected changes grouped and capped, models past the
 * enumeration's limits, the modeChanges setting).
 */
#include "srv_test.h"

typedef struct editor {
    srv_proc p;
    client c;
    int next_id;
    char uri[64];
} editor;

/* Start mdaed, initialize (offering "utf-8" when utf8, with
 * initializationOptions `opts` when not NULL: taken), open `text` as `uri`
 * with languageId `lang`. The capabilities go to *caps when not NULL. */
static void ed_open_opts(editor *e, const char *top, bool utf8, const char *uri, const char *lang,
                         const char *text, cJSON **caps, cJSON *opts)
{
    memset(e, 0, sizeof *e);
    e->next_id = 1;
    snprintf(e->uri, sizeof e->uri, "%s", uri);
    srv_start(&e->p, "", top);
    cl_connect(&e->c, &e->p);
    cJSON *ip = cJSON_CreateObject();
    if (utf8) {
        cJSON *encs = cJSON_CreateArray();
        cJSON_AddItemToArray(encs, cJSON_CreateString("utf-8"));
        cJSON_AddItemToArray(encs, cJSON_CreateString("utf-16"));
        cJSON *gen = cJSON_AddObjectToObject(cJSON_AddObjectToObject(ip, "capabilities"), "general");
        cJSON_AddItemToObject(gen, "positionEncodings", encs);
    }
    if (opts != NULL)
        cJSON_AddItemToObject(ip, "initializationOptions", opts);
    cl_lsp_send(&e->c, "initialize", e->next_id++, ip);
    cJSON *r = cl_lsp_json(&e->c);
    if (caps != NULL)
        *caps = cJSON_DetachItemFromObject(cJSON_GetObjectItem(r, "result"), "capabilities");
    cJSON_Delete(r);
    cl_lsp_send(&e->c, "initialized", -1, cJSON_CreateObject());
    cl_lsp_did_open(&e->c, uri, lang, text);
}

static void ed_open(editor *e, const char *top, bool utf8, const char *uri, const char *lang,
                    const char *text, cJSON **caps)
{
    ed_open_opts(e, top, utf8, uri, lang, text, caps, NULL);
}

static void ed_close(editor *e)
{
    cl_lsp_shutdown(&e->c, e->next_id++);
    cl_close(&e->c);
    srv_stop(&e->p);
}

/* Send a request and return its result (owned), skipping notifications. */
static cJSON *ed_ask(editor *e, const char *method, cJSON *params)
{
    int id = e->next_id++;
    cl_lsp_send(&e->c, method, id, params);
    for (;;) {
        cJSON *m = cl_lsp_json(&e->c);
        const cJSON *mid = cJSON_GetObjectItem(m, "id");
        if (cJSON_IsNumber(mid) && mid->valueint == id) {
            cr_assert_null(cJSON_GetObjectItem(m, "error"), "%s failed", method);
            cJSON *r = cJSON_DetachItemFromObject(m, "result");
            cJSON_Delete(m);
            return r;
        }
        cJSON_Delete(m);
    }
}

static cJSON *doc_params(const editor *e)
{
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(cJSON_AddObjectToObject(p, "textDocument"), "uri", e->uri);
    return p;
}

static cJSON *at(const editor *e, int line, int character)
{
    cJSON *p = doc_params(e);
    cJSON *pos = cJSON_AddObjectToObject(p, "position");
    cJSON_AddNumberToObject(pos, "line", line);
    cJSON_AddNumberToObject(pos, "character", character);
    return p;
}

/* The hover's markdown at (line, character), owned; NULL for a null hover. */
static char *ed_hover(editor *e, int line, int character)
{
    cJSON *r = ed_ask(e, "textDocument/hover", at(e, line, character));
    const cJSON *v = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "contents"), "value");
    char *s = cJSON_IsString(v) ? strdup(v->valuestring) : NULL;
    cJSON_Delete(r);
    return s;
}

static int num(const cJSON *o, const char *path1, const char *path2)
{
    return cJSON_GetObjectItem(cJSON_GetObjectItem(o, path1), path2)->valueint;
}

#define assert_has(hay, needle) \
    cr_assert((hay) != NULL && strstr((hay), (needle)) != NULL, "no \"%s\" in:\n%s", (needle), \
              (hay) ? (hay) : "(null)")

/* ---- Capabilities ------------------------------------------------------------------- */

Test(wk_lsp, announces_what_it_implements_and_utf16_unless_utf8_is_offered)
{
    editor e;
    cJSON *caps = NULL;
    ed_open(&e, "", false, "file:///a.mel", "mel", "x : real; e : equation der(x) = 1;", &caps);
    cr_assert_str_eq(cJSON_GetObjectItem(caps, "positionEncoding")->valuestring, "utf-16");
    const char *want[] = {"hoverProvider", "documentSymbolProvider", "definitionProvider",
                          "referencesProvider", "codeLensProvider", "executeCommandProvider"};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++)
        cr_assert_not_null(cJSON_GetObjectItem(caps, want[k]), "%s", want[k]);
    cr_assert_null(cJSON_GetObjectItem(caps, "completionProvider"), "not implemented");
    cr_assert_null(cJSON_GetObjectItem(caps, "renameProvider"), "not implemented");
    const cJSON *cmds = cJSON_GetObjectItem(cJSON_GetObjectItem(caps, "executeCommandProvider"),
                                            "commands");
    cr_assert_str_eq(cJSON_GetArrayItem(cmds, 0)->valuestring, "mdae.showMode");
    cJSON_Delete(caps);
    ed_close(&e);

    ed_open(&e, "", true, "file:///a.mel", "mel", "x : real; e : equation der(x) = 1;", &caps);
    cr_assert_str_eq(cJSON_GetObjectItem(caps, "positionEncoding")->valuestring, "utf-8");
    cJSON_Delete(caps);
    ed_close(&e);
}

/* ---- MEL: RLDC2 ----------------------------------------------------------------------- */
/* tests/models/rldc2.mel, 0-based lines: 28 `i1 : real;`, 43 `g1 : boolean =
 * ...`, 46 `K1 : equation 0 = i1 + i2 + j1 + j2;`, 55 `R2 : equation x2 =
 * pR2 * j2;`, 56 `S1 : equation s1 = if g1 then i1 else -u1;`. */

Test(wk_lsp, hover_on_an_equation_gives_its_guard_offsets_and_blocks)
{
    editor e;
    char *text = t_model("rldc2.mel");
    ed_open(&e, "", false, "file:///rldc2.mel", "mel", text, NULL);
    char *h = ed_hover(&e, 56, 0);
    assert_has(h, "**equation** `S1`");
    assert_has(h, "active when `true`");
    assert_has(h, "c (differentiated): 0 in every mode");
    assert_has(h, "when `g1`: S1 → s1");
    assert_has(h, "when `!g1`: S1 → s1");
    free(h);
    h = ed_hover(&e, 46, 0);
    assert_has(h, "c (differentiated): 0 when `g1 | g2`; 1 when `!g1 & !g2`");
    free(h);
    free(text);
    ed_close(&e);
}

/* Issue 38: the body differentiated, for each offset c > 0, in the model's
 * language. */
Test(wk_lsp, hover_on_a_differentiated_equation_gives_its_differentiated_body)
{
    editor e;
    char *text = t_model("rldc2.mel");
    ed_open(&e, "", false, "file:///rldc2.mel", "mel", text, NULL);
    char *h = ed_hover(&e, 46, 0); /* K1 : equation 0 = i1 + i2 + j1 + j2; */
    assert_has(h, "differentiated ×1 when `!g1 & !g2`:\n```mel\n"
                  "0 = der(i1) + der(i2) + der(j1) + der(j2)\n```");
    free(h);
    h = ed_hover(&e, 56, 0); /* S1, never differentiated */
    cr_assert_null(strstr(h, "differentiated ×"), "%s", h);
    free(h);
    free(text);
    ed_close(&e);
}

Test(wk_lsp, modelica_hover_gives_the_differentiated_body_in_modelica)
{
    editor e;
    char *text = t_model("rldc2_cc.mo");
    ed_open(&e, "", false, "file:///rldc2_cc.mo", "modelica", text, NULL);
    char *h = ed_hover(&e, 26, 4); /* 0 = j1+i1+i2+j2; // (K1) */
    assert_has(h, "differentiated ×1 when `!g1 & !g2`:\n```modelica\n"
                  "0 = der(j1) + der(i1) + der(i2) + der(j2)\n```");
    free(h);
    free(text);
    ed_close(&e);
}

/* Issue 41 item 2: a mode variable's counts exact past 2^53 (the brake at
 * N = 60: open[i] is true in 2^59 of the 2^60 valid modes). */
Test(wk_lsp, hover_counts_modes_exactly)
{
    editor e;
    char *text = t_model("brake.mel");
    char *n = strstr(text, "N : integer = 3;");
    cr_assert_not_null(n);
    memcpy(n, "N : integer =60;", 16);
    ed_open(&e, "", false, "file:///brake.mel", "mel", text, NULL);
    char *h = ed_hover(&e, 104, 5); /* open[i] in `if open[i] then` */
    cr_assert_not_null(h);
    assert_has(h, "true in 576460752303423488 of the 1152921504606846976 valid modes");
    free(h);
    ed_close(&e);
    free(text);
}

Test(wk_lsp, hover_on_names_gives_declaration_offsets_uses_and_mode_counts)
{
    editor e;
    char *text = t_model("rldc2.mel");
    ed_open(&e, "", false, "file:///rldc2.mel", "mel", text, NULL);
    char *h = ed_hover(&e, 28, 1); /* i1, declared */
    assert_has(h, "**unknown** `i1`");
    assert_has(h, "i1 : real");
    assert_has(h, "d (leading derivative): 0 when `g1 | g2`; 1 when `!g1 & !g2`");
    assert_has(h, "used by: `K1`, `C1`, `S1`, `Z1`");
    free(h);
    h = ed_hover(&e, 56, 23); /* g1 in S1 */
    assert_has(h, "**mode variable** `g1`");
    assert_has(h, "g1 : boolean = last(s1) >= 0");
    assert_has(h, "true in 2 of the 4 valid modes");
    free(h);
    h = ed_hover(&e, 55, 20); /* pR2 */
    assert_has(h, "**parameter** `pR2`");
    assert_has(h, "pR2 : real = 15.0");
    free(h);
    cr_assert_null(ed_hover(&e, 3, 5), "a comment: nothing to say");
    free(text);
    ed_close(&e);
}

Test(wk_lsp, definition_and_references_of_a_mode_variable)
{
    editor e;
    char *text = t_model("rldc2.mel");
    ed_open(&e, "", false, "file:///rldc2.mel", "mel", text, NULL);
    cJSON *d = ed_ask(&e, "textDocument/definition", at(&e, 56, 22));
    cr_assert_eq(cJSON_GetArraySize(d), 1);
    const cJSON *loc = cJSON_GetArrayItem(d, 0);
    cr_assert_str_eq(cJSON_GetObjectItem(loc, "uri")->valuestring, "file:///rldc2.mel");
    cr_assert_eq(num(cJSON_GetObjectItem(loc, "range"), "start", "line"), 43);
    cr_assert_eq(num(cJSON_GetObjectItem(loc, "range"), "end", "character"), 2);
    cJSON_Delete(d);

    cJSON *p = at(&e, 43, 0);
    cJSON_AddBoolToObject(cJSON_AddObjectToObject(p, "context"), "includeDeclaration", false);
    cJSON *refs = ed_ask(&e, "textDocument/references", p);
    cr_assert_eq(cJSON_GetArraySize(refs), 2, "S1 and Z1");
    cr_assert_eq(num(cJSON_GetObjectItem(cJSON_GetArrayItem(refs, 0), "range"), "start", "line"),
                 56);
    cr_assert_eq(num(cJSON_GetObjectItem(cJSON_GetArrayItem(refs, 1), "range"), "start", "line"),
                 58);
    cJSON_Delete(refs);
    free(text);
    ed_close(&e);
}

Test(wk_lsp, code_lenses_say_where_equations_are_differentiated_and_show_that_mode)
{
    editor e;
    char *text = t_model("rldc2.mel");
    ed_open(&e, "", false, "file:///rldc2.mel", "mel", text, NULL);
    cJSON *lenses = ed_ask(&e, "textDocument/codeLens", doc_params(&e));
    cr_assert_eq(cJSON_GetArraySize(lenses), 4, "K1, K3, Z1, Z2");
    const cJSON *first = cJSON_GetArrayItem(lenses, 0);
    cr_assert_eq(num(cJSON_GetObjectItem(first, "range"), "start", "line"), 46);
    const cJSON *cmd = cJSON_GetObjectItem(first, "command");
    cr_assert_str_eq(cJSON_GetObjectItem(cmd, "title")->valuestring,
                     "differentiated ×1 when !g1 & !g2");
    cr_assert_str_eq(cJSON_GetObjectItem(cmd, "command")->valuestring, "mdae.showMode");

    /* the lens's command, as the editor runs it */
    cJSON *xp = cJSON_CreateObject();
    cJSON_AddStringToObject(xp, "command", "mdae.showMode");
    cJSON_AddItemToObject(xp, "arguments",
                          cJSON_Duplicate(cJSON_GetObjectItem(cmd, "arguments"), true));
    cJSON *mode = ed_ask(&e, "workspace/executeCommand", xp);
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(mode, "valid")));
    cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(mode, "mode"), "g1")));
    const cJSON *eq;
    cJSON_ArrayForEach(eq, cJSON_GetObjectItem(mode, "equations"))
    {
        if (strcmp(cJSON_GetObjectItem(eq, "name")->valuestring, "K1") == 0)
            cr_assert_eq(cJSON_GetObjectItem(eq, "offset")->valueint, 1, "as the lens says");
    }
    cJSON_Delete(mode);
    cJSON_Delete(lenses);
    free(text);
    ed_close(&e);
}

Test(wk_lsp, code_lenses_mark_overdetermined_equations)
{
    editor e;
    char *text = t_model("singular_simple.mel");
    ed_open(&e, "", false, "file:///s.mel", "mel", text, NULL);
    free(text);
    cJSON *lenses = ed_ask(&e, "textDocument/codeLens", doc_params(&e));
    bool over = false;
    const cJSON *l;
    cJSON_ArrayForEach(l, lenses)
    {
        const char *t = cJSON_GetObjectItem(cJSON_GetObjectItem(l, "command"), "title")->valuestring;
        if (strncmp(t, "overdetermined when ", 20) == 0)
            over = true;
    }
    cr_assert(over, "a lens on the overdetermined equation");
    cJSON_Delete(lenses);
    ed_close(&e);
}

/* ---- MEL: the brake's outline ----------------------------------------------------------- */

static const cJSON *child_named(const cJSON *arr, const char *name)
{
    const cJSON *s;
    cJSON_ArrayForEach(s, arr)
    {
        if (strcmp(cJSON_GetObjectItem(s, "name")->valuestring, name) == 0)
            return s;
    }
    return NULL;
}

Test(wk_lsp, outline_nests_loops_and_conditional_statements)
{
    editor e;
    char *text = t_model("brake.mel");
    ed_open(&e, "", false, "file:///brake.mel", "mel", text, NULL);
    cJSON *syms = ed_ask(&e, "textDocument/documentSymbol", doc_params(&e));
    const cJSON *n = child_named(syms, "N");
    cr_assert_not_null(n);
    cr_assert_eq(cJSON_GetObjectItem(n, "kind")->valueint, 16, "an integer is a Number");
    cr_assert_eq(cJSON_GetObjectItem(child_named(syms, "V"), "kind")->valueint, 14,
                 "a parameter is a Constant");
    cr_assert_eq(cJSON_GetObjectItem(child_named(syms, "t"), "kind")->valueint, 13);
    cr_assert_eq(cJSON_GetObjectItem(child_named(syms, "dt"), "kind")->valueint, 12);
    /* the third foreach holds the equations, the mode variable open and the
     * conditional statement with both branches */
    const cJSON *loop = NULL, *s;
    cJSON_ArrayForEach(s, syms)
    {
        if (child_named(cJSON_GetObjectItem(s, "children"), "me1") != NULL)
            loop = s;
    }
    cr_assert_not_null(loop, "me1 inside a foreach");
    cr_assert_str_eq(cJSON_GetObjectItem(loop, "name")->valuestring, "foreach i");
    const cJSON *kids = cJSON_GetObjectItem(loop, "children");
    cr_assert_eq(cJSON_GetObjectItem(child_named(kids, "open"), "kind")->valueint, 17);
    const cJSON *cond = child_named(kids, "if open[i]");
    cr_assert_not_null(cond);
    const cJSON *ck = cJSON_GetObjectItem(cond, "children");
    cr_assert_not_null(child_named(ck, "ve1"));
    const cJSON *els = child_named(ck, "else");
    cr_assert_not_null(child_named(cJSON_GetObjectItem(els, "children"), "ve2"));
    cJSON_Delete(syms);
    free(text);
    ed_close(&e);
}

/* ---- Modelica -------------------------------------------------------------------------- */
/* tests/models/rldc2_cc.mo, 0-based lines: 9 `Real i1;`, 23 `Boolean
 * g1(start=false);`, 26 `0 = j1+i1+i2+j2; // (K1)`, 36 `s1 = if g1 then i1
 * else -u1; // (S1)`. */

Test(wk_lsp, modelica_hover_definition_symbols_and_lenses)
{
    editor e;
    char *text = t_model("rldc2_cc.mo");
    ed_open(&e, "", false, "file:///rldc2_cc.mo", "modelica", text, NULL);
    char *h = ed_hover(&e, 36, 18); /* i1 in S1 */
    assert_has(h, "**unknown** `i1`");
    assert_has(h, "Real i1");
    assert_has(h, "d (leading derivative): 0 when `g1 | g2`; 1 when `!g1 & !g2`");
    free(h);
    h = ed_hover(&e, 36, 2); /* s1 = ...: the name s1 */
    assert_has(h, "**unknown** `s1`");
    free(h);
    h = ed_hover(&e, 36, 6); /* `if`: the equation S1 */
    assert_has(h, "**equation** `S1`");
    free(h);

    cJSON *d = ed_ask(&e, "textDocument/definition", at(&e, 36, 10)); /* g1 */
    const cJSON *r = cJSON_GetObjectItem(cJSON_GetArrayItem(d, 0), "range");
    cr_assert_eq(num(r, "start", "line"), 23);
    cr_assert_eq(num(r, "start", "character"), 10);
    cJSON_Delete(d);

    cJSON *syms = ed_ask(&e, "textDocument/documentSymbol", doc_params(&e));
    const cJSON *model = cJSON_GetArrayItem(syms, 0);
    cr_assert_str_eq(cJSON_GetObjectItem(model, "name")->valuestring, "RLDC2_CC");
    cr_assert_eq(cJSON_GetObjectItem(model, "kind")->valueint, 5);
    const cJSON *kids = cJSON_GetObjectItem(model, "children");
    cr_assert_eq(cJSON_GetObjectItem(child_named(kids, "R1"), "kind")->valueint, 14,
                 "parameter Real R1");
    cr_assert_not_null(child_named(kids, "S1"), "the label comment names the equation");
    cr_assert_eq(cJSON_GetObjectItem(child_named(kids, "g1"), "kind")->valueint, 17);
    cJSON_Delete(syms);

    cJSON *lenses = ed_ask(&e, "textDocument/codeLens", doc_params(&e));
    cr_assert_eq(cJSON_GetArraySize(lenses), 4);
    const cJSON *cmd = cJSON_GetObjectItem(cJSON_GetArrayItem(lenses, 0), "command");
    cr_assert_str_eq(cJSON_GetObjectItem(cmd, "title")->valuestring,
                     "differentiated ×1 when !g1 & !g2");
    cJSON_Delete(lenses);
    free(text);
    ed_close(&e);
}

Test(wk_lsp, modelica_hover_on_a_mode_variable_or_relation_gives_its_definition_and_count)
{
    editor e;
    char *text = t_model("bm_modes.bmo");
    ed_open(&e, "", false, "file:///bm_modes.bmo", "modelica", text, NULL);
    /* line 26: `    'y' = if 'gear' == 1 then 'x' elseif ...`: `==` */
    char *h = ed_hover(&e, 26, 20);
    assert_has(h, "**mode variable** `gear == 1`");
    assert_has(h, "true in 1 of the 2 valid modes");
    free(h);
    /* line 15: `    Boolean 'open';`: its defining equation, its count */
    h = ed_hover(&e, 15, 14);
    assert_has(h, "**mode variable** `open`");
    assert_has(h, "defined by `open = s < 0.0`");
    assert_has(h, "true in 1 of the 2 valid modes");
    free(h);
    free(text);
    ed_close(&e);
}

/* ---- Positions after multi-byte characters ------------------------------------------------ */
/* Line 1 is a comment holding e-acute and an emoji, then `y : real;`: y is
 * UTF-16 unit 10 (e-acute is one unit, the emoji two) and UTF-8 byte 13. */
static const char mb_text[] = "x : real;\n/* \xc3\xa9\xf0\x9f\x98\x80 */ y : real;\n"
                              "e1 : equation der(x) = y;\ne2 : equation y = x;\n";

static void multibyte(bool utf8, int col)
{
    editor e;
    ed_open(&e, "", utf8, "file:///mb.mel", "mel", mb_text, NULL);
    char *h = ed_hover(&e, 1, col);
    assert_has(h, "**unknown** `y`");
    free(h);
    cJSON *d = ed_ask(&e, "textDocument/definition", at(&e, 2, 23)); /* y in e1 */
    const cJSON *r = cJSON_GetObjectItem(cJSON_GetArrayItem(d, 0), "range");
    cr_assert_eq(num(r, "start", "line"), 1);
    cr_assert_eq(num(r, "start", "character"), col);
    cr_assert_eq(num(r, "end", "character"), col + 1);
    cJSON_Delete(d);
    /* the character before y is a space: no hover of y there */
    h = ed_hover(&e, 1, col - 2);
    cr_assert(h == NULL || strstr(h, "`y`") == NULL);
    free(h);
    ed_close(&e);
}

Test(wk_lsp, positions_after_multibyte_characters_in_utf16)
{
    multibyte(false, 10);
}

Test(wk_lsp, positions_after_multibyte_characters_in_utf8)
{
    multibyte(true, 13);
}

/* ---- Notifications ---------------------------------------------------------------------- */

/* With a debounce of a minute, a change is checked when saved (didSave),
 * and a question after a change answers about the changed text. */
Test(wk_lsp, did_save_checks_at_once_and_questions_see_the_latest_text)
{
    editor e;
    ed_open(&e, "", false, "file:///d.mel", "mel", "x : real;\ne : equation der(x) = 1;\n", NULL);
    cJSON *cfg = cJSON_CreateObject();
    cJSON_AddNumberToObject(cJSON_AddObjectToObject(cJSON_AddObjectToObject(cfg, "settings"), "mdae"),
                            "debounceMs", 60000);
    cl_lsp_send(&e.c, "workspace/didChangeConfiguration", -1, cfg);
    cJSON *p = doc_params(&e);
    cJSON_AddNumberToObject(cJSON_GetObjectItem(p, "textDocument"), "version", 2);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(p, "contentChanges"),
                         t_range_edit(0, 0, 0, 1, "zz"));
    cl_lsp_send(&e.c, "textDocument/didChange", -1, p);
    cl_lsp_send(&e.c, "textDocument/didSave", -1, doc_params(&e));
    for (;;) { /* version 2 is published long before a minute */
        cJSON *m = cl_lsp_json(&e.c);
        const cJSON *v = cJSON_GetObjectItem(cJSON_GetObjectItem(m, "params"), "version");
        bool done = cJSON_IsNumber(v) && v->valueint == 2;
        if (done)
            cr_assert_gt(cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(m, "params"),
                                                                "diagnostics")),
                         0, "x is no longer declared");
        cJSON_Delete(m);
        if (done)
            break;
    }
    /* another change, then a question at once: it sees zz */
    p = doc_params(&e);
    cJSON_AddNumberToObject(cJSON_GetObjectItem(p, "textDocument"), "version", 3);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(p, "contentChanges"),
                         t_range_edit(1, 17, 1, 18, "zz"));
    cl_lsp_send(&e.c, "textDocument/didChange", -1, p);
    char *h = ed_hover(&e, 1, 18);
    assert_has(h, "**unknown** `zz`");
    free(h);
    ed_close(&e);
}

/* ---- Mode changes (issue 13 item 7) -------------------------------------------------- */

/* The next publishDiagnostics of the document (owned message in *msg). */
static cJSON *ed_diagnostics(editor *e, cJSON **msg)
{
    for (;;) {
        cJSON *m = cl_lsp_json(&e->c);
        const cJSON *meth = cJSON_GetObjectItem(m, "method");
        if (cJSON_IsString(meth) && strcmp(meth->valuestring, "textDocument/publishDiagnostics") == 0) {
            *msg = m;
            return cJSON_GetObjectItem(cJSON_GetObjectItem(m, "params"), "diagnostics");
        }
        cJSON_Delete(m);
    }
}

/* The complete diagnostics of the next check (issue 36 item 4): its second
 * publication, the first being the analysis's alone. */
static cJSON *ed_checked(editor *e, cJSON **msg)
{
    cJSON *first = NULL;
    ed_diagnostics(e, &first);
    cJSON_Delete(first);
    return ed_diagnostics(e, msg);
}

/* Issue 42: a variable's hover says when it is underdetermined, as an
 * equation's says overdetermined; the diagnostic says "when FORMULA" or "in
 * every mode", never "in the modes where true". tests/models/singular_simple.mel,
 * 0-based lines: 13 `x : real;`, 14 `y : real;`. */
Test(wk_lsp, hover_on_a_variable_says_where_it_is_underdetermined)
{
    editor e;
    char *text = t_model("singular_simple.mel");
    ed_open(&e, "", false, "file:///singular_simple.mel", "mel", text, NULL);
    char *h = ed_hover(&e, 14, 0); /* y */
    assert_has(h, "**unknown** `y`");
    assert_has(h, "**underdetermined** (no equation determines it) in the singular modes "
                  "where `!g | h`");
    free(h);
    free(text);
    ed_close(&e);
    ed_open(&e, "", false, "file:///u.mel", "mel", "x : real;\ny : real;\ne : equation x = 1;\n",
            NULL);
    cJSON *msg = NULL;
    cJSON *diags = ed_diagnostics(&e, &msg); /* no mode variables: one publication */
    bool found = false;
    const cJSON *d;
    cJSON_ArrayForEach(d, diags)
    {
        const char *m = cJSON_GetObjectItem(d, "message")->valuestring;
        if (strstr(m, "structurally singular") != NULL) {
            found = true;
            assert_has(m, "variable y is underdetermined in every mode");
        }
    }
    cr_assert(found, "the singular diagnostic");
    cJSON_Delete(msg);
    h = ed_hover(&e, 1, 0);
    assert_has(h, "**underdetermined** in every mode");
    free(h);
    ed_close(&e);
}

/* Remove from diags the warnings of what single-mode tools do (issue 38:
 * wk_approx.c), for the tests about the others. */
static void drop_single_mode(cJSON *diags)
{
    for (int k = cJSON_GetArraySize(diags) - 1; k >= 0; k--) {
        const cJSON *m = cJSON_GetObjectItem(cJSON_GetArrayItem(diags, k), "message");
        if (cJSON_IsString(m) &&
            strncmp(m->valuestring, "a single-mode analysis, as Modelica tools do, ",
                    strlen("a single-mode analysis, as Modelica tools do, ")) == 0)
            cJSON_DeleteItemFromArray(diags, k);
    }
}

/* The diagnostics whose message contains `needle`: how many, the first in
 * *first (borrowed, may be NULL). */
static int diags_with(const cJSON *diags, const char *needle, const cJSON **first)
{
    int n = 0;
    const cJSON *d;
    if (first != NULL)
        *first = NULL;
    cJSON_ArrayForEach(d, diags)
    {
        const cJSON *m = cJSON_GetObjectItem(d, "message");
        if (cJSON_IsString(m) && strstr(m->valuestring, needle) != NULL) {
            if (n++ == 0 && first != NULL)
                *first = d;
        }
    }
    return n;
}

static int start_of(const cJSON *d, const char *what)
{
    return cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(d, "range"), "start"), what)
        ->valueint;
}

Test(wk_lsp, rejected_mode_changes_are_warnings_on_what_is_underdetermined_grouped)
{
    editor e;
    ed_open(&e, "", false, "file:///two.mel", "mel", T_TWO_MODES, NULL);
    cJSON *msg = NULL;
    cJSON *diags = ed_checked(&e, &msg);
    const cJSON *d = NULL;
    cr_assert_eq(diags_with(diags, "is rejected", &d), 1, "%s", cJSON_PrintUnformatted(diags));
    cr_assert_str_eq(cJSON_GetObjectItem(d, "message")->valuestring,
                     "mode change p=T h=F \u2192 p=F h=F is rejected: restart instant 0 is "
                     "underdetermined (x, x\u2022) (and 3 more changes for the same reason)");
    cr_assert_eq(cJSON_GetObjectItem(d, "severity")->valueint, 2, "a warning");
    cr_assert_eq(start_of(d, "line"), 0, "on x's declaration");
    cr_assert_eq(start_of(d, "character"), 0);
    cr_assert_eq(diags_with(diags, "guard fixpoint", NULL), 0);
    cJSON_Delete(msg);
    ed_close(&e);
}

/* Issue 13 item 5: an event no difference array determines is reported at
 * its when-clause; with the impact law nothing is rejected. */
Test(wk_lsp, an_underdetermined_transient_mode_is_a_warning_on_its_when)
{
    char *text = t_model("cup_and_ball_elastic.mel");
    editor e;
    ed_open(&e, "", false, "file:///cup_and_ball_elastic.mel", "mel", text, NULL);
    cJSON *msg = NULL;
    cJSON *diags = ed_checked(&e, &msg);
    const cJSON *d = NULL;
    cr_assert_eq(diags_with(diags, "is rejected", &d), 1, "%s", cJSON_PrintUnformatted(diags));
    cr_assert_str_eq(cJSON_GetObjectItem(d, "message")->valuestring,
                     "mode change gamma=F \u2192 gamma=T is rejected: the transient mode is "
                     "underdetermined at the event (u\u2022, v\u2022, lambda, s): add equations "
                     "to the when-body, e.g. an impact law");
    cr_assert_eq(start_of(d, "line"), 31, "32:1, the when");
    cr_assert_eq(start_of(d, "character"), 0);
    cJSON_Delete(msg);
    ed_close(&e);
    free(text);
    text = t_model("cup_and_ball_elastic_impact.mel");
    ed_open(&e, "", false, "file:///cup_and_ball_elastic_impact.mel", "mel", text, NULL);
    diags = ed_checked(&e, &msg);
    cr_assert_eq(diags_with(diags, "is rejected", NULL), 0, "%s", cJSON_PrintUnformatted(diags));
    cJSON_Delete(msg);
    ed_close(&e);
    free(text);
}

Test(wk_lsp, guard_fixpoints_are_errors_on_the_definition_and_hide_the_rejected_changes)
{
    char *text = t_model("water_tank.mel");
    editor e;
    ed_open(&e, "", false, "file:///water_tank.mel", "mel", text, NULL);
    cJSON *msg = NULL;
    cJSON *diags = ed_checked(&e, &msg);
    const cJSON *d = NULL;
    cr_assert_eq(diags_with(diags, "guard fixpoint", &d), 2, "bh and bl: %s",
                 cJSON_PrintUnformatted(diags));
    assert_has(cJSON_GetObjectItem(d, "message")->valuestring, "mode variable 'bh'");
    cr_assert_eq(cJSON_GetObjectItem(d, "severity")->valueint, 2, "a warning");
    cr_assert_eq(start_of(d, "line"), 35, "36:16, the use of sh in bh's definition");
    cr_assert_eq(start_of(d, "character"), 15);
    cr_assert_eq(diags_with(diags, "is rejected", NULL), 0, "every change is refused for that");
    cJSON_Delete(msg);
    ed_close(&e);
    free(text);
}

Test(wk_lsp, rejected_mode_changes_are_capped_with_a_summary)
{
    /* five independent copies: 781 of 992 changes rejected, for 31 reasons */
    char text[2048];
    t_copies_model(text, sizeof text, 5);
    editor e;
    ed_open(&e, "", false, "file:///five.mel", "mel", text, NULL);
    cJSON *msg = NULL;
    cJSON *diags = ed_checked(&e, &msg);
    cr_assert_eq(diags_with(diags, "is rejected", NULL), 20, "%s", cJSON_PrintUnformatted(diags));
    const cJSON *d = NULL;
    cr_assert_eq(diags_with(diags, "more rejected changes (mdae modechange /five.mel --all)", &d), 1,
                 "%s", cJSON_PrintUnformatted(diags));
    /* the groups and the summary count every rejected change once */
    int counted = atoi(cJSON_GetObjectItem(d, "message")->valuestring + strlen("\u2026 and "));
    const cJSON *g;
    cJSON_ArrayForEach(g, diags)
    {
        const char *m = cJSON_GetObjectItem(g, "message")->valuestring;
        const char *more = strstr(m, "(and ");
        if (strstr(m, "is rejected") != NULL)
            counted += 1 + (more ? atoi(more + 5) : 0);
    }
    cr_assert_eq(counted, 781);
    cJSON_Delete(msg);
    ed_close(&e);
}

Test(wk_lsp, a_model_past_the_enumeration_limits_gets_one_hint)
{
    char text[1024];
    t_wide_model(text, sizeof text, 21);
    editor e;
    ed_open(&e, "", false, "file:///wide.mel", "mel", text, NULL);
    cJSON *msg = NULL;
    cJSON *diags = ed_checked(&e, &msg);
    cr_assert_eq(cJSON_GetArraySize(diags), 1, "%s", cJSON_PrintUnformatted(diags));
    const cJSON *d = cJSON_GetArrayItem(diags, 0);
    /* past the enumeration, every instant of every change on BDDs: the 21
     * mode variables select nothing, so every change is continuous */
    /* issue 42: the counts as powers of two, not 13 to 61 digits */
    assert_has(cJSON_GetObjectItem(d, "message")->valuestring,
               "none of the ~2^42 mode changes is rejected: all are continuous (checked on "
               "BDDs at every instant; 21 mode variables");
    cr_assert_eq(cJSON_GetObjectItem(d, "severity")->valueint, 4, "a hint");
    cr_assert_eq(start_of(d, "line"), 2, "on the first mode variable");
    cJSON_Delete(msg);
    ed_close(&e);
}

Test(wk_lsp, past_the_limits_a_rejected_change_is_a_warning_with_its_instant)
{
    /* g1 makes the algebraic x a state: no equation gives x its value when
     * g1 rises, so every change into g1 is rejected at its first instant;
     * 20 more mode variables put the model past the enumeration */
    char text[1024];
    size_t len = (size_t)snprintf(text, sizeof text,
                                  "x : real; y : real;\ng1 : boolean;\n"
                                  "if g1 then\n  a : equation der(x) = y;\n  b : equation y = 1\n"
                                  "else\n  c : equation x = 1;\n  d : equation y = 0\n"
                                  "end;\n");
    for (int i = 2; i <= 21; i++)
        len += (size_t)snprintf(text + len, sizeof text - len, "g%d : boolean;\n", i);
    cr_assert_lt(len, sizeof text);
    editor e;
    ed_open(&e, "", false, "file:///rej.mel", "mel", text, NULL);
    cJSON *msg = NULL;
    cJSON *diags = ed_checked(&e, &msg);
    bool found = false;
    const cJSON *d;
    cJSON_ArrayForEach(d, diags)
    {
        const char *m = cJSON_GetObjectItem(d, "message")->valuestring;
        if (strstr(m, "mode changes are rejected:") != NULL) {
            found = true;
            cr_assert_eq(cJSON_GetObjectItem(d, "severity")->valueint, 2, "a warning: %s", m);
            /* 2^20 of the 2^21 (2^21 - 1) changes: those into g1 */
            assert_has(m, "2^40 of ~2^42 mode changes are rejected: at instant "
                          "0 when !g1 & g1\u207a (g: before, g\u207a: after; mdae modechange /rej.mel "
                          "--first --instants)");
        }
    }
    cr_assert(found, "%s", cJSON_PrintUnformatted(diags));
    cJSON_Delete(msg);
    ed_close(&e);
}

Test(wk_lsp, past_the_limits_every_instant_is_followed)
{
    /* The Cup-and-Ball's slack -> taut needs two restart instants (RR-9459);
     * 20 more mode variables put it past the enumeration. The hint counts
     * those changes as resets, not as restarts of their first instant. */
    char *model = t_model("cup_and_ball.mel");
    size_t len = strlen(model), cap = len + 512;
    char *text = malloc(cap);
    cr_assert_not_null(text);
    memcpy(text, model, len + 1);
    for (int i = 2; i <= 21; i++)
        len += (size_t)snprintf(text + len, cap - len, "g%d : boolean;\n", i);
    editor e;
    ed_open(&e, "", false, "file:///cup.mel", "mel", text, NULL);
    cJSON *msg = NULL;
    cJSON *diags = ed_checked(&e, &msg);
    drop_single_mode(diags); /* the Cup-and-Ball's index changes with gamma */
    cr_assert_eq(cJSON_GetArraySize(diags), 1, "%s", cJSON_PrintUnformatted(diags));
    const char *m = cJSON_GetObjectItem(cJSON_GetArrayItem(diags, 0), "message")->valuestring;
    /* 2^20 x 2^20 changes make the rope taut (gamma rises): each a reset */
    assert_has(m, "checked on BDDs at every instant");
    assert_has(m, "mode changes is rejected: ~2^41.6 continuous, 2^40 need a reset");
    cJSON_Delete(msg);
    ed_close(&e);
    free(text);
    free(model);
}

Test(wk_lsp, the_mode_changes_setting_turns_those_diagnostics_off_and_on)
{
    cJSON *opts = cJSON_CreateObject();
    cJSON_AddFalseToObject(opts, "modeChanges");
    editor e;
    ed_open_opts(&e, "", false, "file:///two.mel", "mel", T_TWO_MODES, NULL, opts);
    cJSON *msg = NULL;
    /* the second stage has the single-mode warnings alone (issue 40 item 5) */
    cJSON *diags = ed_checked(&e, &msg);
    cr_assert_gt(cJSON_GetArraySize(diags), 0, "x' leading everywhere fails when p (issue 38)");
    drop_single_mode(diags);
    cr_assert_eq(cJSON_GetArraySize(diags), 0, "%s", cJSON_PrintUnformatted(diags));
    cJSON_Delete(msg);
    cJSON *cfg = cJSON_CreateObject();
    cJSON_AddTrueToObject(cJSON_AddObjectToObject(cJSON_AddObjectToObject(cfg, "settings"), "mdae"),
                          "modeChanges");
    cl_lsp_send(&e.c, "workspace/didChangeConfiguration", -1, cfg); /* checks again */
    diags = ed_checked(&e, &msg);
    cr_assert_eq(diags_with(diags, "is rejected", NULL), 1, "%s", cJSON_PrintUnformatted(diags));
    cJSON_Delete(msg);
    ed_close(&e);
}

/* ---- Half-typed text (issue 36 item 2) ------------------------------------------------ */

/* Symbols in a DocumentSymbol tree, children included. */
static int count_symbols(const cJSON *syms)
{
    int n = 0;
    const cJSON *s;
    cJSON_ArrayForEach(s, syms) n += 1 + count_symbols(cJSON_GetObjectItem(s, "children"));
    return n;
}

/* rldc2 with `tail` appended (owned). */
static char *rldc2_with(const char *tail)
{
    char *text = t_model("rldc2.mel");
    size_t n = strlen(text);
    char *t = malloc(n + strlen(tail) + 1);
    memcpy(t, text, n);
    strcpy(t + n, tail);
    free(text);
    return t;
}

Test(wk_lsp, a_syntax_error_leaves_outline_hover_definition_and_lenses_answering)
{
    editor e;
    char *good = t_model("rldc2.mel");
    ed_open(&e, "", false, "file:///g.mel", "mel", good, NULL);
    cJSON *syms = ed_ask(&e, "textDocument/documentSymbol", doc_params(&e));
    int whole = count_symbols(syms);
    cJSON_Delete(syms);
    ed_close(&e);
    cr_assert_geq(whole, 36);

    char *text = rldc2_with("R9 : equation v1 = ");
    ed_open(&e, "", false, "file:///h.mel", "mel", text, NULL);
    cJSON *msg;
    cJSON *diags = ed_diagnostics(&e, &msg);
    const cJSON *d;
    cr_assert_eq(diags_with(diags, "expected an expression", &d), 1, "%s",
                 cJSON_PrintUnformatted(diags));
    cr_assert_eq(cJSON_GetObjectItem(d, "severity")->valueint, 1, "an error");
    cr_assert_eq(start_of(d, "line"), 60, "at the end of the half-typed line");
    cJSON_Delete(msg);
    syms = ed_ask(&e, "textDocument/documentSymbol", doc_params(&e));
    cr_assert_eq(count_symbols(syms), whole, "every intact statement keeps its symbol");
    cJSON_Delete(syms);
    char *h = ed_hover(&e, 56, 0);
    assert_has(h, "**equation** `S1`");
    assert_has(h, "when `g1`: S1 → s1");
    cr_assert_null(strstr(h, "last version"), "this version analyses: %s", h);
    free(h);
    cJSON *def = ed_ask(&e, "textDocument/definition", at(&e, 56, 22));
    cr_assert_eq(cJSON_GetArraySize(def), 1);
    cr_assert_eq(num(cJSON_GetObjectItem(cJSON_GetArrayItem(def, 0), "range"), "start", "line"), 43);
    cJSON_Delete(def);
    cJSON *lenses = ed_ask(&e, "textDocument/codeLens", doc_params(&e));
    cr_assert_gt(cJSON_GetArraySize(lenses), 0);
    cJSON_Delete(lenses);
    free(text);
    free(good);
    ed_close(&e);
}

Test(wk_lsp, a_text_that_does_not_analyse_answers_from_the_last_version_that_did)
{
    editor e;
    char *text = t_model("rldc2.mel");
    ed_open(&e, "", false, "file:///s.mel", "mel", text, NULL);
    cJSON *msg;
    (void)ed_diagnostics(&e, &msg);
    cJSON_Delete(msg);
    char *h = ed_hover(&e, 56, 0); /* analysed once: the version to fall back on */
    free(h);
    /* an undeclared name: the text parses but does not elaborate */
    cJSON *p = doc_params(&e);
    cJSON_AddNumberToObject(cJSON_GetObjectItem(p, "textDocument"), "version", 2);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(p, "contentChanges"),
                         t_range_edit(60, 0, 60, 0, "R9 : equation v1 = nowhere;\n"));
    cl_lsp_send(&e.c, "textDocument/didChange", -1, p);
    for (;;) {
        cJSON *diags = ed_diagnostics(&e, &msg);
        bool done = diags_with(diags, "nowhere", NULL) > 0;
        cJSON_Delete(msg);
        if (done)
            break;
    }
    h = ed_hover(&e, 56, 0);
    assert_has(h, "*(from the last version that analysed, 1 edit ago");
    assert_has(h, "**equation** `S1`");
    assert_has(h, "when `g1`: S1 → s1");
    free(h);
    cr_assert_null(ed_hover(&e, 60, 20), "the edit itself has no last version");
    cJSON *lenses = ed_ask(&e, "textDocument/codeLens", doc_params(&e));
    cr_assert_gt(cJSON_GetArraySize(lenses), 0);
    const char *title = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetArrayItem(lenses, 0),
                                                                "command"),
                                            "title")
                            ->valuestring;
    cr_assert(strstr(title, "(as 1 edit ago)") != NULL, "%s", title);
    cJSON_Delete(lenses);
    cJSON *syms = ed_ask(&e, "textDocument/documentSymbol", doc_params(&e));
    cr_assert_gt(count_symbols(syms), 36, "the current outline, with R9");
    cJSON_Delete(syms);
    cJSON *def = ed_ask(&e, "textDocument/definition", at(&e, 56, 22));
    cr_assert_eq(cJSON_GetArraySize(def), 1);
    cJSON_Delete(def);
    free(text);
    ed_close(&e);
}

/* ---- Questions after edits published without the graph (issue 40 item 5) -------------- */

/* brake.mel at N = 6, px[i] given a der term in railcar k (none: k = 0). */
static char *brake_edited(int k)
{
    char *base = t_model("brake.mel");
    const char *n3 = "N : integer = 3;", *from = "px[i] : equation b[i] = K*x[i];";
    char to[160];
    if (k > 0)
        snprintf(to, sizeof to,
                 "px[i] : equation b[i] = K*x[i] + (if i == %d then der(x[i]) else 0);", k);
    else
        snprintf(to, sizeof to, "%s", from);
    char *out = malloc(strlen(base) + strlen(to) + 8);
    char *a = strstr(base, n3), *b = strstr(base, from);
    cr_assert(a != NULL && b != NULL && a < b);
    size_t at = 0;
    memcpy(out, base, (size_t)(a - base));
    at = (size_t)(a - base);
    at += (size_t)sprintf(out + at, "N : integer = 6;");
    memcpy(out + at, a + strlen(n3), (size_t)(b - a) - strlen(n3));
    at += (size_t)(b - a) - strlen(n3);
    at += (size_t)sprintf(out + at, "%s", to);
    strcpy(out + at, b + strlen(from));
    free(base);
    return out;
}

static void ed_change_all(editor *e, int version, const char *text)
{
    cJSON *p = doc_params(e);
    cJSON_AddNumberToObject(cJSON_GetObjectItem(p, "textDocument"), "version", version);
    cJSON *ch = cJSON_CreateObject();
    cJSON_AddStringToObject(ch, "text", text);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(p, "contentChanges"), ch);
    cl_lsp_send(&e->c, "textDocument/didChange", -1, p);
}

/* Wait for the first publication of `version`. */
static void ed_published(editor *e, int version)
{
    for (;;) {
        cJSON *msg = NULL;
        (void)ed_diagnostics(e, &msg);
        const cJSON *v = cJSON_GetObjectItem(cJSON_GetObjectItem(msg, "params"), "version");
        bool done = cJSON_IsNumber(v) && v->valueint == version;
        cJSON_Delete(msg);
        if (done)
            return;
    }
}

/* *all with `head` and `s` appended (a line each). */
static void append(char **all, const char *head, const char *s)
{
    size_t n = strlen(*all);
    *all = realloc(*all, n + strlen(head) + strlen(s) + 3);
    cr_assert_not_null(*all);
    sprintf(*all + n, "\n%s %s", head, s);
}

/* Every answer that reads the analysis: a hover at the start and inside
 * each line, the code lenses, the symbols; one text (owned). */
static char *answers(editor *e, int lines)
{
    char *all = strdup("");
    for (int line = 0; line <= lines; line++)
        for (int ch = 0; ch <= 4; ch += 4) {
            cJSON *r = ed_ask(e, "textDocument/hover", at(e, line, ch));
            char *s = cJSON_PrintUnformatted(r), head[32];
            snprintf(head, sizeof head, "%d:%d", line, ch);
            append(&all, head, s);
            cJSON_free(s);
            cJSON_Delete(r);
        }
    const char *methods[] = {"textDocument/codeLens", "textDocument/documentSymbol"};
    for (int k = 0; k < 2; k++) {
        cJSON *r = ed_ask(e, methods[k], doc_params(e));
        char *s = cJSON_PrintUnformatted(r);
        append(&all, methods[k], s);
        cJSON_free(s);
        cJSON_Delete(r);
    }
    return all;
}

/* The first publication of an edit is made without the dependency graph
 * (the worker's diagnose: offsets only), the graph comes later from the
 * same seed: typed edits, some published and some cancelled by the next,
 * then every question at once after the last first publication, answer
 * exactly as a fresh editor on the final text. */
Test(wk_lsp, questions_after_edits_published_without_the_graph_answer_as_a_fresh_open)
{
    const char *top = "\"lsp\": {\"debounce_ms\": 0}";
    editor a, b;
    char *text = brake_edited(0);
    ed_open(&a, top, false, "file:///a.mel", "mel", text, NULL);
    ed_published(&a, 1);
    free(text);
    for (int k = 1; k <= 5; k++) {
        text = brake_edited(k);
        ed_change_all(&a, k + 1, text);
        if (k % 2 == 1 || k == 5) /* else the next change cancels its check */
            ed_published(&a, k + 1);
        free(text);
    }
    int lines = 0;
    text = brake_edited(5);
    for (const char *p = text; *p; p++)
        lines += *p == '\n';
    char *typed = answers(&a, lines);
    ed_close(&a);
    ed_open(&b, top, false, "file:///a.mel", "mel", text, NULL);
    ed_published(&b, 1);
    char *fresh = answers(&b, lines);
    ed_close(&b);
    cr_assert(strstr(fresh, "block") != NULL, "the hovers list blocks");
    cr_assert_str_eq(typed, fresh);
    free(typed);
    free(fresh);
    free(text);
}

/* A text that does not analyse right after one published without its
 * graph: questions answer from that version, its graph made then. */
Test(wk_lsp, a_failing_text_right_after_an_edit_answers_from_that_edit)
{
    const char *top = "\"lsp\": {\"debounce_ms\": 0}";
    editor a;
    char *text = brake_edited(0);
    ed_open(&a, top, false, "file:///a.mel", "mel", text, NULL);
    ed_published(&a, 1);
    free(text);
    text = brake_edited(2);
    ed_change_all(&a, 2, text);
    ed_published(&a, 2); /* the offsets of version 2; its second stage cancelled below */
    char *bad = malloc(strlen(text) + 64);
    sprintf(bad, "%szz : equation nowhere = 1;\n", text);
    ed_change_all(&a, 3, bad);
    ed_published(&a, 3);
    cJSON *lenses = ed_ask(&a, "textDocument/codeLens", doc_params(&a));
    cr_assert_gt(cJSON_GetArraySize(lenses), 0);
    char *s = cJSON_PrintUnformatted(lenses);
    cJSON_Delete(lenses);
    ed_close(&a);
    /* those of version 2 opened fresh, marked "as 1 edit ago" */
    editor b;
    ed_open(&b, top, false, "file:///a.mel", "mel", text, NULL);
    ed_published(&b, 1);
    lenses = ed_ask(&b, "textDocument/codeLens", doc_params(&b));
    char *f = cJSON_PrintUnformatted(lenses);
    cJSON_Delete(lenses);
    ed_close(&b);
    const char *mark = " (as 1 edit ago)";
    for (char *m; (m = strstr(s, mark)) != NULL;)
        memmove(m, m + strlen(mark), strlen(m + strlen(mark)) + 1);
    assert_has(f, "differentiated");
    cr_assert_str_eq(s, f);
    cJSON_free(s);
    cJSON_free(f);
    free(bad);
    free(text);
}
