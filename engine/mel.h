/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/mel.h -- the MEL front-end: parse a model text and elaborate it into
 * a flat *guarded incidence structure* (mel_model).
 *
 * Why: every later stage (BDD encoding in sa_*, the brute-force reference in
 * tests/ref, JSON output) consumes the same flat structure, so it is defined
 * once here, as plain read-only C data.
 *
 * Promises: pure computation; no I/O, no logging, no global state, no BuDDy.
 * Reentrant. Whatever the input bytes, mel_model_parse returns (never crashes,
 * never loops without bound): nesting depth, number of instances, loop trip
 * counts and input size are limited by mel_options and reported as errors.
 *
 * Errors: MDAE_OK, MDAE_E_PARSE (syntax errors), MDAE_E_MODEL (semantic
 * errors: undeclared names, redeclarations, bad types...), MDAE_E_LIMIT (a
 * limit of mel_options was hit), MDAE_E_NOMEM. On any failure, located
 * messages are appended to `diags` (several when recovery is possible).
 *
 * Recovery from syntax errors (issue 36 item 2): the parser reports a broken
 * statement (`FILE:LINE:COL: error: ...`) and skips it: to the next `;` of
 * the same nesting, to the next line that starts a declaration or an
 * equation (`name :`), or to the `else`/`end`/`done` that closes the
 * enclosing statement; a conditional or loop whose header is broken is
 * skipped whole, to its own `end`/`done`. Every skip consumes a token, so
 * recovery always makes progress, and mel_options.max_errors (default 50)
 * ends it with a "too many errors" note. By default a syntax error still
 * fails the parse (MDAE_E_PARSE, no model). With mel_options.recover, the
 * rest is elaborated: MDAE_OK (unless the rest has errors of its own) with
 * the syntax errors in `diags`, their count in mel_model.n_syntax_errors and
 * what was skipped in mel_model.left_out. A statement that uses a name
 * whose only declaration was left out is left out too (one "left out"
 * entry, no "undeclared" error), so one broken declaration does not fail
 * every equation that reads it.
 *
 * Ownership: a mel_model and everything reachable from it (names, guards,
 * arrays) belong to the model and are released by mel_model_free(). A
 * model parsed with mel_options.since may share parts with the previous
 * version (expression nodes; when it was replayed, its names, guards,
 * symbols and incidences): those are held by counted references, so the
 * two models may be freed in either order, and what they share goes
 * with the last of them (changed 2026-12-04, issue 40 item 3; before, a
 * model owned all its names and guards).
 *
 * Language: see docs/languages.md and RR-9322 section 4.2.
 */
#ifndef MEL_H
#define MEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mdae.h"

struct fx_node; /* engine/fx.h: the expressions kept beside the structure */

/* ---- Guards ---------------------------------------------------------------
 * A guard is a propositional formula over the model's mode variables (the
 * `boolean` declarations), kept as a tree (possibly shared: a DAG). Integer
 * comparisons (`i > 1` inside a loop) are folded to TRUE/FALSE during
 * elaboration, so only these operators remain. */
typedef enum mel_guard_op {
    MEL_G_FALSE,
    MEL_G_TRUE,
    MEL_G_VAR, /* mode variable `var` */
    MEL_G_NOT, /* !lhs */
    MEL_G_AND, /* lhs & rhs */
    MEL_G_OR   /* lhs | rhs */
} mel_guard_op;

typedef struct mel_guard {
    mel_guard_op op;
    uint32_t var;                /* MEL_G_VAR: index into mel_model.modes */
    const struct mel_guard *lhs; /* NOT, AND, OR */
    const struct mel_guard *rhs; /* AND, OR */
} mel_guard;

/* ---- The flat structure ---------------------------------------------------- */

/* A Boolean mode variable: `g : boolean [= expr]` (instance name, e.g.
 * "open[3]"). Its defining expression is not part of the structure. */
