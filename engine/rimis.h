/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/rimis.h -- the Reduced-Index Mode-Independent Structure (RR-9459
 * section 4; ../shared/papers/notes-mode-changes-impulses-rimis-modelica.md
 * section 3; issue 39): a multimode model rewritten as ONE flat Modelica
 * model whose mode-agnostic analysis (the one OpenModelica and Dymola do,
 * engine/ap.h) contains every block of the exact conditional dependency
 * graph (engine/cdg.h), so that those tools simulate it correctly.
 *
 * Principle: evaluate every block of the CDG in every mode, each on its own
 * copies ("replicates") of the unknowns it writes, and select by mode which
 * replicate holds a source variable's value ("multiplexing").
 *
 * The construction, for a model analysed nonsingular in every valid mode
 * (sa_analyze) and its CDG (cdg_build). Notation: a block b has a
 * condition cond(b) (its guard), writes (u, k) for each unknown (u its
 * variable, k its leading order there), reads (v, r). Conditions that are
 * equal as sets of valid nonsingular modes share one id (rimis_cond).
 *  1. Source-level values. V(u, 0) is the source variable u itself (its
 *     name kept); V(u, n >= 1), the n-th derivative, is a dummy-derivative
 *     variable named u + "_p" * n, declared only when something reads it.
 *  2. Who defines (u, n): the writers W(u, n) are the blocks writing
 *     (u, k) with k >= n. Those with k == n solve for it (algebraic there);
 *     those with k > n hold it as a state.
 *     - No writer solves for (u, n) (a state wherever it is defined):
 *       FACTORED. V(u, n) is itself the state, `der(V(u,n)) = V(u,n+1)`;
 *       no replicate, no reinit; the source's start value stays on it
 *       (the Water Tank's x).
 *     - Exactly one writer b, with k == n, whose condition is true in
 *       every mode where u exists: b writes V(u, n) directly (the Water
 *       Tank's y and z; TwoEquations' x' under not p is a replicate).
 *     - Otherwise every writer b gets a replicate rho(b, u, n), named
 *       u + "_p" * n + "_" + id(cond(b)) (x_2, x_p_3): an algebraic
 *       unknown of b when k == n, a state when k > n (`der(rho(b,u,n)) =
 *       name of (u, n+1) under b`, start value copied from the source for
 *       n == 0, and a reinitialisation `when {cond(b)} then reinit(rho,
 *       pre(V(u, n))); end when;`, entering b's modes from the value u^(n)
 *       had; the braces, the same event in Modelica, keep the papers'
 *       Modelica importer from reading cond(b) as a transient mode). V(u, n) is MULTIPLEXED: `V = if cond(b1) then rho1 else if
 *       ... else rho_last;` over the writers in block order, conditions
 *       printed minimised with the modes where u does not exist, and the
 *       invalid and singular modes, as don't-cares (RR-9459 Fig. 13/15).
 *  3. Reads. An occurrence of (v, r) in an equation of block b that b does
 *     not write is named after the writers of (v, r) whose condition meets
 *     cond(b): one writer b' (or several giving the same name): b''s name
 *     for it (the paper's section 4.6.4 optimisation: the Water Tank's block
 *     bl reads yh as yh_5, the replicate under `not bh`, through the
 *     invariant); several: a read replicate rho(cond(b), v, r), declared
 *     once per (v, r, condition id) and multiplexed over those writers
 *     only; none: V(v, r).
 *  4. Equations of b: each (source equation i, order c) of the block is
 *     differentiated c times (fx_dt), partially evaluated under cond(b)
 *     (pi_q of section 4.6.2: an if-expression whose condition cond(b)
 *     decides is replaced by its branch; otherwise its condition is
 *     simplified, a shorter equivalent under cond(b) preferred) and renamed
 *     (2 and 3 above). Guarding (section 4.7, on unless
 *     rimis_options.no_guard): when cond(b) is not true, the equation is
 *     printed `if C then lhs = rhs; else w + eps * (o1 + ...) = 0; end if;`
 *     where w is the unknown a perfect matching of the block assigns to
 *     it, o1... the block's other unknowns the equation contains and eps =
 *     1 / (2 * the block's size), so that no evaluation outside the
 *     block's modes can fail, the block keeps its structure, and whichever
 *     unknown a single-mode tool matches it to is in both branches.
 *  5. Mode equations: each mode variable's definition `g = E;` with E's
 *     reads named V(u, n). A mode variable without definition is a free
 *     input (`input Boolean g;`). Invariants are printed as asserts.
 *  6. Mode changes (engine/rimis_int.h, rimis_mc.c): an impulsive change is
 *     an error naming the variables and the change; a finite reset the
 *     mode-change analysis determines replaces the copied restart value
 *     where it can; the source's when-clauses are carried.
 *
 * Refused, as located errors in diags (MDAE_E_MODEL): singular valid modes
 * (the formula of the modes), impulsive mode changes and changes that
 * make states jump (unless rimis_options.accept_jumps), constructs RIMIS
 * cannot print (an FX_OPAQUE text it would have to differentiate, ...).
 * Printed with a warning instead: a mode variable MEL defines by a Real
 * expression (Modelica cannot read it as a Boolean) is a free input.
 *
 * Output layout (RR-9459 Fig. 13 and 15): `model <name>`, sections with
 * comments `// Known quantities`, `// Source variables`, `// Dummy
 * derivatives`, `// Replicate variables` (each replicate commented with
 * what it stands for: `// sh if not bh`), `equation`, `// Mode equations`,
 * `// Differential equations`, `// Multiplexing`, one group per block
 * headed `// Block <cond>: <reads> -- <equations> -> <unknowns>` (cond and
 * its colon omitted when true; `'` marks an order), `// Replicate
 * reinitializations`, `// When-clauses of the source`, `end <name>;`. Every
 * equation starts on a line of its own (rimis_eq.line), so that a reader
 * of the text (tests/ref/ref_rimis.c) can tell which equation is which.
 * The text reads back through mo_model_parse.
 *
 * Promises: no I/O; BDD work inside sa_begin/sa_end (single-threaded),
 * like cdg.h. Deterministic: the same model gives the same text byte for
 * byte. Errors: MDAE_OK, MDAE_E_INVAL, MDAE_E_STATE (no sa_begin),
 * MDAE_E_NOMEM, MDAE_E_MODEL (refused: located errors in diags),
 * MDAE_E_LIMIT (more than rimis_options.max_lines lines, or a condition
 * of more than SA_MAX_CUBES cubes), MDAE_E_BDD_LIMIT / MDAE_E_BDD.
 *
 * Ownership: the result (rimis_result_free) owns everything in it; names
 * are copies, so it may outlive the model, the analysis and the graph.
 */
#ifndef RIMIS_H
#define RIMIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cdg.h"
#include "mdae.h"
#include "mel.h"
#include "sa.h"

/* A condition: a set of valid nonsingular modes some block holds in. */
typedef struct rimis_cond {
    uint32_t id;   /* the suffix of the replicates' names (1, 2, ...) */
    char *text;    /* owned: Modelica Boolean expression ("not bh and bl") */
    sa_set modes;  /* owned: exact on the valid modes (sa.h convention) */
} rimis_cond;

typedef enum rimis_var_kind {
    RIMIS_V_SOURCE,    /* V(u, 0): the source variable, its name kept */
    RIMIS_V_DUMMY,     /* V(u, n >= 1): u_p, u_pp, ... */
    RIMIS_V_REPLICATE, /* rho(b, u, n): a writer's unknown or state */
    RIMIS_V_READ       /* rho(cond, v, r): a read replicate (multiplexed) */
} rimis_var_kind;

/* A real variable of the output (modes and knowns keep the source's). */
typedef struct rimis_var {
    char *name;        /* owned: the Modelica identifier, unquoted */
    rimis_var_kind kind;
    uint32_t var;      /* the source variable (mel_model.variables) */
    int order;         /* the derivative of it that it stands for */
    long cond;         /* REPLICATE/READ: index into rimis_result.conds; else -1 */
    long block;        /* REPLICATE: the writing CDG block; else -1 */
    bool state;        /* der() of it appears in the output */
} rimis_var;

typedef enum rimis_eq_kind {
    RIMIS_EQ_MODE,   /* a mode variable's definition */
    RIMIS_EQ_DIFF,   /* der(v) = w */
    RIMIS_EQ_MULTI,  /* a multiplexer */
    RIMIS_EQ_BLOCK,  /* a replicated (and perhaps guarded) block equation */
    RIMIS_EQ_REINIT, /* a when-clause with reinit (counted once) */
    RIMIS_EQ_WHEN,   /* a when-clause carried from the source */
    RIMIS_EQ_ASSERT  /* an invariant */
} rimis_eq_kind;

typedef struct rimis_eq {
    rimis_eq_kind kind;
    uint32_t line;    /* 1-based line of the text where it starts */
    long block;       /* BLOCK: the CDG block; else -1 */
    long equation;    /* BLOCK: the source equation (mel_model.equations) */
    int order;        /* BLOCK: how many times it was differentiated */
    long defines;     /* DIFF: the state v of der(v) = w; MULTI: the
                         multiplexed variable; BLOCK: the unknown the
                         block's matching assigns it (its guard's w); else
                         -1 (rimis_result.vars) */
    bool guarded;     /* BLOCK: printed as `if C then ... else w + ... = 0;` */
} rimis_eq;

/* One CDG block in the output. */
typedef struct rimis_group {
    uint32_t block;      /* CDG block id */
    long cond;           /* index into conds, -1 when true */
    uint32_t n_eqs;
    uint32_t *eqs;       /* owned: indices into rimis_result.eqs */
} rimis_group;

typedef struct rimis_result {
    char *text;          /* owned: the Modelica model, NUL-terminated */
    size_t text_len;
    uint32_t n_lines;
    uint32_t n_conds;
    rimis_cond *conds;
    uint32_t n_vars;
    rimis_var *vars;
    uint32_t n_eqs;
    rimis_eq *eqs;       /* in text order */
    uint32_t n_groups;   /* == the CDG's blocks, in CDG block order */
    rimis_group *groups;
    uint32_t n_multiplexers, n_reinits;
    uint32_t n_replicates; /* RIMIS_V_REPLICATE and RIMIS_V_READ */
    mdae_diags warnings; /* owned: what was carried approximately (a
                            restart value copied where the source's reset
                            could not be printed, ...), located */
} rimis_result;

typedef struct rimis_options {
    const char *model_name; /* NULL: the source's name + "_rimis", or
                               "Model_rimis" */
    bool no_guard;          /* section 4.7 off: block equations printed
                               unguarded (partially evaluated only) */
    /* The source text the model was read from (Modelica only; may be
     * NULL): when-clauses are carried from it. Borrowed for the call. */
    const char *source;
    size_t source_len;
    size_t max_lines;       /* 0: 10,000,000 */
    /* Bytes of text (0: 64 MiB, the front-ends' default input limit, so
     * that mdae reads back whatever it prints). MDAE_E_LIMIT past it. */
    size_t max_bytes;
    /* Accept the mode changes that make states jump or values impulsive
     * (refused otherwise, step 6): each such refusal becomes a warning and
     * the output copies the states across the change, as RR-9459's tool
     * does, which is wrong where they do jump. For a modeler who knows the
     * changes happen where nothing jumps; `mdae rimis --accept-jumps`. */
    bool accept_jumps;
} rimis_options;

/* Build the RIMIS of m, analysed as r (sa_analyze, not singular_only) with
 * graph g (cdg_build of r). opt may be NULL. On MDAE_OK *out is new
 * (rimis_result_free). On MDAE_E_MODEL, diags (may be NULL) has located
 * errors saying why. */
MDAE_API int rimis_build(const mel_model *m, const sa_result *r, const cdg_graph *g,
                         const rimis_options *opt, rimis_result **out /* out */,
                         mdae_diags *diags);
MDAE_API void rimis_result_free(rimis_result *res /* NULL ok */);

/* "mode", "diff", "multi", "block", "reinit", "when", "assert". */
MDAE_API const char *rimis_eq_kind_name(rimis_eq_kind k);
/* "source", "dummy", "replicate", "read". */
MDAE_API const char *rimis_var_kind_name(rimis_var_kind k);

#endif /* RIMIS_H */
