/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/mel_int.h -- declarations shared by the files of the MEL front-end
 * (mel_lex.c, mel_parse.c, mel_ast.c, mel_elab.c, mel_guard.c) and its
 * tests; not part of the public interface (engine/mel.h).
 *
 * Pipeline: mel_model_parse (mel_elab.c) hands its own steps to
 * mel__front_parse (mel_ast.c, shared with mo_model_parse), which checks the
 * input size; they run mel__parse (lexer + recursive-descent parser into a
 * mel__stmt list in a scratch arena), then elaborate the tree into a
 * mel_model whose guards are hash-consed by mel_guard.c.
 *
 * Errors: every stage reports through one mel__report, which counts errors,
 * remembers the most serious return code and tells the stages to stop once
 * opt->max_errors is reached.
 *
 * Stack safety: the parser counts nesting (statements, parentheses, unary
 * operators, right operands of `^`, calls, if-expressions) and stops at
 * max_depth, which is clamped to MEL__DEPTH_CAP whatever the caller asks,
 * because each level costs a few C stack frames and every later walker
 * (elaboration, guards) recurses at most a small constant times per level.
 * Measured (2026-11-21, tests/engine/test_mel_errors.c under `ulimit -s`):
 * the default 256 levels fit in 512 KB of stack in a -O0 build and in 1 MB
 * under ASan; the 1024 cap needs the usual 8 MB main-thread stack.
 */
#ifndef MEL_INT_H
#define MEL_INT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mdae.h"
#include "mel.h"
#include "mel_ast.h"
#include "mel_outline.h"

#define MEL__DEFAULT_MAX_INPUT ((size_t)64 << 20)
#define MEL__DEFAULT_MAX_DEPTH 256
#define MEL__DEPTH_CAP 1024
#define MEL__DEFAULT_MAX_INSTANCES 1000000
#define MEL__DEFAULT_MAX_ERRORS 50
/* Longest identifier or number token, in bytes. */
#define MEL__MAX_NAME 256
/* Largest guard, counted as a tree (shared nodes counted once per use):
 * consumers evaluate guards recursively without memoisation, so a formula
 * like ((a == b) == c) == ... must not expand exponentially behind a small
 * DAG. */
#define MEL__MAX_GUARD_SIZE ((uint64_t)1 << 22)

/* ---- Error reporting ------------------------------------------------------ */
typedef struct mel__report {
    mdae_diags *diags; /* borrowed; may be NULL */
    size_t errors;
    size_t max_errors;
    int rc;    /* most serious code so far (NOMEM > LIMIT > PARSE > MODEL) */
    bool stop; /* max_errors reached, a fatal limit, or out of memory */
    /* Recovery (mel.h, "Recovery"): the syntax errors counted, the last
     * error's message (for the left-out entry it causes), and the left-out
     * list, kept only when `recover` (owned: mel__report_close). */
    bool recover;
    const char *src; /* the text (recover only: a consequence names what was left out) */
    size_t syntax_errors;
    char last[160];
    mel_left_out *lo;
    size_t n_lo, cap_lo;
} mel__report;

void mel__report_init(mel__report *r, mdae_diags *diags, size_t max_errors);
/* Free the left-out list (what mel__report_take_left_out did not take). */
void mel__report_close(mel__report *r);
/* Record that text `where` was left out because of the last error (no-op
 * without `recover`; bounded: errors are). */
void mel__left_out(mel__report *r, mdae_range where);
/* The same with a message of its own (a consequence, not a syntax error). */
void mel__left_out_msg(mel__report *r, mdae_range where, const char *msg);
/* True when `name` is spelled, as a whole identifier, inside text left out
 * so far (rep->src): a name unknown for that reason is a consequence. */
bool mel__left_out_spells(const mel__report *r, const char *name);
/* Hand the left-out list and the syntax-error count to model m (its
 * mel_model_free releases them). */
void mel__report_take_left_out(mel__report *r, mel_model *m);
/* Count an error of class `code` (MDAE_E_PARSE, _MODEL, _LIMIT) and append a
 * located message. */
void mel__error(mel__report *r, int code, mdae_range where, const char *fmt, ...)
    MDAE_PRINTF(4, 5);
