/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/mel_outline.h -- the source outline of a model text (MEL or
 * Modelica): its declarations, equations and conditional statements as a
 * tree of symbols, and every occurrence of a declared name.
 *
 * Why (issue 15): an editor's outline, go-to-definition and references
 * speak of the *source* (one declaration `x[i] : real` inside a loop, the
 * branches of an if-equation), which the flat mel_model has elaborated away
 * (it keeps instances and guards). The outline is read from the syntax tree
 * of each front-end; the worker joins it with the model and the analysis
 * for hover and code lenses (server/worker/wk_lsp.c).
 *
 * Names: a MEL name is the declaration's base name (`x` for `x[i]`); a
 * Modelica name is the component reference's parts joined by '.' (quoted
 * names without their quotes, as in mel_model). Occurrences are resolved by
 * name against the declarations of the same scope (MEL: the whole text; a
 * Modelica class: its own components); a name declared twice (in both
 * branches of an `if`) resolves to its first declaration. Loop indices,
 * functions, `time` and undeclared names make no occurrence.
 *
 * Promises: pure computation; no I/O, logging, global state or BuDDy.
 * Reentrant. Bounded like the parsers (mel_options' depth). A syntax error
 * leaves out its statement, as the parsers' recovery does (engine/mel.h,
 * "Recovery"): the outline lists every intact statement (issue 36 item 2),
 * so MDAE_E_PARSE is no longer returned.
 * Errors: MDAE_OK, MDAE_E_PARSE, MDAE_E_LIMIT, MDAE_E_NOMEM (nothing leaked).
 * Ownership: text is borrowed for the call; *out is new and owned by the
 * caller (mel_outline_free, which accepts NULL); every string in it belongs
 * to the outline.
 */
#ifndef MEL_OUTLINE_H
#define MEL_OUTLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mdae.h"

typedef enum mel_ol_kind {
    MEL_OL_UNKNOWN,   /* `x : real`; a Modelica Real that is not a parameter */
    MEL_OL_PARAMETER, /* `p : real = e`; a Modelica parameter or constant */
    MEL_OL_INTEGER,   /* `N : integer = e`; a Modelica Integer */
    MEL_OL_MODE,      /* `g : boolean`; a Modelica Boolean */
    MEL_OL_OTHER,     /* a Modelica component of another type (detail: it) */
    MEL_OL_EQUATION,  /* an equation (name: its label, or its text) */
    MEL_OL_INVARIANT, /* `invariant c` */
    MEL_OL_IF,        /* a conditional statement / if-equation branch */
    MEL_OL_FOR,       /* `foreach` / for-equation */
    MEL_OL_WHEN,      /* a when-clause (Modelica) */
    MEL_OL_CLASS      /* a Modelica class */
} mel_ol_kind;

/* True for the kinds that declare a name (go-to-definition targets). */
#define MEL_OL_DECLARES(k) ((k) <= MEL_OL_OTHER)

typedef struct mel_symbol {
    mel_ol_kind kind;
    char *name;        /* owned by the outline */
    char *detail;      /* owned: "real", "parameter Real", "if g"...; never NULL */
    mdae_range where;  /* the whole statement or declaration */
    mdae_range name_where; /* the name (the selection range) */
    long parent;       /* index of the enclosing symbol, -1 at the top */
} mel_symbol;

typedef struct mel_occurrence {
    uint32_t sym;      /* the declaring symbol (MEL_OL_DECLARES) */
    mdae_range where;  /* the name as written (declarations included) */
    bool decl;         /* this is the declaration's own name */
} mel_occurrence;

typedef struct mel_outline {
    size_t n_symbols;
    mel_symbol *symbols;         /* parents before their children */
    size_t n_occurrences;
    mel_occurrence *occurrences; /* sorted by start offset */
} mel_outline;

/* The outline of text[0..len) read as Modelica (modelica true) or MEL.
 * max_depth as in mel_options (0: 256). */
MDAE_API int mel_outline_parse(const char *text /* borrowed */, size_t len, bool modelica,
                               size_t max_depth, mel_outline **out /* out: owned */);
MDAE_API void mel_outline_free(mel_outline *o /* takes ownership; NULL ok */);

/* The occurrence whose range contains byte offset `offset` (end included, so
 * a cursor just after a name is on it), or NULL. */
MDAE_API const mel_occurrence *mel_outline_occurrence_at(const mel_outline *o, uint32_t offset);

/* The innermost symbol whose range contains offset, or -1. */
MDAE_API long mel_outline_symbol_at(const mel_outline *o, uint32_t offset);

#endif /* MEL_OUTLINE_H */