typedef struct mel_mode {
    char *name;
    mdae_range where; /* the declaration */
    /* The first unknown whose *current* value (not under last/pre) the
     * defining expression reads, or -1 (no definition, or left limits only):
     * the mode-change analysis refuses a guard defined as a fixpoint
     * (RR-9459 section 5.2; engine/mc.h). Added 2026-11-23 for issue 13.
     * Modelica: from the definition `b = E` of a Boolean variable, or from
     * a relation written directly in a condition (`if s <= 0 then`). */
    long reads_var;
    mdae_range reads_where; /* that use */
    /* Issue 38: what defines it (MEL `g : boolean = E`; Modelica `b = E`,
     * or the relation itself for a relation made a mode variable), in the
     * model's expression pool, or NULL (none, or expressions not kept). */
    const struct fx_node *def;
} mel_mode;

/* `invariant c;` — valid modes satisfy every invariant's `cond`. An invariant
 * inside a conditional statement with guard g is stored as `!g | c`. */
typedef struct mel_invariant {
    const mel_guard *cond;
    mdae_range where;
    /* 0, or k + 1: the invariant !c that when-clause k (mel_model.whens)
     * adds, so that its transient modes are not long modes (below). These
     * come after the model's own invariants, in when-clause order (both
     * languages). */
    uint32_t when;
} mel_invariant;

/* A when-clause `when c then ... end` (MEL) or a Modelica
 * `when c then reinit(v, e); end when;` whose condition c is made of
 * Booleans and relations (engine/mo_elab.c): RR-9459 section 5.2.4's declaration of a
 * *transient* mode. Every mode in which `cond` holds is transient: it
 * lasts one instant (an event) and is never a long mode, which the
 * invariant !cond it adds (mel_invariant.when) says to every all-modes
 * analysis; the equations of its body (mel_equation.when) hold only at that
 * instant. The mode-change analysis (engine/mc.h) analyses the cascade
 * through it. Added 2026-11-25 for issue 13 item 5. */
typedef struct mel_when {
    const mel_guard *cond;
    mdae_range where; /* the `when` keyword to the end of its condition */
} mel_when;

/* An unknown `x : real` (instance name "x[3]"); it exists in the modes where
 * `guard` holds (TRUE unless declared inside a conditional statement).
 * Its initial value (Modelica only, issue 39): `start` is the declaration's
 * `start = e` modifier lowered like a binding (an expression of the model's
 * pool, mel_model_exprs; knowns are references to knowns), NULL when the
 * declaration has none, the variable is an array element, or expressions
 * are not kept; `fixed` is its `fixed = e` modifier when e evaluates to
 * true (false otherwise). MEL has no syntax for either: NULL, false. */
typedef struct mel_variable {
    char *name;
    const mel_guard *guard;
    mdae_range where; /* the declaration */
    const struct fx_node *start;
    bool fixed;
} mel_variable;

/* One case of an incidence: in the modes where `guard` holds, the variable
 * appears in the equation with highest derivative order at least `order`.
 * `guard` is absolute: it already includes the equation's own guard. */
typedef struct mel_order_case {
    const mel_guard *guard;
    int order;        /* 0..MEL_MAX_ORDER */
    mdae_range where; /* first use of the variable with this order */
    /* Of `order`, how many are next() (MEL next(e), Modelica reinit's
     * target): the use reads the value `next` instants later,
     * differentiated order - next times. Structurally the same incidence;
     * only the impulse analysis of an event reads it (mc_impulse.c). 0
     * outside when-bodies; the largest of the uses merged into the case. */
    int next;
} mel_order_case;

/* Incidence of one variable in one equation (an *edge* of the bipartite
 * graph). In mode m the edge is active iff some case's guard holds, and then
 * sigma(m) = max of the orders of the cases whose guards hold. Cases are
 * sorted by strictly decreasing order (one case per order). */
typedef struct mel_incidence {
    uint32_t var; /* index into mel_model.variables */
    uint32_t n_cases;
    const mel_order_case *cases;
} mel_incidence;