/* mel__error for a stated limit of the front-end (MDAE_E_LIMIT; mdae.h's
 * MDAE_LIMIT_* id and value, named in the message, issue 36). */
void mel__error_limit(mel__report *r, mdae_range where, int id, double value, const char *fmt,
                      ...) MDAE_PRINTF(5, 6);
/* Record out-of-memory: no message (it might not fit), stop everything. */
void mel__nomem(mel__report *r);
/* Combine two return codes, keeping the more serious. */
int mel__rc_worse(int a, int b);

/* ---- What both front-ends share (mel_ast.c) -------------------------------
 * The MEL (mel_parse.c, mel_elab.c) and Modelica (mo_parse.c, mo_elab.c)
 * front-ends build the same mel_model; these are the steps they take alike. */
/* True when a located error at `where` was reported before, as remembered in
 * seen[0 .. *n_seen) (room for cap offsets): then only its code is counted
 * into r->rc. Else the position is remembered (while there is room) and the
 * caller reports it: an error in a loop body is reported once, not once per
 * iteration using up max_errors. Unlocated errors are never "seen". */
bool mel__seen_before(mel__report *r, int code, mdae_range where, uint32_t *seen, size_t cap,
                      size_t *n_seen);
/* mel__error with the message formatted from fmt and ap, cut to cap - 1
 * bytes (0 < cap <= 1024). */
void mel__verror(mel__report *r, int code, mdae_range where, size_t cap, const char *fmt,
                 va_list ap);
/* The elaborators' instance limit: opt->max_instances, or
 * MEL__DEFAULT_MAX_INSTANCES when 0. */
size_t mel__max_instances(const mel_options *opt);
/* The instance limit is reached at `where`: the limit error (MDAE_E_LIMIT,
 * "model would create more than N instances") is reported once, the first
 * time (*limit_hit false, then set), and the report stops. */
void mel__instance_limit(mel__report *r, mdae_range where, size_t max_instances,
                         bool *limit_hit);
/* The parsers' nesting limit: `asked`, or MEL__DEFAULT_MAX_DEPTH when 0,
 * clamped to MEL__DEPTH_CAP. */
size_t mel__max_depth(size_t asked);
/* A new empty model with its private part and its arena (owned:
 * mel_model_free), or NULL, nothing allocated, when out of memory. */
mel_model *mel__model_new(void);
/* mel_options.no_expressions (mel.h): drop the expressions the structure
 * was read from (equation sides, mode definitions, start values, known
 * quantities) and free their pool. */
void mel__drop_expressions(mel_model *m);
/* A language's steps from text to model: parse into `ast` (a scratch arena,
 * freed by the caller), decide whether to go on after syntax errors (mel.h,
 * "Recovery"), elaborate into *out (set only on MDAE_OK). */
typedef int (*mel__front)(const char *text, size_t len, const mel_options *opt,
                          mel__report *rep, mel__arena *ast, mel_model **out);
/* What mel_model_parse and mo_model_parse promise (mel.h, mo.h) around
 * `front`: arguments checked (MDAE_E_INVAL), opt NULL for the defaults, the
 * input size limit, one report (max_errors, recover, the text), the left-out
 * list handed to the model, and the diagnostics appended put in source order
 * (elaboration reports after parsing): unlocated errors (the -D ones) first,
 * the unlocated "too many errors" note last. text is "" when NULL (then len
 * is 0). */
int mel__front_parse(const char *text, size_t len, const mel_options *opt, mel_model **out,
                     mdae_diags *diags, mel__front front);

