/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/ap.h -- what a single-mode tool (OpenModelica, Dymola) does with a
 * multimode model, compared with mdae's exact all-modes analysis (issue 38
 * item 5; RR-9459 section 3.1).
 *
 * Why: such tools analyse ONE mode-agnostic structure, choose one matching
 * and one set of offsets, and bring the modes back only when they pivot:
 * the Water Tank's eh2 is solved for yh in every mode, and the pivot
 * (if bh then 0 else 1) is zero when bh. mdae has the exact answer beside
 * it, so it can say, before any simulation, in which modes that tool is
 * wrong and where in the source.
 *
 * The approximate structure (what this file calls it, and the reference in
 * tests/ref/ref_approx.c rebuilds by itself):
 *  - equations: the model's equations, except those of when-bodies
 *    (mel_equation.when != 0: event equations, which a tool handles apart
 *    and which no valid mode has); the equations of one conditional
 *    statement (if-equation) with the same position in their branches
 *    (mel_equation.cond != 0, equal cond and cond_pos) are ONE approximate
 *    equation `if c then e1 else e2`, the others one each. Approximate
 *    equations are in the order of their first member (model order); one
 *    of a single member is named like it, a merged one by its members'
 *    names joined with "|";
 *  - unknowns: every variable of the model (guards ignored);
 *  - incidences: an approximate equation reads x if some member has an
 *    incidence of x under any guard, with sigma = the highest order of all
 *    the cases of all its members (every guard ignored).
 * On it: one maximum-weight perfect matching (sm_solve, the
 * lexicographically smallest in model order: equation by equation, each
 * member's incidences by variable index, merged), Pryce's canonical
 * offsets (c per approximate equation, d per unknown: unique, whatever the
 * matching) and one block triangular form: blocks are the strongly
 * connected components of the graph "E' reads, at its leading order (a
 * tight edge: d_x = c_E' + sigma), the unknown matched to E", in solving
 * order. Without a perfect matching the tool refuses the model (accepted
 * false): the Dulmage-Mendelsohn coarse parts (overdetermined approximate
 * equations, underdetermined unknowns) say why.
 *
 * Findings, compared with the exact result of sa_analyze on the same model
 * (each a set of modes exact on the valid modes, sa_result_report's
 * convention, with its number of valid modes and a source location):
 *  - AP_OFFSETS: for each unknown x, the valid nonsingular modes where x
 *    exists and the exact d_x is not the approximate d_x; for each model
 *    equation e (active there), where the exact c_e is not the c of its
 *    approximate equation: wrong index, wrong states. Located at the
 *    declaration / the equation.
 *  - AP_PIVOT: for each matched (approximate equation E, unknown x) with
 *    approximate order sigma, the valid modes where no active member of E
 *    has x at order sigma (x absent, or at a lower order): the pivot, the
 *    partial derivative of E's residual with respect to der^sigma(x), is
 *    zero there, so the generated code divides by zero or its Jacobian is
 *    singular. Located at E (a merged E: from its first member's start to
 *    its last member's end). Its text (when the model kept expressions):
 *    fx_partial of E's residual, printed by fx_format; for a merged E the
 *    residual is `if G1 then r1 else if G2 then r2 ... else 0` over its
 *    members' guards G and residuals r (lhs - rhs), in member order: the
 *    equation as such a tool reads it (0 where no member is active); two
 *    members whose guards are visibly complementary (g and !g, x & g and
 *    x & !g) read `if G1 then r1 else r2`.
 *  - AP_SINGULAR: the valid modes the exact analysis finds singular while
 *    the approximate analysis accepts the model (no perfect matching there:
 *    the tool's code cannot be right). Located at the first equation that
 *    is overdetermined there, else the first variable underdetermined,
 *    else the model's first equation.
 *  - AP_REFUSED: the approximate analysis refuses the model, and these are
 *    the valid modes the exact analysis solves (nonsingular). Located like
 *    AP_SINGULAR's, from the approximate DM parts.
 * wrong_modes is the union of every finding's modes.
 *
 * Promises: no I/O; BDD work runs inside sa_begin/sa_end, like sa.h
 * (single-threaded). The exact result must come from sa_analyze (or
 * sa_compose, inc.h's whole) of m, or of a copy of m with the same
 * equations, variables and mode variables in the same order (a session's
 * single part, inc_result_whole), without sa_options.singular_only (its
 * offsets are not computed). Errors:
 * MDAE_OK, MDAE_E_INVAL (NULL arguments, or `exact` not of m: names
 * compared),
 * MDAE_E_STATE (no sa_begin), MDAE_E_NOMEM, MDAE_E_LIMIT (a set of more
 * than SA_MAX_CUBES cubes), MDAE_E_BDD_LIMIT / MDAE_E_BDD.
 *
 * Ownership: the report (ap_report_free) owns everything in it; names are
 * copies, so it may outlive the model and the exact result. Its arrays
 * are packed (a name table is one allocation, the equations' members and
 * the blocks' equations are in their arrays' allocations, and an equation
 * of one member shares that member's name in eq_names): the editor frees
 * the report of the brake at N = 10,000 on its next edit, and one free
 * per name was 100 M instructions of that edit (docs/figures.md). Read
 * its fields; do not free or resize them.
 */
#ifndef AP_H
#define AP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fx.h"
#include "mdae.h"
#include "mel.h"
#include "sa.h"

typedef enum ap_kind {
    AP_OFFSETS, /* "offsets" */
    AP_PIVOT,   /* "pivot" */
    AP_SINGULAR, /* "singular" */
    AP_REFUSED  /* "refused" */
} ap_kind;

/* An approximate equation. */
typedef struct ap_equation {
    char *name;        /* the report's (ap_report_free releases it) */
    uint32_t n_members;
    uint32_t *members; /* the report's: the model's equation indices, model order */
    long matched;      /* the unknown it is solved for, or -1 (refused) */
    int sigma;         /* the order of `matched` in it, or -1 */
    int c;             /* Pryce's c, or -1 (refused) */
    bool overdetermined; /* refused: some maximum matching leaves it out */
    long block;        /* its block (ap_report.blocks), or -1 (refused) */
    mdae_range where;  /* its members' span */
} ap_equation;

/* A block of the BTF: its approximate equations (each solved for its
 * matched unknown), in model order. */
typedef struct ap_block {
    uint32_t n;
    uint32_t *equations; /* the report's: indices into ap_report.equations */
} ap_block;

typedef struct ap_finding {
    ap_kind kind;
    long equation;  /* AP_OFFSETS of an equation: the model's equation; else -1 */
    long approx_eq; /* AP_PIVOT: the approximate equation; AP_OFFSETS of an
                       equation: its approximate equation; else -1 */
    long variable;  /* AP_PIVOT: the matched unknown; AP_OFFSETS of an
                       unknown: it; else -1 */
    int order;      /* AP_PIVOT: sigma; AP_OFFSETS: the approximate offset
                       (d_x, or c); else 0 */
    int approx;     /* AP_OFFSETS: the approximate offset; else -1 (none) */
    char *pivot;    /* AP_PIVOT: the pivot's text (owned), or NULL when the
                       model kept no expressions or it cannot be printed */
    sa_set modes;   /* exact on the valid modes (owned) */
    double count;   /* valid modes in it (> 0) */
    mdae_range where;
    char *message;  /* owned: one sentence, for people */
} ap_finding;

typedef struct ap_report {
    bool accepted;  /* the approximate structure has a perfect matching */
    uint32_t n_modes;
    char **mode_names; /* copies, the report's; n_modes */
    uint32_t n_equations;
    ap_equation *equations;
    uint32_t n_model_equations;
    char **eq_names;      /* copies of the model's equation names (the report's:
                             members, ap_finding.equation) */
    uint32_t n_variables;
    char **var_names;     /* copies, the report's */
    int *d;               /* n_variables: Pryce's d, -1 when refused */
    bool *underdetermined; /* n_variables: refused, some maximum matching
                              leaves it out */
    uint32_t n_blocks;    /* 0 when refused */
    ap_block *blocks;     /* in solving order */
    size_t n_findings;
    ap_finding *findings; /* kinds in this order: AP_REFUSED or AP_SINGULAR,
                             AP_PIVOT (approximate equation order), then
                             AP_OFFSETS (unknowns, then equations, model
                             order) */
    sa_set wrong_modes;   /* the union of the findings' modes (empty, its
                             formula NULL, under ap_options.no_wrong_modes) */
    bool wrong_modes_left; /* ap_options.no_wrong_modes: it was not written */
    bool details_left;     /* ap_options.detail_max: some findings have no
                              modes (formula NULL), pivot or message */
    double wrong_count;
    double valid_modes;
} ap_report;

typedef struct ap_options {
    fx_syntax syntax; /* the pivots' language (FX_SYNTAX_MEL by default) */
    /* Leave wrong_modes out (wrong_count is still counted): the editor's
     * warnings need the findings only, and the union's cubes can be
     * quadratic to write (the brake at N = 10,000: 10,000 cubes over a
     * window of 10,000 mode variables, 100 MB of rows). */
    bool no_wrong_modes;
    /* Only the first detail_max findings get their modes' set, pivot text
     * and message (0: all); the others keep their kind, indices, count and
     * place. The editor shows 20 warnings of the brake's 20,000 at
     * N = 10,000, and writing the rest was a third of its edit's
     * diagnostics. */
    size_t detail_max;
    /* Cancellation (sa.h's sa_progress_fn, phase "approx"; NULL: none):
     * called every AP_POLL_ITEMS items of the comparison; non-zero ends
     * the analysis with MDAE_E_CANCELED (an editor's newer text: the
     * comparison is a tenth of a second of the brake at N = 10,000). */
    sa_progress_fn progress;
    void *progress_ctx;
} ap_options;

#define AP_POLL_ITEMS 256

/* Analyse m as a single-mode tool does and compare it with exact (above).
 * On MDAE_OK *out is a new report (ap_report_free). */
MDAE_API int ap_analyze(const mel_model *m, const sa_result *exact, ap_report **out /* out */);
/* The same with options (may be NULL). */
MDAE_API int ap_analyze_ex(const mel_model *m, const sa_result *exact, const ap_options *opt,
                           ap_report **out /* out */);
MDAE_API void ap_report_free(ap_report *rep /* NULL ok */);

/* "offsets", "pivot", "singular", "refused" (static strings). */
MDAE_API const char *ap_kind_name(ap_kind k);

#endif /* AP_H */