/* A named equation `e : equation lhs = rhs` (instance name "e[3]"), active in
 * the modes where `guard` holds. Incidences are sorted by variable index,
 * one per variable. */
typedef struct mel_equation {
    char *name;
    const mel_guard *guard;
    mdae_range where; /* from the label to the end of the equation */
    uint32_t n_incs;
    const mel_incidence *incs;
    /* 0: an ordinary equation; k + 1: in the body of mel_model.whens[k],
     * active only at the instant its condition becomes true (its guard
     * includes the condition). */
    uint32_t when;
    /* Issue 38: the equation instance as written, lhs = rhs, with loop
     * indices and integer constants replaced by their values and names
     * resolved (engine/fx.h), in the model's expression pool; both NULL
     * when expressions are not kept (mel_options.no_expressions). */
    const struct fx_node *lhs, *rhs;
    /* Issue 38: where a single-mode tool merges it (engine/ap.h): 0 for an
     * equation outside conditional statements (if-equations); else k + 1
     * for the k-th outermost conditional statement of the model (in source
     * order, counting each loop iteration's instance apart), and
     * `cond_pos` its position among the equation instances of its branch
     * (0-based, in order, nested conditionals flattened into the branch
     * that holds them): the equations of one conditional with the same
     * position are one equation `if c then e1 else e2` to such a tool. */
    uint32_t cond, cond_pos;
} mel_equation;

/* What a Modelica model says that is not part of the continuous system but
 * is kept for later analyses (the mode-change analysis needs when-conditions
 * and reinit targets): added 2026-11-23 for issue 11. MEL models have none.
 * Each text is the normalised source text (owned by the model). */
typedef enum mel_event_kind {
    MEL_EV_WHEN,     /* a when- or elsewhen-branch; text: its condition */
    MEL_EV_REINIT,   /* reinit(x, e) in a when-branch; var: x */
    MEL_EV_DISCRETE, /* an equation or assignment defining discrete variables */
    MEL_EV_INITIAL,  /* an initial equation or initial algorithm statement */
    MEL_EV_ASSERT    /* assert(...) / terminate(...) */
} mel_event_kind;

typedef struct mel_event {
    mel_event_kind kind;
    char *text;
    mdae_range where;
    long var;    /* MEL_EV_REINIT: index into variables; otherwise -1 */
    long parent; /* index of the enclosing MEL_EV_WHEN event, or -1 */
} mel_event;

/* Issue 38: a known quantity the equations may read: a parameter or
 * constant (MEL `p : real = e`, `p : parameter|constant real|integer|boolean
 * [(value = v)] [= e]`, Modelica `parameter`/`constant` scalars,
 * array elements by instance name "p[2]"), a MEL integer constant
 * (`N : integer = 10`) or a Modelica Integer/Boolean parameter. FX_KNOWN
 * nodes refer to it by index. */
typedef enum mel_known_kind { MEL_KNOWN_REAL, MEL_KNOWN_INTEGER, MEL_KNOWN_BOOLEAN } mel_known_kind;

typedef struct mel_known {
    char *name;
    mel_known_kind kind;
    mdae_range where;              /* the declaration */
    const struct fx_node *binding; /* `= e` in the model's pool, or NULL */
    double value;                  /* the binding's value when `known` */
    bool known;                    /* the value could be computed */
    bool constant;                 /* Modelica `constant` (else parameter) */
} mel_known;