/* ---- Lexer ---------------------------------------------------------------- */
typedef enum mel__tok {
    MEL_T_EOF,
    MEL_T_ID,
    MEL_T_NUM,
    MEL_T_TEXT, /* "..." (issue 38): text a front-end kept as-is (FX_OPAQUE) */
    /* keywords, in the order of mel__keywords[] */
    MEL_T_REAL,
    MEL_T_BOOLEAN,
    MEL_T_INTEGER,
    MEL_T_EQUATION,
    MEL_T_INVARIANT,
    MEL_T_IF,
    MEL_T_THEN,
    MEL_T_ELSE,
    MEL_T_END,
    MEL_T_FOREACH,
    MEL_T_IN,
    MEL_T_DO,
    MEL_T_DONE,
    MEL_T_DER,
    MEL_T_LAST,
    MEL_T_PRE,
    MEL_T_TRUE,
    MEL_T_FALSE,
    MEL_T_WHEN, /* added for transient modes (issue 13 item 5) */
    MEL_T_NEXT,
    /* punctuation */
    MEL_T_SEMI,   /* ; */
    MEL_T_COLON,  /* : */
    MEL_T_COMMA,  /* , */
    MEL_T_DOTDOT, /* .. */
    MEL_T_LPAREN,
    MEL_T_RPAREN,
    MEL_T_LBRACK,
    MEL_T_RBRACK,
    MEL_T_ASSIGN, /* = */
    MEL_T_EQ,     /* == */
    MEL_T_NE,     /* <> */
    MEL_T_LT,
    MEL_T_LE,
    MEL_T_GT,
    MEL_T_GE,
    MEL_T_PLUS,
    MEL_T_MINUS,
    MEL_T_STAR,
    MEL_T_SLASH,
    MEL_T_CARET,
    MEL_T_AMP,
    MEL_T_BAR,
    MEL_T_BANG,
    MEL_T__COUNT
} mel__tok;

typedef struct mel__token {
    mel__tok kind;
    mdae_range where;
    const char *text; /* into the source; len bytes */
    size_t len;
    double value;    /* MEL_T_NUM */
    long long ival;  /* MEL_T_NUM with is_int */
    bool is_int;
    /* MEL_T_ID quoted with escapes: text is the raw content between the
     * quotes, its name mel__unquote's (mel_lex.c, "Quoted identifiers"). */
    bool escaped;
} mel__token;

typedef struct mel__lexer {
    const char *src;
    size_t len;
    size_t pos;
    uint32_t line;
    size_t line_start;
    mel__report *rep; /* borrowed */
} mel__lexer;

void mel__lex_init(mel__lexer *lx, const char *src, size_t len, mel__report *rep);
/* The cursor at the start of src[0 .. len) (line 1), without MEL's
 * byte-order-mark skip: what both lexers start from (mo_lex.c's embeds
 * it). */
void mel__lex_start(mel__lexer *lx, const char *src, size_t len, mel__report *rep);
/* names[kind - first] when first <= kind < end, else "token": the tail of
 * both lexers' token names (mel__tok_name, mo__tok_name). */
const char *mel__tok_in(int kind, int first, int end, const char *const *names);
/* Next token. Malformed input (invalid bytes, unterminated comments, over-long
 * names or numbers) is reported through rep and skipped, so this always makes
 * progress and ends with MEL_T_EOF. */
void mel__lex_next(mel__lexer *lx, mel__token *out);
/* The name of a quoted identifier's raw content raw[0 .. len), or a
 * text's (escapes checked by the lexer; \n, a newline, only in texts)
 * written to out, which has room for it (at most
 * len bytes; at most MEL__MAX_NAME for a token the lexer returned); its
 * length. */
size_t mel__unquote(const char *raw, size_t len, char *out);
/* "identifier", "'then'", "';'", "end of input" ... for messages. */
const char *mel__tok_name(mel__tok kind);

/* ---- Parser ----------------------------------------------------------------
 * Parse the whole text into a statement list allocated in `arena`. Returns
 * MDAE_OK (possibly an empty list: *out = NULL) or the report's code; the
 * partial tree is left in the arena either way. */
int mel__parse(const char *src, size_t len, size_t max_depth, mel__arena *arena,
               mel__report *rep, mel__stmt **out);

/* ---- Guards (mel_guard.c) -------------------------------------------------
 * A hash-consing guard factory: structurally equal guards are the same
 * pointer, so x & x, x | !x and the like fold by pointer comparison. Nodes are
 * allocated in the model's arena. On failure (OOM, MEL__MAX_GUARD_SIZE) a
 * builder records the error in `err` and returns the TRUE guard, so callers
 * may carry on and check `err` at a convenient point. */
