/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/mo.h -- the Modelica front-end: read Base Modelica 0.1 (MCP-0031,
 * files starting with `//! base`) and the papers' flat Modelica
 * (`model M ... equation ... end M;`), and elaborate the model into the same
 * flat guarded incidence structure as MEL (mel_model, engine/mel.h), so that
 * the analysis, blocks, incremental sessions, server and CLI work unchanged.
 *
 * Promises: pure computation; no I/O, no logging, no global state, no BuDDy.
 * Reentrant. Whatever the bytes, mo_model_parse returns: input size, nesting
 * depth, instances (unknowns + equations + mode variables + for-iterations)
 * and errors are bounded by mel_options exactly as for MEL.
 *
 * Meaning (what becomes what; docs/languages.md says it for users):
 *  - unknowns: Real components that are not parameter/constant/discrete,
 *    not a top-level input, and not assigned inside a when-clause;
 *  - mode variables: atoms of the non-parameter conditions that select
 *    incidences (a Boolean variable by name; a relation, `initial()`,
 *    `pre(b)`, ... by its normalised source text). An atom whose branches
 *    have the same incidences does not become a mode variable;
 *  - invariants derived (documented in mo_elab.c): b <=> expr for a Boolean
 *    mode variable defined by `b = expr` whose atoms are all mode variables;
 *    mutual exclusion of `E == k1`, `E == k2` for the same E; the
 *    implications stated by `m = if c1 then k1 elseif ...` for an Integer m
 *    compared with constants;
 *  - equations: every continuous scalar equation (for-equations unrolled,
 *    if-equation branches guarded, algorithm sections one equation per
 *    assigned unknown, `(a, b) = f(x)` one per unknown output). When-clauses,
 *    reinit, discrete definitions, clocked equations, initial equations and
 *    asserts are kept as mel_model.events.
 *
 * Expressions (issue 38; engine/fx.h): unless mel_options.no_expressions,
 * every equation instance keeps lhs and rhs as fx trees (loop indices and
 * enumeration literals as numbers, the literal's 1-based ordinal;
 * parameters and constants FX_KNOWN, listed in mel_model.knowns; the
 * conditions that became mode variables FX_MODE; a reinit next(v) = e; an
 * algorithm section x = FX_OPAQUE("algorithm") per assigned unknown; a
 * tuple equation a = FX_OPAQUE(call) per output), each mode variable its
 * definition (mel_mode.def), each if-equation's equations their position
 * (mel_equation.cond, cond_pos). An element or field of a function's
 * array or record result, (f(x))[i, j] and (f(x)).h, is the unknown
 * function named "f()[i,j]" or "f().h" of x. What is not scalarised (matrices, records,
 * strings, named arguments, functions with array results, delay...) is an
 * FX_OPAQUE with its text and the unknowns it reads; mo_elab.c,
 * "expressions", lists the rules.
 *
 * Errors: as mel_model_parse (MDAE_E_PARSE, MDAE_E_MODEL, MDAE_E_LIMIT,
 * MDAE_E_NOMEM) with located diagnostics; what the analysis cannot represent
 * (connect, array equations, record variables) is a located error naming the
 * construct. Clocked partitions are kept aside like when-clauses.
 *
 * Recovery (issue 36 item 2; mel.h, "Recovery", says what the caller gets):
 * a broken element or equation is skipped to its ';', or to the `end`,
 * `else`, `elseif`, `elsewhen`, `equation`, `algorithm`, `public` or
 * `protected` that follows it (an element also to the next line that starts
 * a declaration), so a half-typed line does not cost the class
 * around it; one missing only its ';' is kept. With mel_options.recover the
 * rest is elaborated, and an equation that uses a name spelled only in what
 * was left out is left out too (instead of an "unknown name" error).
 *
 * Ownership: the model is released with mel_model_free().
 */
#ifndef MO_H
#define MO_H

#include <stdbool.h>
#include <stddef.h>

#include "mdae.h"
#include "mel.h"

/* Parse and elaborate a Modelica text (len bytes, any bytes). opt may be
 * NULL; its defines are ignored (Modelica parameters have bindings). On
 * MDAE_OK *out is a new model (owned: mel_model_free). Warnings may be added
 * to diags on success. */
MDAE_API int mo_model_parse(const char *text, size_t len, const mel_options *opt,
                            mel_model **out, mdae_diags *diags);

/* True if the text looks like Base Modelica (starts with `//! base`, after
 * optional blank space) or if `filename` (may be NULL) ends in .mo or .bmo. */
MDAE_API bool mo_is_modelica(const char *text, size_t len, const char *filename);

/* Print a model (Modelica-imported or not) as MEL text. When the model kept
 * its expressions (issue 38; not mel_options.no_expressions), the text is
 * the model itself: known quantities with their bindings, mode variables
 * with their definitions (a Modelica relation atom under its quoted text),
 * invariants, unknowns, every equation as written in a conditional
 * statement of its guard, when-equations, and the kept events as comments;
 * it reads back into the same flat model (tests/engine/test_convert.c
 * says what cannot: engine/mo_write.c). Without expressions, the structure
 * only: one term per incidence case (mo_print.c). Names that are not MEL
 * identifiers are quoted ('stop1.v') with expressions, mangled (the
 * original in a comment) without. On MDAE_OK *out is a new NUL-terminated
 * string (owned: mdae_free). MDAE_E_NOMEM otherwise. */
MDAE_API int mo_model_to_mel(const mel_model *m, char **out);

/* Print a model that kept its expressions as a flat Modelica model
 * `model NAME ... equation ... end NAME;` (name NULL: "Model"): parameters
 * and constants with bindings, unknowns, Booleans with their definitions,
 * guarded equations as if-equations (relation atoms as their relations),
 * when-equations with reinit, the kept events as text. On MDAE_OK *out is
 * a new string (owned: mdae_free); MDAE_E_NOTIMPL when the model has no
 * expressions (the structure alone is not a Modelica model), MDAE_E_NOMEM,
 * MDAE_E_INVAL. */
MDAE_API int mo_model_to_modelica(const mel_model *m, const char *name, char **out);

#endif /* MO_H */