/* The elaborated model. Arrays are in declaration (instantiation) order. */
typedef struct mel_model {
    uint32_t n_modes;
    const mel_mode *modes;
    uint32_t n_invariants;
    const mel_invariant *invariants;
    uint32_t n_variables;
    const mel_variable *variables;
    uint32_t n_equations;
    const mel_equation *equations;
    size_t n_edges;      /* total number of incidences */
    uint32_t n_params;   /* `p : real = e` declarations (instances) */
    uint32_t n_integers; /* `N : integer = e` declarations (instances) */
    struct mel_model_priv *priv; /* arena and name tables */
    uint32_t n_events;         /* Modelica only (0 for MEL) */
    const mel_event *events;   /* in source order; owned by the model */
    uint32_t n_whens;          /* transient-mode declarations */
    const mel_when *whens;     /* in source order; owned by the model */
    /* Recovery (mel_options.recover; issue 36 item 2): the syntax errors
     * reported, and the text they made the parser leave out, in source
     * order (a missing ';' or a stray byte leaves nothing out). 0 / NULL
     * without recovery. */
    uint32_t n_syntax_errors;
    uint32_t n_left_out;
    const struct mel_left_out *left_out; /* owned by the model */
    /* Issue 38: the known quantities (above) in declaration order; 0 /
     * NULL when expressions are not kept. The expressions of the model
     * (mel_equation.lhs/rhs, mel_mode.def, mel_known.binding) live in one
     * pool owned by the model (mel_model_exprs). */
    uint32_t n_knowns;
    const mel_known *knowns;
    /* Issue 38: the language the model was read in, the one its
     * expressions print in (engine/fx_body.h): true when mo_model_parse
     * made it (the papers' Modelica, Base Modelica), false for MEL. */
    bool modelica;
    /* Issue 39: the Modelica model's name as written, unquoted ("WaterTank",
     * "Modelica.Blocks.Examples.PID_Controller"), owned by the model; NULL
     * for MEL, whose files have no name. */
    const char *name;
} mel_model;

/* A statement (or a run of text) that a syntax error made the parser leave
 * out: `where` from its first token to the last one skipped; `message`
 * the error that did (or "uses 'x', whose declaration was left out"). */
typedef struct mel_left_out {
    mdae_range where;
    char *message; /* owned by the model */
} mel_left_out;

#define MEL_MAX_ORDER 1000

/* An integer constant overridden from outside (`-D N=20`). */
typedef struct mel_define {
    const char *name;
    long long value;
} mel_define;

typedef struct mel_options {
    const mel_define *defines; /* borrowed for the call */
    size_t n_defines;
    size_t max_input_bytes; /* 0: 64 MiB */
    size_t max_depth;       /* nesting of statements and expressions; 0: 256 */
    size_t max_instances;   /* equations+variables+modes created; 0: 1,000,000 */
    size_t max_errors;      /* errors before giving up; 0: 50 */
    /* Elaborate what parses around syntax errors (see "Recovery" above);
     * false: a syntax error fails the parse, as before issue 36. */
    bool recover;
    /* Issue 38: keep the structure only, without the expressions
     * (mel_equation.lhs/rhs, mel_mode.def, mel_variable.start NULL, no
     * knowns). The structure is read from the expressions (mel_inc.c),
     * so they are built all the same and dropped at the end: no faster
     * since the front-ends' one incidence pass. */
    bool no_expressions;
    /* Issue 40 item 3: the model of the previous version of this text
     * (borrowed for the call; NULL: none). When its declarations are this
     * text's (same unknowns, equations, mode variables and known
     * quantities, in order, integer constants of the same values), an
     * equation instance whose statement is the same text at the same
     * place (offset, line, column) with the same loop indices shares its
     * lowered sides with it (and, when they do not depend on guards, its
     * incidences are copied) instead of lowering them again: the model is
     * the one mel_model_parse makes without it, field for field
     * (engine/mel_elab.c, "Pass 2: what an edit left alone"). MEL only (mo_model_parse ignores
     * it); ignored when either version has no expressions. The new model
     * then shares expression nodes with since (their pools are counted
     * references): either may be freed first. When since reported
     * nothing, this text parses without a diagnostic and the bytes that
     * differ lie inside the sides of one equation statement, the model is
     * made from since with only that statement's instances elaborated
     * again (engine/mel_elab.c, "Replay"), field for field the same
     * model; it then holds since's names, guards and symbols (counted:
     * either may still be freed first) for at most MEL__MAX_HELD versions
     * in a row, then a version is elaborated in full. since must not be
     * parsed with or freed by another thread during the call, nor while
     * a model made from it is freed by another thread. */
    const mel_model *since;
} mel_options;