typedef struct mel__gfactory {
    mel__arena *arena; /* borrowed: the model's */
    struct mel__gnode **table;
    size_t cap, count;
    uint32_t next_id;
    int err; /* MDAE_OK, MDAE_E_NOMEM or MDAE_E_LIMIT */
    /* A factory that only finds (mel__gf_view): a guard not made yet is
     * not made; the builder sets `missed` (and err MDAE_E_LIMIT). */
    bool frozen, missed;
    uint32_t below; /* frozen: only the guards made before (id < below) are found */
    /* An overlay (mel__gf_overlay; issue 40 item 3, the replay of an
     * edited condition): the guards of `base` (and of its bases) are
     * found as this table's, read-only; new ones go to this table, with
     * ids from base->next_id up. NULL: none. */
    const struct mel__gfactory *base;
    /* mel__g_or_all calls that ORed two distinct guards or more: the only
     * place where the guards' creation order (ids) shapes a guard. */
    size_t compared;
} mel__gfactory;
/* What both elaborators open with: their scratch arena *tmp initialised,
 * a new model (mel__model_new) with its guard factory *gf building in the
 * model's arena, *ma that arena. NULL when out of memory (reported through
 * rep; *tmp is to be freed all the same). */
mel_model *mel__elab_open(mel__report *rep, mel__arena *tmp, mel__gfactory *gf,
                          mel__arena **ma);

void mel__gf_init(mel__gfactory *f, mel__arena *arena);
void mel__gf_close(mel__gfactory *f); /* frees the table, not the nodes */
/* A factory over the table of another (what mel__gf_close would free:
 * table, cap, count, next_id), borrowed, that only finds guards (frozen,
 * above); mel__gf_close leaves the table alone. */
void mel__gf_view(mel__gfactory *f, const mel__gfactory *of);
/* A factory that finds the guards of `of` (borrowed: it must outlive f,
 * and is never written) and makes new ones in its own table, nodes in
 * `arena`, ids from of->next_id up; mel__gf_close frees its own table. */
void mel__gf_overlay(mel__gfactory *f, const mel__gfactory *of, mel__arena *arena);
const mel_guard *mel__g_true(void);
const mel_guard *mel__g_false(void);
const mel_guard *mel__g_var(mel__gfactory *f, uint32_t var);
const mel_guard *mel__g_not(mel__gfactory *f, const mel_guard *a);
const mel_guard *mel__g_and(mel__gfactory *f, const mel_guard *a, const mel_guard *b);
const mel_guard *mel__g_or(mel__gfactory *f, const mel_guard *a, const mel_guard *b);
/* OR of n guards as a balanced tree (depth log n). gs is reordered. */
const mel_guard *mel__g_or_all(mel__gfactory *f, const mel_guard **gs, size_t n);
/* A stable creation number (0 for FALSE, 1 for TRUE), for ordering. */
uint32_t mel__g_id(const mel_guard *g);
/* Its size as a tree (shared subguards counted at each use, saturated):
 * what MEL__MAX_GUARD_SIZE bounds. */
uint64_t mel__g_size(const mel_guard *g);

/* ---- Incidences from expressions (mel_inc.c, issue 38) -----------------------
 * The one incidence pass of the front-ends: the incidence structure of a
 * flat model is what its equations' expressions (engine/fx.h) read. A *use*
 * is one reading of an unknown: equation, unknown, derivative order (and,
 * of it, how many are next()), the guard under which it is read (the
 * equation's own guard and the conditions of the if-expressions around),
 * where. */
typedef struct mel__use {
    uint32_t eq, var;
    int order;
    int next; /* of order, under next() (mel_order_case.next) */
    const mel_guard *guard;
    mdae_range where;
    uint64_t seq; /* the order of the walk: ties in a case keep it */
} mel__use;

typedef struct mel__uses {
    mel__use *p; /* mdae_malloc'ed, the caller frees */
    size_t n, cap;
} mel__uses;

/* Append to u the uses side e (an fx tree, NULL: none) of equation eq
 * implies under guard g (the equation's): FX_VAR at its order plus the
 * der()/next() around, nothing under pre()/last(); an if-expression whose
 * condition is a formula over mode variables reads its branches under g
 * and the condition (resp. its negation), one whose condition is not
 * (relations over reals, calls, known quantities) both under g and not its
 * condition (mel_inc.c says how guards are built). A use under a FALSE
 * guard is dropped. false on OOM (some uses may have been added). */
bool mel__inc_uses(mel__gfactory *gf, mel__uses *u, uint32_t eq, const struct fx_node *e,
                   const mel_guard *g);
/* Group the uses (sorted here) into the equations' incidences: one per
 * (equation, unknown), sorted by unknown; one case per order, decreasing,
 * guarded by the OR of its uses' guards, located at its first use;
 * cases whose guard is FALSE, equals a higher case's or lies below a TRUE
 * case dropped. eqs[k].incs / n_incs are set (n_incs counted up from the
 * caller's 0), in arena ma; *n_edges their total. MDAE_OK, MDAE_E_NOMEM,
 * or the factory's error. */
int mel__inc_build(mel__uses *u, mel_equation *eqs, mel__arena *ma, mel__gfactory *gf,
                   size_t *n_edges);

/* ---- The model's private part ---------------------------------------------- */
typedef enum mel__sym_kind {
    MEL_SYM_VAR,    /* real unknown: index into variables */
    MEL_SYM_PARAM,  /* real parameter: index into knowns (parameters and integers before) */
    MEL_SYM_MODE,   /* boolean: index into modes */
    MEL_SYM_INT,    /* integer constant: value; index as a parameter's */
    MEL_SYM_EQN     /* equation label: index into equations */
} mel__sym_kind;

typedef struct mel__sym {
    const char *name; /* instance name, in the model arena */
    uint32_t hash;
    mel__sym_kind kind;
    uint32_t index;
    long long value;  /* MEL_SYM_INT */
    bool open_boolean; /* MEL_SYM_PARAM: a boolean parameter without `(value = v)`,
                        * which a later `b : boolean` makes a mode variable */
    uint64_t seq;     /* elaboration order of the declaration */
    mdae_range where; /* first declaration */
    struct mel__sym *next; /* hash chain */
    void *aux; /* the elaborator's, during elaboration (mel_elab.c: its record) */
} mel__sym;

typedef struct mel__symtab {
    mel__sym **buckets;
    size_t cap, count;
} mel__symtab;

/* Pools a model's expressions may share with earlier versions (above). */
#define MEL__MAX_HELD 8

/* Where a MEL equation came from, kept for the next version's
 * elaboration (mel_options.since, engine/mel_elab.c): its statement's
 * range and its loop indices' values ("i=3;" innermost first, in the
 * model's arena), or env NULL when it cannot be reused (declared in
 * several branches). */
typedef struct mel__eqsrc {
    const char *env;
    mdae_range stmt;
    bool plain; /* declared outside conditional statements and when-clauses */
    /* Its item made guard nodes (pass 2): the replay of an edit
     * (mel_elab.c, "Replay") cannot redo it, whose guards must be made
     * in the order a cold parse makes them. */
    bool made_guards;
    uint32_t guard_mark; /* the factory's next id when its item began */
    uint32_t size;     /* its statement's mel__stmt.size (the work it charged) */
    uint64_t seq;      /* its item's elaboration order (integer constants before it) */
} mel__eqsrc;