/* Parse and elaborate `text` (len bytes, need not be NUL-terminated; any
 * bytes). opt may be NULL (defaults). On MDAE_OK, *out is a new model (owned:
 * mel_model_free). Warnings may be added to diags even on success. */
MDAE_API int mel_model_parse(const char *text, size_t len, const mel_options *opt,
                             mel_model **out, mdae_diags *diags);

/* The pool that holds m's expressions (engine/fx.h), to build more in
 * (differentiated equations live as long as the model), or NULL when
 * expressions were not kept. */
MDAE_API struct fx_pool *mel_model_exprs(const mel_model *m);

/* Issue 40: when m was made from since (mel_options.since; both alive) by
 * a replay of an edit inside one equation statement that moved no
 * location and kept since's incidences (engine/mel_elab.c, "Replay"):
 * true, *rows (m's, increasing, valid while m lives) the *n equations it
 * elaborated again, and every other equation of m is since's at its index
 * field for field (the same name, guard, incidences and locations: the
 * same pointers). Else false, nothing written. */
MDAE_API bool mel_model_edited_rows(const mel_model *m, const mel_model *since,
                                    const uint32_t **rows, size_t *n);
/* Issue 40: how many of m's equations have since's sides (the same trees:
 * mel_equation.lhs pointers, not NULL, at the same index), less those
 * m's replay of an edit elaborated again and kept as they were (the edited
 * statement's instances an edited integer condition leaves alone:
 * engine/mel_elab.c, "Replay: instances an edited condition leaves
 * alone"; they were copies until h-fe19): the worker's sharedEquations.
 * Reads the edited rows only when m has their list from since
 * (mel_model_edited_rows), nothing when m's replay moved the equations
 * after the edit (it counted those before), else every equation. */
MDAE_API size_t mel_model_sides_shared(const mel_model *m, const mel_model *since);
/* Tests: m's list of edited rows forgotten (mel_model_edited_rows false
 * from now on): the passes that follow it take their slow path, a replay
 * of an edit of m (mel_options.since) too. */
MDAE_TEST_API void mel_model_forget_edited_rows(mel_model *m);
/* Index of the known quantity with this name, or -1. */
MDAE_API long mel_model_find_known(const mel_model *m, const char *name);

/* Release a model; NULL is a no-op. */
MDAE_API void mel_model_free(mel_model *m);

/* Evaluate a guard in a mode: mode[k] is the value of mode variable k. */
MDAE_API bool mel_guard_eval(const mel_guard *g, const bool *mode);

/* Print a guard as a formula over mode-variable names, with the operators of
 * the language (`!`, `&`, `|`, parentheses only where needed), into a new
 * string (owned: mdae_free). NULL on OOM. */
MDAE_API char *mel_guard_format(const mel_model *m, const mel_guard *g);

/* Append a mode variable's name as formulas print it: in parentheses when
 * it is source text with spaces (a Modelica relation atom, "h <= 0"), so
 * that "!(h <= 0)" reads as it means; bare otherwise. */
MDAE_API void mel_mode_name_put(mdae_buf *b, const char *name);

/* Sigma of an incidence in a mode: the highest order among the cases whose
 * guard holds, or -1 when none holds (the edge is inactive). */
MDAE_API int mel_incidence_order(const mel_incidence *inc, const bool *mode);

/* Index of the equation / variable / mode variable with this instance name,
 * or -1. */
MDAE_API long mel_model_find_equation(const mel_model *m, const char *name);
MDAE_TEST_API long mel_model_find_variable(const mel_model *m, const char *name); /* tests */
MDAE_API long mel_model_find_mode(const mel_model *m, const char *name);

#endif /* MEL_H */