struct mel_model_priv {
    mel__arena arena; /* names, guards, cases, incidences, symbols */
    mel__symtab syms;
    /* arrays handed out through mel_model, from mdae_malloc */
    mel_mode *modes;
    mel_invariant *invariants;
    mel_variable *variables;
    mel_equation *equations;
    mel_when *whens;
    mel_left_out *left_out; /* and its messages, from mdae_malloc */
    /* Issue 38: the expressions (engine/fx.h; NULL with no_expressions)
     * and the known quantities (mdae_malloc; names in `arena`). */
    struct fx_pool *exprs;
    mel_known *knowns;
    /* MEL with expressions kept: the text (mdae_malloc) and each
     * equation's source (mdae_malloc; n_equations), for the next version
     * (mel_options.since); NULL otherwise. */
    char *src;
    size_t src_len;
    mel__eqsrc *eqsrc;
    /* eqsrc is a version's this one was replayed from (mel_elab.c,
     * "Replay": no source moved), which it holds (base): not freed here;
     * eqsrc_lent: some replay of this version shares this one's, freed
     * then with what is left of it (mel_model_free, priv_release). */
    bool eqsrc_borrowed, eqsrc_lent;
    /* What pass 1 read of that text (mel_elab.c, "declarations_key"):
     * mdae_malloc, or NULL (not kept: syntax errors, no sources). */
    char *decl_key;
    size_t decl_key_len;
    /* The previous versions' pools whose nodes this model's expressions
     * share (fx_pool_hold; released by mel_model_free): at most
     * MEL__MAX_HELD, beyond which a version lowers everything again. */
    struct fx_pool *held[MEL__MAX_HELD];
    size_t n_held;
    /* A replayed version's (mel_elab.c, "Replay: a chain without end"):
     * where the trees of each equation (both sides), then of each mode
     * variable's definition, then of each known quantity's binding are
     * (n_equations + n_modes + n_knowns entries, mdae_malloc): held[k]
     * for k < n_held (k < root_slots: some pool of the root's group, the
     * pools the full parse the chain started from held or made), or this
     * version's own pool (n_held). NULL for a full parse: all its own
     * group's. */
    uint8_t *tree_pool;
    size_t root_slots;
    /* A replay's count of E's instances whose sides it took from the
     * previous version (mel_elab.c, "Replay: instances an edited
     * condition leaves alone"). */
    size_t sides_as_before;
    /* Of those, the ones whose sides are the previous version's trees
     * (kept_from's, compared by pointer only; NULL: none) at the end of
     * the replay (a rebase may have copied them). See
     * mel_model_sides_shared. */
    const struct mel_model *kept_from;
    size_t sides_kept;
    /* A replay of an edit inside one equation statement that moved no
     * location and was not rebased (mel_elab.c, "Replay"): the previous
     * version (rows_from, compared by pointer only) and E's instances,
     * increasing (edited_rows, mdae_malloc); every other equation is
     * rows_from's at its index, copied field for field (replay_copy).
     * rows_from NULL: not known. See mel_model_edited_rows. */
    const struct mel_model *rows_from;
    uint32_t *edited_rows;
    size_t n_edited_rows;
    /* rows_known: edited_rows holds the instances of this version's
     * statement that begins at offset rows_at (any replay of an edit
     * inside one equation statement, moved or rebased too: indices do not
     * move), which the next replay of an edit in it reads instead of
     * every source (mel_elab.c's replay_sources). */
    uint32_t rows_at;
    bool rows_known;
    /* A replay of an edit inside one equation statement that moved what
     * follows it and was not rebased: the previous version (shared_from,
     * by pointer only) and how many of its equations this one has field
     * for field, sides included (n_shared: those before the edit, but
     * E's). See mel_model_sides_shared. */
    const struct mel_model *shared_from;
    size_t n_shared;
    /* Issue 40 item 3, the replay of an edit (mel_elab.c, "Replay"):
     * kept by a MEL parse that reported nothing, with its sources. The
     * guard factory's table (`guards`, its arena this one), the declared
     * names without their indices (`bases`: kind of the first declaration,
     * value 1 when some instance is an integer constant; aux: its
     * instances with one index as pass 1 indexed them, mel_elab.c's
     * kept_index, or NULL), pass 1's work
     * and the instance limit it ran under. A version replayed from this
     * one shares arena, syms, guards and bases (`borrowed`: base's) and
     * holds its base (refs counts the versions that hold this one; `gone`:
     * its model was freed; what is left goes with the last holder).
     * depth: versions replayed in a row since the root, at most
     * MEL__MAX_HELD; a rebased replay holds the root directly (depth 1). */
    bool replayable;
    mel__gfactory guards;
    uint32_t guards_items; /* next id after pass 2's items (the incidences made none) */
    mel__symtab bases;
    uint64_t work;
    size_t max_instances;
    bool once; /* every equation declared once: each eqsrc's env set */
    /* Pass 1's count of statement executions, which pass 2's lowering
     * folds conditions with (integer constants declared before it). */
    uint64_t seq_end;
    /* 1 + the offset of the last unknown's declaration (0: none). */
    uint32_t vars_end;
    bool borrowed, gone;
    /* A replay of an edited condition (mel_elab.c, "Replay: an edited
     * condition"): `guards` is an overlay of base's, owned (its nodes in
     * this arena), and the guards' ids need not be a cold parse's
     * creation order (`unordered`), which the model's structure does not
     * depend on while no mel__g_or_all compared two guards: `or_compared`
     * says one may have (in this version or one it was replayed from). */
    bool own_guards, unordered, or_compared;
    /* The offsets of the `if` statements some execution of which pass 1
     * folded (a constant condition): mdae_malloc, n_folded; replays shift
     * them with the text. */
    uint32_t *folded;
    size_t n_folded;
    size_t refs;
    unsigned depth;
    struct mel_model_priv *base;
};

uint32_t mel__hash(const char *s, size_t n);
mel__sym *mel__sym_find(const mel__symtab *t, const char *name);
/* The same for name[0 .. n), which need not be NUL-terminated. */
mel__sym *mel__sym_findn(const mel__symtab *t, const char *name, size_t n);
/* Insert a new symbol (name must be unique: check with find first). NULL on
 * OOM. */
mel__sym *mel__sym_add(mel__symtab *t, mel__arena *a, const char *name);
/* The same for name[0 .. n); the symbol's name is a NUL-terminated copy. */
mel__sym *mel__sym_addn(mel__symtab *t, mel__arena *a, const char *name, size_t n);
/* A symbol with room for a name of n bytes, NUL-terminated at name[n], in
 * no table: the caller writes the name and then inserts it (or never
 * does). Its other fields are zero. NULL on OOM. Inline, so that the
 * caller's own writes replace the clearing (the elaborator makes one per
 * instance). */
static inline mel__sym *mel__sym_new(mel__arena *a, size_t n)
{
    /* One block: the symbol, then its name. */
    mel__sym *s = n < SIZE_MAX - sizeof *s ? mel__arena_alloc_raw(a, sizeof *s + n + 1) : NULL;
    if (s == NULL)
        return NULL;
    char *name = (char *)(s + 1);
    name[n] = '\0';
    *s = (mel__sym){.name = name};
    return s;
}
/* Enter symbol s, whose name is not in t yet and whose hash the caller has
 * set (mel__hash of the name); MDAE_E_NOMEM (and s not entered) when the
 * table cannot grow. */
int mel__sym_insert(mel__symtab *t, mel__sym *s);
/* Enter the n symbols of list, chained through their `next`, as
 * mel__sym_insert would one by one, the table grown once; MDAE_E_NOMEM
 * (and none entered) when it cannot grow. */
int mel__sym_insert_list(mel__symtab *t, mel__sym *list, size_t n);
void mel__symtab_close(mel__symtab *t);


/* ---- Outline builder (mel_outline.c; the Modelica walk in mo_outline.c) ----
 * Symbols are added as the syntax tree is walked; references are kept by
 * name and scope (MEL: 0; Modelica: the class's number) and resolved by
 * mel__outb_finish against the declarations of their scope. Names passed in
 * are copied. Out of memory is sticky (rc). */
typedef struct mel__outb {
    mel_outline *o;
    size_t cap_sym, cap_occ, cap_scope;
    uint32_t *scope; /* parallel to o->symbols */
    struct mel__oref {
        char *name; /* owned */
        mdae_range where;
        uint32_t scope;
    } *refs;
    size_t n_refs, cap_refs;
    int rc;
} mel__outb;

int mel__outb_init(mel__outb *b);
/* A symbol (its declaration occurrence too when the kind declares); its
 * index, or -1 on OOM. detail may be NULL (""). */
long mel__outb_symbol(mel__outb *b, mel_ol_kind kind, const char *name, size_t name_len,
                      const char *detail, mdae_range where, mdae_range name_where, long parent,
                      uint32_t scope);
void mel__outb_ref(mel__outb *b, const char *name, size_t name_len, mdae_range where,
                   uint32_t scope);
/* Resolve the references and hand the outline over (*out), or free
 * everything and return the sticky code. */
int mel__outb_finish(mel__outb *b, mel_outline **out);
/* The Modelica walk (mo_outline.c): the symbols and references of text's
 * intact classes, elements and equations (syntax errors leave out only
 * theirs: issue 36 item 2) added to b; the tree parsed into `ast` with the
 * report `rep` (both set up and closed by mel_outline_parse, as for the MEL
 * walk). MDAE_OK, or the parse's code other than MDAE_E_PARSE. */
int mo__outline(const char *text, size_t len, size_t max_depth, mel__report *rep,
                mel__arena *ast, mel__outb *b);

#endif /* MEL_INT_H */
