/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/sa_int.h -- internals of the implicit engine (engine/sa_*.c), shared
 * between its files. The only header of the project that includes BuDDy.
 *
 * Design notes (the other sa_*.c files point here):
 *
 * Errors by longjmp. Every entry point (sa_analyze, sa_check,
 * sa_result_report) owns an sa_ctx and calls setjmp once. Anything that
 * fails below it -- a BuDDy error reported through bdd_error_hook (node
 * limit, memory), an allocation, a cancellation by the progress callback --
 * calls sa__fail(), which longjmps back with the code. Why not return codes:
 * BuDDy's hook is called deep inside its recursive operators; when the hook
 * returns, BuDDy goes on computing garbage, and when the node table is full
 * every further node costs a full garbage collection, which can take hours on
 * a large table. Jumping out of the hook stops the operator at once. BuDDy
 * stays consistent: its operator caches only ever hold finished sub-results
 * (the failing recursion never writes its entry), its reference stack is
 * reset by the next operator (INITREF), and the nodes built by the aborted
 * operator are unreferenced, so the next collection frees them.
 *
 * References. BuDDy frees, at any garbage collection (which can happen inside
 * any operator), every node that is neither referenced nor on its internal
 * stack. So every BDD that is used again after another BuDDy call lives in a
 * *slot*: either a field of the sa_result (released by sa_result_free), or a
 * slot of the context's stack (sa__slots/sa__tmp, released by sa__release to
 * a mark, or all at once when an entry point ends, error or not). Slots never
 * move (the stack is a list of chunks), so `BDD *` into it stay valid.
 * sa__put(slot, f) references f and drops the old value.
 *
 * Memory. Temporary C arrays come from sa__alloc(), which records them in the
 * context; they are freed when the entry point returns. The sa_result and
 * its arrays are allocated with sa__alloc_keep() (failure still longjmps).
 *
 * Variables. One BDD variable per mode variable and per edge (RR-9322 4.3);
 * there are no equation/variable BDD variables (chi_I, chi_J are kept as mode
 * functions per item). The order is computed in sa_encode.c.
 */
#ifndef SA_INT_H
#define SA_INT_H

#include <bdd.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "bn.h"
#include "mdae.h"
#include "mel.h"
#include "sa.h"

typedef struct sa__chunk sa__chunk;

#define SA_MAX_CLEANUPS 6
typedef struct sa__block sa__block;
typedef struct sa__bmemo sa__bmemo;
typedef struct sa__layout sa__layout;

/* The analysis result: every mode function later stages need (issue 4 will
 * read chi_E, T_e, sigma, c, d). All BDDs are referenced. */
struct sa_result {
    const mel_model *m; /* borrowed */
    uint32_t n_eq, n_var, n_modes;
    size_t n_edges;
    int n_bddvars;    /* BDD variables used: n_modes + n_edges */
    int *mode_var;    /* n_modes: BDD variable of mode variable k */
    int *var_mode;    /* n_bddvars: mode index of a BDD variable, -1: edge */
    int *edge_var;    /* n_edges: BDD variable of edge e */
    int *var_edge;    /* n_bddvars: edge of a BDD variable, -1: mode */
    size_t *eq_first; /* n_eq + 1: edges of equation i are eq_first[i].. */
    uint32_t *edge_eq, *edge_v; /* n_edges: equation and variable of edge e */
    uint32_t *eq_order;         /* n_eq: equations in BDD-variable order */
    /* The owner of the eight arrays above when sa__encode made them,
     * shared (reference counted) with the results that took this one's
     * layout (sa_encode.c, issue 40: an edit of the brake at N = 10,000
     * copied 8 MB of them); NULL: r owns them itself (sa_result_free). */
    sa__layout *layout;
    /* A block's sub-result (sa_blocks.c): the whole's index of each of its
     * equations, so that m's names (the whole's) reach them; else NULL. */
    const uint32_t *eq_whole;
    const uint32_t *var_whole; /* the same for its variables */

    BDD chi_m;    /* valid modes */
    BDD ok;       /* valid modes with a perfect matching */
    BDD singular; /* valid modes without */
    /* A memo (sa__covering): the matchings that leave no active variable
     * out, in every mode, referenced; covering_known says it is set. */
    BDD covering;
    bool covering_known;
    /* EXISTS edges . covering, referenced, when covering_exists_known
     * (sa_result_left_out's pass reads it off Y's root; the partition
     * reads it there). */
    BDD covering_exists;
    bool covering_exists_known;
    /* Nodes produced building it when sa_analyze did
     * (sa_options.singular_by_covering), 0 when sa_result_left_out did:
     * they count against sa_result_left_out's budget as if it had. */
    size_t covering_produced;
    BDD modeset;  /* the set of mode BDD variables (for counting) */
    BDD edgeset;  /* the set of edge BDD variables (for quantifying): read it
                     through sa__edgeset, bddfalse until first needed */
    BDD *chi_i;   /* n_eq */
    BDD *chi_j;   /* n_var */
    BDD *chi_e;   /* n_edges: active (some case holds, the variable exists
                     and the equation is active: chi_e implies chi_i) */
    BDD *te;      /* n_edges: in the chosen MWPM (valid nonsingular modes;
                     false out of ok, which sa__dual relies on); stored as
                     te_within says: read it through sa__te and the other
                     accessors ("r->te's readers") */
    /* te holds the within forms sa__simplify(te[e], ok) (canonical: what
     * sa__within_simplify makes) rather than the exact functions; false
     * (calloc, every writer today): the exact ones. */
    bool te_within;
    int w_sigma;  /* bits of sigma */
    BDD *sigma;   /* n_edges * w_sigma, little-endian */
    int w_off;    /* bits of offsets */
    bool small;   /* every c_i and d_j is below 2^(w_sigma + 2), so their bits
                     from w_sigma + 2 up are false (sa__dual's first attempt
                     fitted); false: not known */
    BDD *c;       /* n_eq * w_off: 0 outside ok & chi_i */
    /* n_eq, or NULL: the value c_i takes in ok & chi_i where that is one
     * integer, else -1 (sa__dual; cdg_build.c reads the sums of edges,
     * active only there, as integers) */
    long long *c_matched;
    BDD *d;       /* n_var * w_off: 0 outside ok & chi_j */
    /* c and d hold the within forms sa__simplify(bit, ok) of their bits
     * (canonical: what sa__within_simplify makes) rather than the exact
     * bits (sa_dual.c's cold fixpoint, ok not constant); false: the exact
     * ones. Read them through the accessors ("r->c's and r->d's readers"). */
    bool cd_within;
    BDD *over;    /* n_eq: singular modes where overdetermined */
    BDD *under;   /* n_var: singular modes where underdetermined */
    bool diagnostics_skipped; /* over and under left empty (sa_options) */
    size_t peak_nodes;
    uint32_t seeded;  /* equations whose offsets the hint gave (sa_hint.c) */
    bool searched;    /* the primal ran a dynamic programme over X */
    bool seeded_tight; /* the primal was the hint's tight graph alone
                          (sa__seeded_primal) */
    int fpi_iterations;
    uint32_t offsets_from_hint; /* sa_method_info.offsets_from_hint */
    double valid_count; /* number of valid modes */
    mdae_bn valid_exact; /* the same, exactly (owned) */
    /* How it was computed (issue 10; sa_analyze.c). */
    int method;              /* SA_METHOD_IMPLICIT or SA_METHOD_ENUMERATE */
    bool fell_back;          /* the implicit path exceeded its budget */
    size_t enumerated_modes; /* enumeration: assignments solved */
    size_t distinct_graphs;  /* enumeration: distinct active graphs */
    double modes_s;          /* valid assignments of the support (plan) */
    uint32_t primal_blocks;  /* the primal ran block by block over this
                                many blocks (sa_blocks.c), else 0 */
    uint32_t blocks_fell_back; /* of those, enumerated after their implicit
                                  attempt exceeded its budget */
    bool dm_by_blocks;       /* so did the diagnostics (sa_blocks.c) */
    uint32_t max_by_cofactors; /* blocks whose singular modes' maximum
                                  matchings came by cofactors, all or some
                                  (sa_maxmatch.c) */
    bool reordered;          /* rows in Cuthill-McKee's order after
                                sa__hard_part asked for it */
    int enc_order;           /* SA_ORDER_* the rows were laid out in */
    double row_profile;      /* sa_ctx.row_profile of that layout */
    uint32_t encoded_from_hint; /* equations whose BDDs were the hint's,
                                   taken with its layout (sa_encode.c) */
    /* The whole's plan (sa__enum_plan_whole), kept for the analyses this
     * result seeds: S (plan_n_s mode variables, increasing, owned), the
     * valid assignments of S (referenced) and their number. */
    bool plan_kept;
    uint32_t plan_n_s;
    uint32_t *plan_s_modes;
    BDD plan_valid_s;
    double plan_modes;
    uint32_t seeded_rounds;  /* sa_method_info.seeded_rounds */
    uint32_t blocks_tight;   /* of the blocks, solved by sa_tight.c */
    uint32_t blocks_learned; /* of those, by offsets learned from samples */
    uint32_t blocks_wide;    /* of those, by keys at distance two
                                (sa_tight.c, learned_rounds): an edit seeds
                                them by the repair of sa_primal.c instead */
    uint32_t seeded_zero;    /* sa_method_info.seeded_zero */
    uint32_t seeded_sampled; /* sa_method_info.seeded_sampled */
    uint32_t seeded_repaired; /* sa_method_info.seeded_repaired */
    /* A memo, NULL until cdg_build fills it (its saturation, which computes
     * it anyway; engine/cdg_build.c): per edge, referenced, chi_E &
     * (d_j = c_i + sigma_e), exact in ok, anything outside. An analysis
     * seeded by this result reads its tight edges there (sa_hint.c) instead
     * of computing them again. With bmemo, the only fields written after
     * the result is returned; nothing else reads it. */
    BDD *tight_memo;
    /* The blocks this analysis solved or found solved, and (written by
     * cdg_build after the result is returned) its dependency graph's
     * union-SCCs and edges, for an analysis seeded by this result
     * (sa_memo.c); NULL: none. */
    sa__bmemo *bmemo;
    uint32_t blocks_reused; /* sa_method_info.blocks_reused */
    /* The blocks this analysis solved or reused, by the place of their
     * rows (sa_blocks.c, "The blocks kept by place"), for an analysis
     * seeded by this result; NULL: none. Freed by sa__kept_free. */
    struct sa__kept *kept;
    uint32_t seeded_vector_columns; /* sa_method_info.seeded_vector_columns */
    uint32_t seeded_columns_made; /* sa_method_info.seeded_columns_made */
    /* A seeded result's own tight edges (sa_tight.c), for an analysis it
     * seeds before its graph is built (sa_hint.c); NULL: none. Freed by
     * sa__own_tight_free. */
    struct sa__own_tight *own_tight;
};

typedef struct sa_ctx {
    jmp_buf jb;
    int rc;                 /* the code sa__fail() jumped with */
    const sa_options *opt;  /* may be NULL */
    mdae_diags *diags;      /* may be NULL */
    sa__chunk *top;         /* slot stack */
    sa__chunk *spare;       /* the last chunk emptied, kept for reuse */
    size_t n_slots;         /* slots in use, all chunks */
    sa__block *blocks;      /* temporary allocations */
    size_t node_limit;
    sa_result *r;           /* being built; freed on failure */
    sa_report *rep;         /* being built; freed on failure */
    BDD care;               /* sa_result_report_ex: the sets' care set */
    bool report_offsets_only; /* and SA_REPORT_OFFSETS_ONLY */
    size_t max_cubes;       /* cubes a set may have (0: SA_MAX_CUBES) */
    size_t budget;          /* nodes BuDDy may produce for this analysis,
                               counted from its start: its work, not its
                               size (0: only node_limit; sa_analyze.c) */
    bool budget_hit;        /* the jump was the budget, not node_limit */
    int order;              /* SA_ORDER_* of this attempt's rows (sa_encode.c) */
    int method;             /* SA_METHOD_* the caller asked for */
    struct sa__rowgraph *rowgraph; /* SA_ORDER_AUTO: the rows' graph, for
                               sa__cm_better (temporaries of the context) */
    bool want_cm;           /* the jump asks for another attempt in
                               Cuthill-McKee's order (sa__hard_part) */
    /* sa__encode: n_eq flags, the equations whose functions it took from
     * the hint (whose own check passed them: sa__check_edges skips them),
     * or NULL (temporaries of the context) */
    const uint8_t *enc_same;
    double row_profile;     /* the rows' order's profile per row: the
                               columns open at a row, on average
                               (sa_encode.c; sa__enum_is_cheap) */
    int tight_depth;        /* sa__tight_primal calls in progress */
    sa__bmemo *bmemo;       /* the result's, where solved blocks go */
    uint32_t max_block_rows; /* sa__blocks_solve: give up on a block of
                               more equations (0: no limit) */
    unsigned char *seen;    /* sa__seen's bitmap (owned, freed by sa__leave) */
    size_t seen_bytes;
    bool *flags;            /* sa__flags' array (owned, freed by sa__leave) */
    size_t flags_n;
    bool flags_lent;        /* handed out, not given back (sa__flags_done) */
    sa__block *spare_block; /* a released temporary chunk, for reuse */
    const char *phase;      /* the last sa__progress's, for the calls from */
    size_t done, total;     /* the garbage collections (sa_enc.c, on_gbc) */
    /* sa__edge_modes may write te within r->ok (sa_result.te_within) when
     * it can: set by sa_tight.c's tight_whole for its own primal, whose
     * caller conjoins te with that ok anyway (issue 40); NULL: never.
     * For this result only (not the blocks its primal may solve). */
    const sa_result *edge_modes_within;
    bool no_max;            /* sa_blocks.c: the blocks' singular modes'
                               maximum matchings are not wanted (a tight
                               graph's singular modes are only "not
                               covered", sa_tight.c) */
    /* Run by sa__leave, last pushed first: the state of sa_enum.c, and
     * around it sa_blocks.c's sub-problem (sa__push_cleanup). */
    struct {
        void (*fn)(void *arg);
        void *arg;
    } cleanups[SA_MAX_CLEANUPS];
    int n_cleanups;
    /* sa_tight.c's seeded rounds: what their rounds learned of the hint's
     * kept blocks (sa_blocks.c, sa__known), for the later rounds; NULL
     * outside them */
    struct sa__known *known;
    /* sa__encode from the hint: the equations enc_same leaves out, in
     * index order (temporaries of the context; NULL with enc_same) */
    const uint32_t *enc_rows;
    uint32_t n_enc_rows;
} sa_ctx;

/* ---- sa_enc.c: the BuDDy boundary ---------------------------------------- */

/* Arm ctx for an entry point: installs it as the target of the error hook.
 * Use as: `if (setjmp(c->jb)) goto fail; sa__enter(c);` */
void sa__ctx_init(sa_ctx *c, const sa_options *opt, mdae_diags *diags);
void sa__enter(sa_ctx *c);
/* Disarm, release every slot and temporary block. Safe after a failure. */
void sa__leave(sa_ctx *c);
/* fn(arg) will run when the entry point returns, normally or by a jump,
 * unless popped before (state that a jump must free). At most
 * SA_MAX_CLEANUPS at a time (an assertion). */
void sa__push_cleanup(sa_ctx *c, void (*fn)(void *arg), void *arg);
/* Forget the last one pushed, without running it. */
void sa__pop_cleanup(sa_ctx *c);
/* Jump to the armed entry point with rc (never returns). */
_Noreturn void sa__fail(sa_ctx *c, int rc);

/* Fixed limits of the encoding (mdae.h's MDAE_LIMIT_ENCODING and
 * MDAE_LIMIT_OFFSET_BITS): BDD variables (mode variables + incidences),
 * and bits of an offset vector (they are ints). */
#define SA_MAX_BDD_VARS 1000000
#define SA_MAX_OFFSET_BITS 31

/* ---- sa_limit.c: a stated limit as a located diagnostic (issue 36) -------- */

/* Append to c->diags an error for limit id (mdae.h, MDAE_LIMIT_*) of value
 * `value`: the formatted text, the n equations of m that reached it (eqs:
 * their indices; NULL: all of m's) named and counted, the error located at
 * the first of them, then the limit's note (mdae_limit_note). m may be NULL
 * (no location). Does not jump. */
void sa__limit_diag(sa_ctx *c, const mel_model *m, const uint32_t *eqs, size_t n, int id,
                    double value, const char *fmt, ...) MDAE_PRINTF(7, 8);
/* sa__limit_diag for the node limit (c->node_limit) over all of m's
 * equations: the failure epilogue of the entry points. */
void sa__node_limit_diag(sa_ctx *c, const mel_model *m);
/* Run fn(c, arg) with a budget of `budget` more BDD nodes produced (at most
 * the context's own budget, if it has one). True if fn returned. False if
 * it exceeded that budget: then everything fn left is undone (its slots,
 * temporaries and cleanups, which run) and the context is armed again, as
 * before the call. Any other failure, the context's own budget included,
 * jumps on to the entry point as usual. fn must not allocate with
 * sa__alloc_keep (nothing would free it on the way back). */
bool sa__try(sa_ctx *c, size_t budget, void (*fn)(sa_ctx *c, void *arg), void *arg);
/* Inside sa__try: let fn produce `more` BDD nodes from now on if its
 * budget allowed fewer (sa_tight.c, once its samples vouch for a large
 * round). An enclosing try's smaller budget is checked again when this one
 * returns. */
void sa__raise_budget(sa_ctx *c, size_t more);
/* BDD nodes BuDDy produced since the analysis started (what budgets count). */
long sa__produced(void);
bool sa__running(void);
/* An entry point's frame over a finished result r (read only): a context
 * armed on opt (may be NULL), its care set r's valid modes and its covers'
 * limit max_cubes (0: SA_MAX_CUBES); fn(c, arg) runs inside it. Its code:
 * MDAE_OK, or the code a failure inside fn jumped with (everything fn had
 * in slots and temporaries released). */
int sa__run_on(const sa_result *r, const sa_options *opt, size_t max_cubes,
               void (*fn)(sa_ctx *c, void *arg), void *arg);
/* Walks over BDD nodes, each node once until sa__walk_done (sa_enum.c; its
 * bitmap is the context's, sa__seen: one walk at a time). Not bdd_support:
 * BuDDy 2.4 keeps its support buffer across bdd_done / bdd_init and
 * overruns it when the next manager has more variables (seen under
 * valgrind). */
typedef struct sa__walk {
    unsigned char *seen;
    BDD *stack, *visited;
    size_t cap, n_visited, cap_visited;
} sa__walk;
void sa__walk_init(sa_ctx *c, sa__walk *w);
/* in[k] := true for the mode variables k of f's nodes not walked before. */
void sa__walk_modes(sa_ctx *c, sa__walk *w, BDD f, bool *in);
/* Forget the walked nodes (the bitmap clean again). */
void sa__walk_done(sa__walk *w);
/* A bitmap of a bit per node of BuDDy's table, all zero: the caller must
 * leave it so (clear the bits it set) before it is asked again. The
 * context's own, grown with the table: a block-by-block analysis walks
 * thousands of small sets, and a fresh bitmap each time cost more than
 * the walks (issue 16). */
unsigned char *sa__seen(sa_ctx *c);
/* n flags, all false, the context's own (one user at a time): the caller
 * sets some, clears them again, then calls sa__flags_done. A block of a
 * large model reads a few of its many mode variables, and a fresh array of
 * them all per block was quadratic (issue 40: the brake at N = 10,000
 * cleared 20 KB for each of its 60,000 blocks). Left dirty by a jump
 * (lent and never given back), it is cleared whole at the next call. */
bool *sa__flags(sa_ctx *c, size_t n);
void sa__flags_done(sa_ctx *c);
/* Make sure at least n BDD variables exist. */
void sa__need_vars(sa_ctx *c, int n);
/* Enforce the node limit on live nodes. */
void sa__sample(sa_ctx *c);
size_t sa__peak_final(void);
void sa__peak_reset(void);
size_t sa__node_limit(void);
int sa__order(void); /* sa_config.order */
/* sa_config.dynamic_reorder: an analysis may sift its variables, so the
 * level order its choice was made in is not its variables' indices. */
bool sa__sifting(void);
/* Changes whenever a BDD node may stop denoting the function of the
 * variables' indices in their level order that it denoted: a new manager
 * (sa_begin), a sifting. Memos of nodes across analyses check it. */
unsigned long sa__layout_epoch(void);
/* Changes whenever a node handle may stop denoting the same node (level,
 * low, high): a garbage collection, a change of the level order, a new
 * manager. While it is unchanged, a node once read reads the same. */
unsigned long sa__node_epoch(void);
/* With sa_config.dynamic_reorder: sift once, rows as blocks (a safe point:
 * no memo table alive). */
void sa__reorder(sa_ctx *c);

/* Slots (see above). */
BDD *sa__slots(sa_ctx *c, size_t n); /* n slots, bddfalse */
BDD sa__tmp(sa_ctx *c, BDD f);      /* keep f in a new slot, return it */
/* The cube of r's edge variables: r->edgeset, made when first asked for
 * (an edit's analysis seldom quantifies over the whole's edges: building it
 * was 5 % of the brake's N + 1 edit). The hint's when it has the same edge
 * variables (a node denotes the same function in any variable order). Kept
 * in r when r is c->r, else a temporary of c's. */
BDD sa__edgeset(sa_ctx *c, const sa_result *r);
/* The conjunction of the n variables (any order, repeats allowed), kept
 * in a new slot: bdd_makeset's result, in O(n log n). */
BDD sa__cube(sa_ctx *c, const int *vars, size_t n);
size_t sa__mark(const sa_ctx *c);
void sa__release(sa_ctx *c, size_t mark);
static inline void sa__put(BDD *slot, BDD f)
{
    /* Constants carry no reference count and a value put over itself keeps
     * its own: neither calls BuDDy (most of the vectors of the dynamic
     * programmes are constant bits; measured, issue 10). */
    if (f == *slot)
        return;
    if (f >= 2)
        bdd_addref(f);
    if (*slot >= 2)
        bdd_delref(*slot);
    *slot = f;
}

/* bdd_and, bdd_or, bdd_xor and bdd_ite, answered without a call into BuDDy
 * when an operand decides the result (a constant, or equal operands): the
 * same results. Each call into BuDDy costs a setjmp and, kept, a reference
 * and a slot; the dynamic programmes' vectors and mode functions are mostly
 * constants, and these calls were most of the brake's instructions at
 * N = 100 (issue 10). */
static inline BDD sa__and(BDD a, BDD b)
{
    if (a == bddfalse || b == bddfalse)
        return bddfalse;
    if (a == bddtrue || a == b)
        return b;
    if (b == bddtrue)
        return a;
    return bdd_and(a, b);
}

static inline BDD sa__or(BDD a, BDD b)
{
    if (a == bddtrue || b == bddtrue)
        return bddtrue;
    if (a == bddfalse || a == b)
        return b;
    if (b == bddfalse)
        return a;
    return bdd_or(a, b);
}

static inline BDD sa__xor(BDD a, BDD b)
{
    if (a == b)
        return bddfalse;
    if (a == bddfalse)
        return b;
    if (b == bddfalse)
        return a;
    return bdd_xor(a, b);
}

static inline BDD sa__ite(BDD f, BDD a, BDD b)
{
    if (f == bddtrue || a == b)
        return a;
    if (f == bddfalse)
        return b;
    return bdd_ite(f, a, b);
}

static inline BDD sa__biimp(BDD a, BDD b) /* a <=> b */
{
    if (a == b)
        return bddtrue;
    if (a < 2 && b < 2)
        return bddfalse; /* two different constants */
    if (a == bddtrue || b == bddtrue)
        return a == bddtrue ? b : a;
    return bdd_biimp(a, b);
}

/* bdd_simplify(f, care), a constant answered without a call. */
static inline BDD sa__simplify(BDD f, BDD care)
{
    return f < 2 ? f : bdd_simplify(f, care);
}

static inline BDD sa__diff(BDD a, BDD b) /* a & !b */
{
    if (a == bddfalse || b == bddtrue || a == b)
        return bddfalse;
    if (b == bddfalse)
        return a;
    return bdd_apply(a, b, bddop_diff);
}

static inline BDD sa__imp(BDD a, BDD b) /* !a | b */
{
    if (a == bddfalse || b == bddtrue || a == b)
        return bddtrue;
    if (a == bddtrue)
        return b;
    return bdd_imp(a, b);
}

/* Temporary memory, zeroed; freed by sa__leave. */
void *sa__alloc(sa_ctx *c, size_t n);
/* The same, not zeroed: for an array the caller writes whole before reading
 * (keys, copies). */
void *sa__alloc_raw(sa_ctx *c, size_t n);
/* Where the temporary memory is, and freeing everything allocated after
 * such a mark: for a function called once per item of a long list, whose
 * temporaries would otherwise pile up until the entry point returns
 * (sa__set_of_care: 4 million sets, 24 GB, on one MSL model). Temporaries
 * are carved from 16 KB chunks (a calloc each was 5 % of an edit). */
typedef struct sa__amark {
    sa__block *block;
    size_t used;
} sa__amark;
sa__amark sa__alloc_mark(const sa_ctx *c);
void sa__alloc_release(sa_ctx *c, sa__amark mark);
/* Memory that outlives the context (mdae_calloc); longjmps on failure. */
void *sa__alloc_keep(sa_ctx *c, size_t n);
/* The same, not zeroed (mdae_malloc): for arrays written whole before any
 * read or any jump that would free them. */
void *sa__alloc_keep_raw(sa_ctx *c, size_t n);

/* Progress / cancellation checkpoint. */
void sa__progress(sa_ctx *c, const char *phase, size_t done, size_t total);
/* The caller's progress callback alone, with the last checkpoint's phase
 * (a non-zero answer cancels): no node-limit or budget check, so that
 * where it is called changes nothing but how soon a cancel is seen (a
 * checkpoint inside sa__try could make a budget bind that did not). */
void sa__poll_cancel(sa_ctx *c);

/* ---- sa_vec.c: little-endian integer vectors of BDDs (modular, w bits) ---- */
/* The width w that holds v: its bit length, at least 1, at most 62. */
int sa__vbits(unsigned long long v);
void sa__vconst(BDD *dst, int w, unsigned v);
/* dst := the w low bits of v, as constants. */
void sa__vconst_put(BDD *dst, int w, unsigned long long v);
/* Whether every bit of a is a constant, and then its value in *v. */
bool sa__vconst_value(const BDD *a, int w, unsigned long long *v);
/* The same as a value: a's if every bit is a constant, else -1. */
long long sa__vvalue(const BDD *a, int w);
void sa__vcopy(BDD *dst, const BDD *a, int w);
void sa__vite(sa_ctx *c, BDD *dst, BDD f, const BDD *a, const BDD *b, int w);
void sa__vadd(sa_ctx *c, BDD *dst, const BDD *a, const BDD *b, int w);
void sa__vsub(sa_ctx *c, BDD *dst, const BDD *a, const BDD *b, int w);
BDD sa__vgte(sa_ctx *c, const BDD *a, const BDD *b, int w); /* in a slot */
/* within & (a = b) on w bits, in a slot. */
BDD sa__vequal(sa_ctx *c, BDD within, const BDD *a, const BDD *b, int w);
void sa__vmax(sa_ctx *c, BDD *dst, const BDD *a, const BDD *b, int w);
bool sa__vsame(const BDD *a, const BDD *b, int w);
/* Evaluate at a mode by walking nodes (no new nodes). */
bool sa__eval(const sa_result *r, BDD f, const bool *mode);
unsigned sa__veval(const sa_result *r, const BDD *a, int w, const bool *mode);
/* ---- r->te's readers (issue 40) -------------------------------------------
 * Every read of a result's chosen edges goes through these, so that their
 * representation may change without touching the readers again. Why: on the
 * compressible building the valid modes r->ok are a chain through every
 * room, and each exact te[e] (false out of ok) copies the chain above its
 * room: 2 N^2 nodes of BuDDy's table at N = 1,000, against 2 N for the
 * same functions within ok (docs/figures.md: h-bldg12, h-bldg13,
 * h-bldg15; test_sa_te_within). Kept instead in
 * the canonical form within ok, w = bdd_simplify(te[e], r->ok) (as
 * sa__within_simplify makes it: a function of te[e] & ok alone, so equal
 * for equal te[e] under the same ok):
 * - sa__te would give w & ok (a temporary of c: why it takes c);
 * - sa__te_in_ok would give w itself, sa__te_never test it as it is
 *   (simplify(f & d, d) is false iff f & d is), sa__te_always test w and
 *   ok, sa__te_at evaluate w and ok in the mode;
 * - sa__te_same and sa__te_exact's comparisons between two results would
 *   compare their ok too (equal within forms mean equal functions only
 *   under one ok).
 * Today the stored form is the exact one and these only read it. The
 * writers (sa_primal.c, sa_blocks.c, sa_tight.c, sa_enum.c, sa_repair.c,
 * sa_compose.c) write r->te[e] themselves. */

/* The modes where edge e is chosen: the exact function (false out of ok),
 * kept while c's temporaries are (r->te[e] itself, or its within form
 * conjoined with ok). */
static inline BDD sa__te(sa_ctx *c, const sa_result *r, size_t e)
{
    BDD w = r->te[e];
    if (!r->te_within || w == bddfalse)
        return w;
    return w == bddtrue ? r->ok : sa__tmp(c, sa__and(w, r->ok));
}
/* Whether edge e is chosen in no mode (within: simplify(f, ok) is false iff
 * f is, f being false out of ok). */
static inline bool sa__te_never(const sa_result *r, size_t e) { return r->te[e] == bddfalse; }
/* Whether edge e is chosen in every mode (so ok is every mode too). */
static inline bool sa__te_always(const sa_result *r, size_t e)
{
    return r->te[e] == bddtrue && (!r->te_within || r->ok == bddtrue);
}
/* Whether the stored te arrays of r and h may be compared handle by handle
 * (sa__te_exact's readers): the same form, and under the same ok when it is
 * the within one. Then equal handles are equal functions and, the forms
 * being canonical, different handles different ones. */
static inline bool sa__te_comparable(const sa_result *r, const sa_result *h)
{
    return r->te_within == h->te_within && (!r->te_within || r->ok == h->ok);
}
/* Whether edge e of r and edge f of h are chosen in the same modes. */
static inline bool sa__te_same(const sa_result *r, size_t e, const sa_result *h, size_t f)
{
    if (sa__te_comparable(r, h))
        return r->te[e] == h->te[f];
    BDD a = r->te_within ? bdd_addref(sa__and(r->te[e], r->ok)) : r->te[e];
    BDD b = h->te_within ? bdd_addref(sa__and(h->te[f], h->ok)) : h->te[f];
    bool same = a == b;
    if (r->te_within)
        bdd_delref(a);
    if (h->te_within)
        bdd_delref(b);
    return same;
}
/* All r->n_edges stored functions at once (te_within says which form), for
 * a reader that compares them with another result's (only when
 * sa__te_comparable) or passes them on whole (read only). */
static inline const BDD *sa__te_exact(const sa_result *r) { return r->te; }
/* sa__simplify(sa__te(r, e), r->ok), not kept (sa_int.h's "r->te's
 * readers": the within form itself). */
static inline BDD sa__te_in_ok(const sa_result *r, size_t e)
{
    return r->te_within ? r->te[e] : sa__simplify(r->te[e], r->ok);
}
/* Whether edge e of h is chosen in the mode (sa__eval with r's layout). */
static inline bool sa__te_at(const sa_result *r, const sa_result *h, size_t e, const bool *mode)
{
    return sa__eval(r, h->te[e], mode) && (!h->te_within || sa__eval(r, h->ok, mode));
}

/* ---- r->c's and r->d's readers (issue 40) ---------------------------------
 * The offsets as te (above): every read of a result's c or d goes through
 * these, so that the dual may store them within ok (cd_within: each bit w =
 * bdd_simplify(bit, ok), canonical, the exact bit being w & ok; on the
 * building the exact bits copy ok's chain above their room, as te did).
 * A row is the w_off bits of one equation (c) or variable (d) as stored;
 * a reader takes a bit through sa__off_bit (exact), sa__off_in_ok (within),
 * sa__off_never, a value through sa__off_eval / sa__off_value, and
 * compares rows of two results handle by handle only when
 * sa__cd_comparable (else sa__off_same). The one writer of the within
 * forms: sa_dual.c's cold fixpoint when ok is not a constant ("c and d
 * within ok" there, and its warm start from such a hint), unless
 * sa__cd_exact; every other writer writes exact bits. The hint's readers
 * (sa_hint.c, sa_probe.c) take either form. */

/* Equation i's stored row (w_off bits, cd_within says which form). */
static inline const BDD *sa__c_row(const sa_result *r, size_t i) { return &r->c[i * (size_t)r->w_off]; }
/* Variable j's stored row. */
static inline const BDD *sa__d_row(const sa_result *r, size_t j) { return &r->d[j * (size_t)r->w_off]; }
/* Bit b of a stored row of r: the exact function (false out of ok), kept
 * while c's temporaries are. */
static inline BDD sa__off_bit(sa_ctx *c, const sa_result *r, const BDD *row, int b)
{
    BDD w = row[b];
    if (!r->cd_within || w == bddfalse)
        return w;
    return w == bddtrue ? r->ok : sa__tmp(c, sa__and(w, r->ok));
}
/* The w bits of a stored row, exact, into out (temporaries of c when
 * within; else the stored handles themselves). */
static inline void sa__off_exact_row(sa_ctx *c, const sa_result *r, const BDD *row, int w, BDD *out)
{
    for (int b = 0; b < w; b++)
        out[b] = sa__off_bit(c, r, row, b);
}
/* Whether bit b is false in every mode (within: simplify(f, ok) is false
 * iff f is, f being false out of ok). */
static inline bool sa__off_never(const BDD *row, int b) { return row[b] == bddfalse; }
/* sa__simplify(bit b, r->ok), not kept (the within form itself). */
static inline BDD sa__off_in_ok(const sa_result *r, const BDD *row, int b)
{
    return r->cd_within ? row[b] : sa__simplify(row[b], r->ok);
}
/* The value of a row of h in the mode (sa__veval with r's layout): 0 out of
 * h->ok, as the exact bits are. */
static inline unsigned sa__off_eval(const sa_result *r, const sa_result *h, const BDD *row, int w,
                                    const bool *mode)
{
    if (h->cd_within && !sa__eval(r, h->ok, mode))
        return 0;
    return sa__veval(r, row, w, mode);
}
/* sa__vvalue of the exact row's first w bits: its value if every exact bit
 * is a constant, else -1. Within: a bit w is exactly the constant false iff
 * w is, and exactly true iff w is true and ok is; a bit neither is not a
 * constant when exact (w & ok is not false, and not true unless ok is). */
static inline long long sa__off_value(const sa_result *r, const BDD *row, int w)
{
    if (!r->cd_within || r->ok == bddtrue)
        return sa__vvalue(row, w);
    for (int b = 0; b < w; b++)
        if (row[b] != bddfalse)
            return -1;
    return w < 63 ? 0 : -1;
}
/* Whether the stored c and d of r and h may be compared handle by handle:
 * the same form, under the same ok when within (then equal handles are
 * equal functions and, the forms being canonical, different handles
 * different ones). */
static inline bool sa__cd_comparable(const sa_result *r, const sa_result *h)
{
    return r->cd_within == h->cd_within && (!r->cd_within || r->ok == h->ok);
}
/* Whether row a of r and row b of h (w bits each) are the same functions. */
static inline bool sa__off_same(const sa_result *r, const BDD *a, const sa_result *h, const BDD *b, int w)
{
    if (sa__cd_comparable(r, h))
        return memcmp(a, b, (size_t)w * sizeof(BDD)) == 0;
    for (int k = 0; k < w; k++) {
        BDD x = r->cd_within ? bdd_addref(sa__and(a[k], r->ok)) : a[k];
        BDD y = h->cd_within ? bdd_addref(sa__and(b[k], h->ok)) : b[k];
        bool same = x == y;
        if (r->cd_within)
            bdd_delref(x);
        if (h->cd_within)
            bdd_delref(y);
        if (!same)
            return false;
    }
    return true;
}
/* The stored arrays whole (cd_within says which form), for a reader that
 * compares them with another result's (only when sa__cd_comparable), passes
 * them on whole (read only) or tests which bits are false. */
static inline const BDD *sa__c_stored(const sa_result *r) { return r->c; }
/* sa_dual.c: keep the result's c and d exact where its cold fixpoint keeps
 * them within ok (turned exact at its end; the path before, compared with
 * the within result by test_sa_te_within). Process-global; false by
 * default (tests set it to compare). */
extern bool sa__cd_exact;
/* sa_dual.c: false runs its cold fixpoint on exact forms (the warm start's
 * path), for the tests that compare it with the within one (the default). */
extern bool sa__dual_within;
static inline const BDD *sa__d_stored(const sa_result *r) { return r->d; }

/* ---- sa_encode.c ---------------------------------------------------------- */
/* Order, allocate r and build chi_m, chi_i, chi_j, chi_e, sigma. */
void sa__encode(sa_ctx *c, const mel_model *m);
/* Drop one reference to a shared layout (sa_result.layout; NULL: none),
 * freeing its arrays with the last. */
void sa__layout_unref(sa__layout *l);
/* The edges of each variable (column) j of r, as sa__columns gives them:
 * (*edges)[(*first)[j] .. (*first)[j + 1]), in index order. From r's
 * layout when it has one (built with it by the cold encoding, shared by
 * every result that takes it: read only, no pass per analysis), else
 * sa__columns's temporaries of c. */
void sa__layout_columns(sa_ctx *c, const sa_result *r, const size_t **first,
                        const size_t **edges);
/* Whether r's edges are h's by index: as many rows, columns and edges, and
 * each row's edges to the same columns (the layout sa__encode takes from
 * the hint: compared by pointer when shared). */
bool sa__same_edges(const sa_result *r, const sa_result *h);
/* Edges compared at once by sa__run_same. */
#define SA_RUN_EDGES 256
/* Whether edges [lo, lo + n) of r and h (sa__same_edges) have the same
 * chi_E and sigma, and te when with_te: one memcmp per array, so that an
 * edit's few changed rows are found without a comparison per edge (issue
 * 40: the brake's 340,000 edges at N = 10,000). */
bool sa__run_same(const sa_result *r, const sa_result *h, size_t lo, size_t n, bool with_te);
/* Whether edge e of r and h (sa__same_edges) has the same chi_E and sigma:
 * the comparison edge by edge inside a run sa__run_same found different. */
static inline bool sa__edge_same(const sa_result *r, const sa_result *h, size_t e)
{
    size_t ws = (size_t)r->w_sigma;
    return r->chi_e[e] == h->chi_e[e] &&
           memcmp(&r->sigma[e * ws], &h->sigma[e * ws], ws * sizeof(BDD)) == 0;
}
/* to[0 .. n) = from[0 .. n), each function referenced (constants carry no
 * count), to and from disjoint: the arrays a result copies from its hint,
 * most of whose entries are bddtrue or bddfalse. One pass, 32 entries at
 * a time, whose OR says whether any of them needs a reference (a node is
 * >= 2, the constants 0 and 1): the copy and the test are vector code,
 * where memcpy and a test per entry read each array twice (issue 40). */
void sa__copy_refs(BDD *restrict to, const BDD *restrict from, size_t n);
/* Reference each node among a[0 .. n), as sa__copy_refs does its copy's
 * (for a copy made otherwise: a strided one). */
void sa__ref_all(const BDD *a, size_t n);
/* to[0 .. n) = from[0 .. n) and from[0 .. n) = bddfalse: the references
 * moved, in vector code (memcpy and memset would read and write twice). */
void sa__move_bdds(BDD *restrict to, BDD *restrict from, size_t n);
/* Consistency check on an encoded result; returns the number of errors.
 * The equations sa__encode took from the hint (c->enc_same) are not
 * checked again: the same guards and orders against the same chi_J. */
size_t sa__check_edges(sa_ctx *c);

/* ---- sa_primal.c / sa_dm.c / sa_dual.c ------------------------------------ */
typedef struct sa__mats {
    size_t *cfirst, *cedges; /* edges of each variable (column) */
    BDD *rnone, *cnone;      /* slots: "no edge of the row / column" */
    /* sa__matchings_ex: once a column's constraint is in, EXISTS its edges
     * (each edge's row is in by then), so that *x ends over the modes only
     * and never holds more than the rows still open. False by
     * sa__mats_init. */
    bool quantify;
    /* sa__matchings_ex: the edges a row may take, per edge (n_edges mode
     * functions, each within the edge's chi_e); NULL (sa__mats_init): the
     * active ones, r->chi_e. */
    const BDD *act;
} sa__mats;
void sa__mats_init(sa_ctx *c, sa__mats *mt);
/* The edges of each variable (column) j of r: (*edges)[(*first)[j] ..
 * (*first)[j + 1]), in index order (temporaries of c, sa__alloc). */
void sa__columns(sa_ctx *c, const sa_result *r, size_t **first, size_t **edges);
/* *x &= the matching constraints (perfect: every active equation and
 * variable matched exactly once; else at most once), only along active
 * edges. Fills mt->rnone / cnone. */
void sa__matchings(sa_ctx *c, BDD *x, bool perfect, sa__mats *mt, const char *phase);
/* The same with "matched exactly once" asked of every active equation
 * (rows_all) and of every active variable (cols_all) separately, "at most
 * once" otherwise: cols_all alone gives the matchings that leave no
 * variable out (sa_result_partition). */
void sa__matchings_ex(sa_ctx *c, BDD *x, bool rows_all, bool cols_all, sa__mats *mt,
                      const char *phase);
/* The modes (not only the valid ones) where some matching of the kind
 * sa__matchings_ex's flags say exists: the same as EXISTS edges of the
 * matchings, without ever holding them (sa__mats.quantify). A temporary. */
BDD sa__matchable(sa_ctx *c, bool rows_all, bool cols_all, const char *phase);
/* The matchings that leave no active variable out (sa__matchings_ex,
 * cols_all), in every mode, not only the singular ones where they are
 * read: callers mask (see sa_primal.c for why). Computed once per result
 * and kept in it (r->covering, freed by sa_result_free), since both
 * sa_result_partition and sa_result_left_out ask for them over the same
 * result. The result is otherwise read only. */
BDD sa__covering(sa_ctx *c, const char *phase);
/* The modes with a perfect matching (every mode, a mode function: what
 * sa__matchable(c, true, true, ..) gives, the same BDD), read off
 * sa__covering's matchings, which it builds and keeps in the result;
 * false, with nothing kept, when they would produce more than `budget`
 * nodes. */
bool sa__perfect_from_covering(sa_ctx *c, size_t budget, BDD *out);
void sa__primal(sa_ctx *c);
/* ---- sa_blocks.c (issue 11) ------------------------------------------------
 * The primal problem (r->ok, singular, te: what sa__primal fills, the same
 * BDDs) block by block over the fine Dulmage-Mendelsohn blocks of the union
 * graph of the modes; false, with nothing filled, where that decomposition
 * does not apply or gives one block (the file says when and why). */
bool sa__primal_blocks(sa_ctx *c);
/* What sa__blocks_solve finds: the union graph's blocks (block_of_eq[i],
 * UINT32_MAX for an equation active in no valid mode; block_of_var[j];
 * in_union[e]: edge e active in some valid mode), and, as slots of the
 * context's stack: te (n_edges: each block's chosen matching, not yet
 * restricted to *ok), tmax (n_edges: a maximum matching of each block in
 * its singular modes), sing (nb: each block's singular modes) and *ok
 * (the valid modes where every block is nonsingular), bok (nb: each
 * block's nonsingular modes); block b's equations are eqs[efirst[b] ..
 * efirst[b + 1]), its variables vars[vfirst[b] .. vfirst[b + 1]). */
typedef struct sa__bsol {
    uint32_t nb;
    uint32_t *block_of_eq, *block_of_var;
    bool *in_union;
    BDD *te, *tmax, *sing, *bok, *ok;
    uint32_t *efirst, *vfirst, *eqs, *vars;
    bool *from_prev; /* per block: its solution is prev's (sa__blocks_solve) */
    uint8_t *kind;   /* per block, SA_UBLOCK_* (sa_udm.c); NULL: all square */
    /* per block: its te entries are within its own ok bok[b] (sa_result's
     * te_within: its primal's), not exact; either way te & *ok is exact */
    bool *te_within;
} sa__bsol;
/* An earlier round of the same analysis, over more modes (the seeded
 * rounds', sa_tight.c): its blocks, and redo: the columns whose tight
 * edges the current round changed. */
typedef struct sa__bround {
    const sa__bsol *b;
    const bool *redo;
} sa__bround;
/* The blocks of c->r's union graph, each solved (sa_blocks.c); false, with
 * nothing kept, where the decomposition does not apply or gives one block,
 * or a block has more than c->max_block_rows equations (when not 0).
 * Temporaries and slots stay on the context until the caller releases.
 * With prev, a block that is one of prev's and none of whose columns is
 * redone takes prev's solution (its te, the very functions of prev->b->te,
 * and *ok, bok; tmax and sing stay false: the seeded rounds read te and ok
 * only) and is marked in b->from_prev. With c->no_max, b->tmax is NULL
 * and b->te a temporary array whose entries borrow their references (read
 * only; sa_blocks.c, "te borrowed in the tight rounds"). */
bool sa__blocks_solve(sa_ctx *c, const sa__bround *prev, sa__bsol *b);
/* The hint's kept blocks (sa_blocks.c) an earlier seeded round found to
 * be blocks of its tight graph, for the later rounds of the same analysis
 * (sa_tight.c's seeded_rounds, c->known while they run): made by
 * sa__known_new (temporaries of the context), read and written by
 * sa__blocks_solve, which trusts a record marked here, none of whose
 * columns is in redo, without checking it again (the tight graph's other
 * columns are the earlier round's, node for node, and its valid modes
 * fewer: sa_blocks.c says why that is the check's answer). */
typedef struct sa__known {
    const sa_result *r;    /* the result of the rounds */
    const BDD *tight;      /* their tight graph, r->chi_e while a round runs */
    const bool *redo;      /* per column: its tight edges made again since
                              round 0 (only grows) */
    const struct sa__kept *k; /* the hint's kept blocks */
    unsigned long epoch;   /* sa__layout_epoch when made */
    size_t n;              /* records of k then */
    uint8_t *is;           /* per record: found a block in some round */
    bool *unlike;          /* per column: its tight edges in round 0 or its
                              weights are not the hint's own rounds' (the
                              bulk check, sa_blocks.c); NULL: not known */
    bool same_var;         /* r's edge_var is the hint's */
    uint32_t n_bulk;       /* records taken by the bulk check (sa_blocks.c) */
    struct sa__took *took; /* the parts an earlier round's records gave
                              (sa_blocks.c, "The parts taken again"); NULL
                              without records */
    bool same_rows;        /* with unlike: r's chi_i is the hint's (and a
                              column whose chi_j is not is unlike) */
    bool same_order;       /* with unlike: r's eq_order is the hint's */
    uint32_t n_by_edges;   /* records checked by their own edges only
                              (sa_blocks.c, "The records' own edges") */
} sa__known;
/* A sa__known over c->r's hint's kept blocks (k NULL where the hint has
 * none usable) for the tight graph `tight` and the columns redo (both the
 * caller's, living as long as it); NULL without a hint. While it is
 * c->known, the records c->r's rounds take are marked in c->r's own kept
 * blocks as blocks of its rounds' tight graph (sa_blocks.c). */
sa__known *sa__known_new(sa_ctx *c, const BDD *tight, const bool *redo);
/* Round 0's tight graph made (before a column is made again): kn->unlike
 * from it, where the hint is a seeded result with its own round 0's tight
 * edges (sa__own_tight) and the same edges; else nothing (kn may be NULL). */
void sa__known_columns(sa_ctx *c, sa__known *kn);
/* The perfect matchings of the edges act[e] (c->r's edges, each within
 * chi_e) between the equations rows[0 .. n_rows) and the variables with
 * in_col[j], in each of `modes`, and their lexicographically smallest one
 * (sa__choose, in the layout's order): its edges into te (c->r's edges,
 * slots; the others untouched), the modes where one exists into *found (a
 * slot). A sub-result as a block's, so the same functions as sa__primal's
 * on those rows and columns alone. */
void sa__choice_within(sa_ctx *c, const uint32_t *rows, uint32_t n_rows, const bool *in_col,
                       const BDD *act, BDD modes, BDD *te, BDD *found);
/* ---- sa_encode.c: guards ---------------------------------------------------- */

/* A memo of guard nodes' BDDs (guards share nodes); zero it before use. */
typedef struct sa__gmemo {
    const mel_guard **key;
    BDD **val;
    size_t cap, n;
} sa__gmemo;
/* g (over c->r's model's mode variables) as a BDD; memoised in gm, whose
 * arrays come from sa__alloc and values live in slots: valid until the
 * caller releases them. */
BDD sa__guard_bdd(sa_ctx *c, sa__gmemo *gm, const mel_guard *g);

/* ---- sa_check.c ------------------------------------------------------------- */

/* Whether m is consistent (every incidence's cases within its variable's
 * guard) and its invariants leave a valid mode, decided on the guards
 * alone. false also when BuDDy fails: the full check then says what. */
bool sa__check_light(const mel_model *m);

/* ---- sa_tight.c --------------------------------------------------------------
 * The primal of c->r, a block's sub-result (sa_blocks.c: ok, singular, te,
 * the slots it gives, and a maximum matching of each singular mode into
 * tmax, n_edges slots), by the tight graphs of the offsets of sampled
 * modes, when they cover every valid mode; false, with nothing filled and
 * nothing kept, otherwise, or inside another such call (the file says when
 * and why it is exact). */
bool sa__tight_primal(sa_ctx *c, BDD *tmax);
/* The primal of c->r (ok, singular, te) by the tight graph of the hint's
 * offsets (sa_options.hint, carried by sa_hint.c), mode functions, when it
 * covers every valid mode; false, with nothing kept, otherwise (no hint, a
 * tight graph that does not split, a mode it leaves, over its budget). */
bool sa__seeded_primal(sa_ctx *c);
/* A mode of rest (not false, within c->r's valid modes) drawn from *seed
 * and solved alone (the single-mode path), and the offsets base (n_eq
 * vectors of stride `stride`, wb bits) shifted: c_i := max(0, base_i +
 * shift_i), into *cv (n_eq vectors of *wv bits, slots of the caller's).
 * shift (n_eq, the caller's, zeroed before the first sample) is what the
 * samples so far found: where equation i is active in this one, what its
 * own offset adds to base's value there; where not, what an earlier sample
 * found. False if the sample is singular (then nothing is written). */
bool sa__sampled_shift(sa_ctx *c, uint64_t *seed, BDD rest, const BDD *base, size_t stride,
                       int wb, int *shift, BDD **cv, int *wv);
/* Tarjan's strongly connected components of the graph of n nodes whose
 * successors of node x are to[first[x] .. first[x + 1]): comp[x] := its
 * component, numbered in reverse topological order; returns their number.
 * Iterative (chains can be long); temporaries from sa__alloc. */
uint32_t sa__sccs(sa_ctx *c, uint32_t n, const size_t *first, const uint32_t *to,
                  uint32_t *comp);
void sa__dm(sa_ctx *c);
/* *y (a set of modes on entry, a caller slot) := per mode, the matchings
 * of maximum cardinality (at most one edge per active equation and
 * variable, along active edges); fills mt (its slots are the caller's, on
 * the context's stack). Shared by sa__dm and sa_blocks.c. */
void sa__max_matchings(sa_ctx *c, BDD *y, sa__mats *mt);
/* ---- sa_udm.c ---------------------------------------------------------------
 * The blocks of a union graph without a perfect matching (the file says why
 * their order is acyclic): an unmatched row alone (SA_UBLOCK_OVER, no
 * column), an unmatched column alone (SA_UBLOCK_UNDER, no row), strongly
 * connected blocks of matched rows and columns (SA_UBLOCK_SQUARE). n_rows rows in compressed rows (first, col; no
 * repeated column), n_cols columns, a maximum matching row_edge (the entry
 * of col matched to each row, or -1). Writes block_of_row (n_rows),
 * block_of_col (n_cols) and kind (SA_UBLOCK_*, per block: at most n_rows +
 * n_cols); returns the number of blocks. Temporaries from sa__alloc. */
enum { SA_UBLOCK_SQUARE = 0, SA_UBLOCK_OVER = 1, SA_UBLOCK_UNDER = 2 };
uint32_t sa__union_dm(sa_ctx *c, uint32_t n_rows, uint32_t n_cols, const size_t *first,
                      const uint32_t *col, const int *row_edge, uint32_t *block_of_row,
                      uint32_t *block_of_col, uint8_t *kind);
/* ---- sa_maxmatch.c ---------------------------------------------------------
 * tmax (n_edges slots, false on entry) := a maximum matching of c->r's
 * graph in each of its singular modes (r->singular) that one matching per
 * cofactor gives (the file says how and why it is exact), nothing in the
 * others. Returns the singular modes it gave none, kept in a new slot of
 * the context. */
BDD sa__max_matching_by_cofactors(sa_ctx *c, BDD *tmax);
void sa__dual(sa_ctx *c);
/* A part of the problem must be solved implicitly without a budget (too
 * many modes to enumerate): when the method is SA_METHOD_AUTO and the
 * declaration order was kept although Cuthill-McKee's profile is much
 * smaller (sa__cm_better), jump out with want_cm set, and sa_analyze runs
 * the analysis again in that order (the order never changes a result,
 * only the BDDs' variables; sa_encode.c says why not always). A method
 * the caller forced keeps the configured order, so that its BDDs compare
 * with another method's. */
void sa__hard_part(sa_ctx *c);
/* SA_ORDER_AUTO kept the declaration order, though Cuthill-McKee's
 * profile is much smaller (sa_encode.c; computed when asked). */
bool sa__cm_better(sa_ctx *c);
/* r->w_off (wide enough for any canonical offset of this model) and r->c,
 * r->d allocated on it, all zero (bddfalse). Shared by sa__dual and
 * sa_compose, which must agree on the width. */
void sa__offsets_alloc(sa_ctx *c);
/* Lexicographically smallest element of S per mode (edges false first). */
BDD sa__choose(sa_ctx *c, BDD s);
/* r->te[e] |= the modes where t (one edge set per mode: sa__choose's)
 * holds edge e, for every edge in one pass; or, when
 * c->edge_modes_within is r and it can, te within r->ok (te_within). */
void sa__edge_modes(sa_ctx *c, BDD t);
/* Tests: sa__edge_modes always writes the exact te (the path before
 * te_within, compared with it by test_sa_te_within). Process-global. */
extern bool sa__edge_modes_exact;
/* Tests: sa__edge_modes builds its dominators' contexts by the chain of
 * conjunctions as before, and asserts that its within check agrees with
 * the one on the chain (test_sa_te_within). Process-global. */
extern bool sa__edge_modes_chain;
/* Tests (sa_tight.c's probes, process-global): sa__probe_lits_off makes
 * solve_probe evaluate every mode function by sa__eval, the path before its
 * lists of literal roots; sa__probe_lits_check checks each function read
 * from the lists against sa__eval (MDAE_ASSERT); sa__probe_lits_hits
 * counts the functions read from them. */
extern bool sa__probe_lits_off;
extern bool sa__probe_lits_check;
extern size_t sa__probe_lits_hits;
/* Over the edges es[0..n) (any order): *one := exactly one of them is true
 * (at most one if !exactly), each only where act[k] holds (act may be NULL);
 * *none := none is true. one and none are caller slots. */
void sa__onehot(sa_ctx *c, const size_t *es, const BDD *act, size_t n, bool exactly,
                BDD *one, BDD *none);
/* Keep, per mode, the elements of *s (edge sets) of minimal (maximal) cost,
 * the cost of a set being the sum of cost[e] (wc-bit vectors, NULL: 0) over
 * its edges, computed on w bits (no overflow: the caller's bound). */
void sa__best(sa_ctx *c, BDD *s, const BDD *const *cost, int wc, int w, bool maximize);

/* ---- sa_hint.c (added for issue 6: offsets seeding the primal) ------------
 * c->opt->hint's equation offsets carried into c->r (equations and mode
 * variables matched by name; unmatched equations, and values that need more
 * than *width bits, are 0): n_eq * *width slots of the context's stack,
 * little-endian, *width being enough for any canonical offset of c->r (n_eq
 * + 2 times the largest sigma) and at most the hint's own, *used (>= 1) the
 * bits that are not false in some equation. NULL, *width and *used
 * untouched, when there is no usable hint (no options, no hint, nothing
 * matches). Any result is a valid seed: sa_primal.c only needs
 * c >= 0. With extend, each equation's offsets are extended beyond the
 * modes where the hint had them (sa_hint.c says how): the seeded primal's
 * cost-0 matchings then cover more modes (the building at N = 40, a guard
 * flipped: 0.12 s -> 0.07 s), but sa_tight.c's seeded rounds, whose tight
 * graphs must split into small blocks, do not take them (the brake at
 * N = 100, N + 1 seeded by a variant: 0.038 s instead of 0.014). */
const BDD *sa__hint_offsets(sa_ctx *c, bool extend, int *width, int *used,
                            const long **same);
/* The hint's chosen matching and tight edges (active where d_j = c_i +
 * sigma_ij for its canonical offsets), carried onto c->r's edges by the
 * names of their equations and variables, mode variables by name as for
 * the offsets: tc[e], tz[e] (n_edges caller slots; false for an edge the
 * hint lacks). False, nothing written, when there is no usable hint, when
 * two of our edges name the same edge of the hint, when the edges the
 * hint has do not lie in the same relative order in both layouts, or when
 * sifting may have moved the order the hint chose in (sa__sifting):
 * sa_repair.c needs the hint's choice to be the smallest in our order. */
bool sa__hint_matching(sa_ctx *c, BDD *tc, BDD *tz);
/* Round 0's tight edges read from the hint: its offsets hc (from
 * sa__hint_offsets, whose `same` said which of our rows have the hint's
 * row's offsets as they are) are the hint's canonical ones there, so where
 * a column of c->r is the hint's (its edges the hint's by name, or by index
 * when hc is the hint's c itself, with the same activity and weights, in
 * such rows, and the hint's column has no other), its tight edges are the
 * hint's: sa_result.tight_memo, exact everywhere when every mode is valid
 * (hint->ok true). Written into tight[]; returns the columns left to
 * compute (temporaries, n_var flags), or NULL when none was read. */
bool *sa__hint_tight(sa_ctx *c, const BDD *hc, const long *same, BDD *tight);
/* sa__hint_tight's last step: tight[e] = memo[from[e]] (from NULL:
 * memo[e]) for r's edges outside todo's columns (todo: by variable), each
 * referenced, as sa__put would put it (tested against it:
 * tests/engine/test_sa_slots.c). */
void sa__take_memo(const sa_result *r, const bool *todo, const BDD *memo, const long *from,
                   BDD *tight);
/* The same with from NULL, given r's columns (sa__layout_columns): when
 * every slot of tight is bddfalse (round 0's fresh slots), all of memo
 * copied (sa__copy_refs) and the edges of todo's few columns put back to
 * bddfalse, instead of a test per edge; else sa__take_memo. */
void sa__take_memo_cols(const sa_result *r, const bool *todo, const BDD *memo, BDD *tight,
                        const size_t *first, const size_t *edges);
/* The bits that n vectors of w bits (v, one after the other) use: one more
 * than the highest bit, below top, that is not false in one of them; 0 if
 * none is (0 <= top <= w, top <= SA_MAX_OFFSET_BITS). One pass, no test per
 * vector (tested against the test per bit: tests/engine/test_sa_slots.c). */
int sa__bits_in_use(const BDD *v, size_t n, int w, int top);

/* ---- sa_repair.c (issue 16): the hint's chosen matching repaired ----------
 * With tc, tz from sa__hint_matching and zero[e] (n_edges) the edges of
 * reduced cost 0 for a dual feasible in every mode of `modes` (sa_primal.c's
 * seeded costs): in the modes of `modes` where the perfect matchings of
 * those edges exist and the repair shows it cheaply, r->te gains their
 * lexicographically smallest one -- exactly what sa__choose gives on them
 * -- found by repairing the hint's chosen matching near the edit instead
 * of building them all; those modes into *covered (a slot; false if none:
 * the caller builds the matchings there), and the modes of `modes` where it
 * showed that those perfect matchings do not exist into *none (a slot). */
void sa__repair(sa_ctx *c, const BDD *tc, const BDD *tz, const BDD *zero, BDD modes,
                BDD *covered, BDD *none);

/* ---- sa_enum.c (issue 10): the enumeration path ---------------------------
 * The plan: S, the mode variables the encoded model's functions depend on
 * (in_s, n_modes entries, temporary), the assignments of S that extend to
 * a valid mode (*valid_s, a slot) and their number. */
typedef struct sa__plan {
    bool primal_only; /* sa__enumerate: only ok, singular and te (into
                         r->te if it is set already); the caller's */
    BDD *tmax;        /* with primal_only, if not NULL: n_edges slots that
                         get a maximum matching of each singular mode (the
                         single-mode path's), as te does for the others */
    uint32_t n_s;
    double modes;
    uint32_t *s_modes; /* the n_s mode variables of S, increasing */
    BDD *valid_s;
} sa__plan;
void sa__enum_plan(sa_ctx *c, sa__plan *plan);
/* sa__enum_plan for the whole model (c->r, not a block's sub-result):
 * the hint's plan when the encoding took its functions (c->enc_same) and
 * the rows it encoded anew read the mode variables the hint's read there
 * (no more, and all of them: S, hence the plan, is the hint's), else
 * sa__enum_plan's; kept in c->r either way (issue 40: the brake's edit
 * walked every row's functions for a plan that had not changed). */
void sa__enum_plan_whole(sa_ctx *c, sa__plan *plan);
/* The enumeration of `modes` modes of r is cheap enough to be chosen
 * without trying the implicit path (sa_analyze.c says how cheap; never
 * when the caller asked for an implicit budget and they can be
 * enumerated). */
bool sa__enum_is_cheap(const sa_ctx *c, const sa_result *r, double modes);
/* The budget of BDD nodes the implicit path gets before the enumeration of
 * `modes` modes of r is tried instead: the caller's implicit_budget, else
 * an estimate (sa_analyze.c); 0 if there are too many modes to enumerate. */
size_t sa__implicit_budget(const sa_ctx *c, const sa_result *r, double modes);
/* Fill r->ok, singular, te, over, under, c, d (everything sa__primal,
 * sa__dm and sa__dual fill) by solving each assignment of the plan. The
 * BDD nodes it produces are not counted against the context's budget. */
void sa__enumerate(sa_ctx *c, const sa__plan *plan);

/* ---- sa_sop.c -------------------------------------------------------------- */
/* Irredundant sum of products of a mode function f, as cubes and a formula. */
void sa__set_of(sa_ctx *c, const sa_result *r, BDD f, sa_set *out);
/* A care set, split into factors over disjoint sets of mode variables
 * (the model's invariants grouped by the variables they share), so that a
 * cover needs only the factors its function touches: sa_sop.c says why the
 * cover is then the same. Its slots and arrays are the caller's (released
 * with the caller's mark or at sa__leave). */
typedef struct sa__care {
    BDD whole;       /* the care set */
    size_t n;        /* factors; 0: not split, whole is used as it is */
    BDD *factor;     /* n slots */
    int *of_mode;    /* n_modes: the factor of each mode variable, -1: none */
    uint8_t *touched; /* n: scratch of sa__set_of_care */
    /* Unsplit (n = 0), for sa__set_of_care: EXISTS (the variables above
     * level *above_level) . whole, in a slot of care's, made level after
     * level as the sets asked about go down (NULL: not kept). */
    BDD *above;
    int *above_level;
} sa__care;
/* ---- sa_within.c: bdd_simplify(x & d, d) without building x & d ---------- */
/* For one d: where the walk of x may start (d's frontier by level). Arrays
 * are the caller's (its mark, or sa__leave); d must stay referenced. */
typedef struct sa__within {
    BDD d;
    BDD *start; /* levels + 1, or NULL: no table (d constant or too large) */
} sa__within;
void sa__within_init(sa_ctx *c, BDD d, sa__within *out);
/* bdd_simplify(bdd_and(x, d), d), the same node, in a new slot; x must be
 * referenced. Its cost follows x's nodes and d's in x's levels. It is false
 * exactly when x & d is. */
BDD sa__within_simplify(sa_ctx *c, const sa__within *w, BDD x);
/* Whether x & d is false, and whether d implies f, in time that follows x
 * (resp. f), as sa__within_simplify: no conjunction with the whole of d. */
bool sa__within_empty(const sa__within *w, BDD x);
bool sa__within_implies(const sa__within *w, BDD f);
/* For a node x of d: the deepest node p of d at a level <= x's that every
 * path of d from its root to x meets (d's single frontier there, p = x
 * when x is one; d itself when there is no table). */
BDD sa__within_dominator(const sa__within *w, BDD x);
/* Split care (a set of modes of r, valid modes typically) into factors:
 * the conjunction of the factors is care, checked, else not split. */
void sa__care_init(sa_ctx *c, const sa_result *r, BDD care, sa__care *out);
/* Same as sa__set_of, exact only inside care (a cover of f & care within
 * f | !care); care NULL: everywhere. Past c->max_cubes cubes (0:
 * SA_MAX_CUBES), fails with MDAE_E_LIMIT. */
void sa__set_of_care(sa_ctx *c, const sa_result *r, BDD f, const sa__care *care, sa_set *out);
/* The same, but past the limit it returns false, *out untouched, the
 * context going on (the cubes are counted before any is made). */
bool sa__set_of_care_if_few(sa_ctx *c, const sa_result *r, BDD f, const sa__care *care,
                            sa_set *out);
/* The sets of modes a report has written, by function: items share few
 * functions (the brake at N = 100: 202 distinct among its 4,612 sets), and
 * each set costs a count of its cubes, a cover, a sort and a formula over
 * every mode variable, where a copy costs a copy. A key is referenced while
 * it is one (a slot), so its node cannot come back as another function.
 * Slots and arrays are the caller's (its mark, or sa__leave). */
typedef struct sa__set_memo {
    BDD *key;           /* cap slots; bddfalse: empty (false is never a key) */
    const sa_set **set; /* the first set written for key[k] (the caller's) */
    size_t cap, n;      /* cap a power of two; no key added past cap / 2 */
} sa__set_memo;
/* An empty memo for about `expected` distinct functions. */
void sa__set_memo_init(sa_ctx *c, sa__set_memo *m, size_t expected);
/* sa__set_of_care(c, r, f, care, out), or a copy of the set written for f
 * before through this memo (all with the same care and r); out is kept as
 * f's and must outlive the memo. */
void sa__set_of_memo(sa_ctx *c, const sa_result *r, const sa__care *care, sa__set_memo *m, BDD f,
                     sa_set *out);
/* The set of x & w->d (w->d: r's ok, which holds every block's and edge's
 * guard), through m: as sa__set_of_memo(c, r, care, m, x & w->d, out),
 * the same set, without x & w->d where care is split and is w->d (m then
 * keyed by x: one memo for such calls only). */
void sa__set_of_memo_within(sa_ctx *c, const sa_result *r, const sa__care *care,
                            const sa__within *w, sa__set_memo *m, BDD x, sa_set *out);
void sa__set_close(sa_set *s);
/* *out := the empty set as sa__set_of gives it (formula "false", no cube),
 * without a context: MDAE_OK or MDAE_E_NOMEM (then *out is closed). */
int sa__set_empty(sa_set *out);
/* A literal of a cube: mode variable `mode` has value 0 or 1. */
typedef struct sa__lit {
    uint32_t mode;
    signed char value;
} sa__lit;
/* Called by sa__isop with each cube of the cover as it is found: its
 * n_lits literals, by increasing mode variable (a variable not among them
 * is free). lits is borrowed for the call. The cost of a cube is that of
 * its literals, not of the model's mode variables (issue 40). */
typedef void sa__cube_fn(sa_ctx *c, void *arg, const sa__lit *lits, size_t n_lits);
/* Minato-Morreale ISOP on [l, u] over r's mode variables: an irredundant
 * cover C, l <= C <= u, in *out (a caller slot); each cube goes to
 * emit(c, arg, lits, n_lits) during the recursion. Shared by the sets
 * (sa_sop.c), the DOT labels (cdg_view.c) and RIMIS (rimis_peval.c). */
void sa__isop(sa_ctx *c, const sa_result *r, BDD l, BDD u, sa__cube_fn *emit, void *arg,
              BDD *out);
/* Number of mode assignments in the mode function f (no overflow). */
double sa__count_modes(sa_ctx *c, const sa_result *r, BDD f);
/* The same over the n mode variables modes[0 .. n) (all if modes is NULL);
 * f must not depend on the others. Its cost follows n, not the model's
 * mode variables (issue 40: once per block). */
double sa__count_modes_in(sa_ctx *c, const sa_result *r, BDD f, const uint32_t *modes,
                          uint32_t n);
/* The same count exactly into *out (issue 41 item 2), approx being what
 * sa__count_modes_in returned for it: below 2^53 that is exact and is
 * taken, else the count is made again on big integers, memoised per node.
 * Jumps with MDAE_E_NOMEM. */
void sa__count_modes_exact(sa_ctx *c, const sa_result *r, BDD f, const uint32_t *modes,
                           uint32_t n, double approx, mdae_bn *out);

/* ---- sa_memo.c (issue 16): solved blocks kept for the next version ------ */
/* A key (sa_blocks.c and cdg_build.c build theirs, the first integer a
 * tag of the kind): integers, and BDD nodes compared by handle. */
typedef struct sa__bkey {
    const int32_t *shape;
    size_t n_shape;
    const BDD *funs;
    size_t n_funs;
} sa__bkey;
/* What is kept for a key: nodes, integers, and the valid modes it holds in
 * (a block's solution in fewer modes is this one restricted: sa_memo.c). */
typedef struct sa__mval {
    const BDD *f;
    size_t n_f;
    const int32_t *d;
    size_t n_d;
    BDD modes;
    /* Set by sa__bmemo_find: the entry found. sa__bmemo_add shares it
     * (no copy) when given back unchanged for the same key; NULL: copied. */
    void *entry;
} sa__mval;
#define SA_BMEMO_BLOCK 1 /* sa_blocks.c: a block's primal */
#define SA_BMEMO_SCC 2   /* cdg_build.c: a union-SCC's forms */
#define SA_BMEMO_EDGE 3  /* cdg_build.c: an edge's guard */
/* At most this many words (integers, nodes, and each entry's own) in one
 * memo, 16 MB, or SA_BMEMO_INTS_PER_EQ per equation of the result when
 * that is more: a model of blocks too large to be worth keeping stops
 * adding to it. The fixed 16 MB filled at the brake's N = 10,000 (110,003
 * equations): 14,479 of its 40,004 union-SCCs were split again after
 * every edit, 0.6 G instructions of its 2.5 G; a bounded share per
 * equation keeps the memo's memory linear in the model. */
#define SA_BMEMO_MAX_INTS ((size_t)4 << 20)
#define SA_BMEMO_INTS_PER_EQ ((size_t)256)
/* An empty memo in the current layout epoch for a result of n_eq
 * equations, or NULL (no memory). Freed by sa__bmemo_free (sa_result_free
 * frees a result's). */
sa__bmemo *sa__bmemo_new(size_t n_eq);
void sa__bmemo_free(sa__bmemo *m);
/* What m keeps for key k, into *out (valid while m lives): true; false if
 * nothing, m NULL, or m not readable (made in another layout epoch, or
 * sifting is on). */
bool sa__bmemo_find(const sa__bmemo *m, const sa__bkey *k, sa__mval *out);
/* Keep v for key k (both copied, their nodes referenced), unless m is
 * NULL, not readable, full (SA_BMEMO_MAX_INTS, SA_BMEMO_INTS_PER_EQ) or
 * has k already. Fails
 * (sa__fail) only for memory. */
void sa__bmemo_add(sa_ctx *c, sa__bmemo *m, const sa__bkey *k, const sa__mval *v);

/* ---- sa_report.c: the items' sets within ok (issue 40) -------------------
 * Tests: the report always makes its items' sets from the exact functions
 * (the path before the within one, compared with it by test_sa_te_within).
 * Process-global. */
extern bool sa__report_exact;
/* ---- sa_report.c: the items' part of a report after an earlier one ------
 * (engine/cdg_report_keys.h, cdg_report_since, combines it with the
 * graph's part.) */

/* What the items of one result's report are functions of: BDD handles,
 * referenced, and copies of the names (sa_report.c says why), which later
 * keys share while every name is the same. Owned: sa__item_keys_free,
 * before sa_end; the keys never read r or its model after
 * sa__item_keys_new (either may be freed first), and keys sharing names
 * may be freed in any order (the names are reference counted). */
typedef struct sa__item_keys sa__item_keys;

/* r's item keys, or NULL on OOM. prev (NULL ok; only read, any earlier
 * keys): when it holds every name of r (the same strings at the same
 * places), the new keys share its names instead of copying them. */
sa__item_keys *sa__item_keys_new(const sa_result *r /* borrowed */,
                                 const sa__item_keys *prev /* borrowed; NULL ok */);
void sa__item_keys_free(sa__item_keys *k /* NULL ok */);

/* Is every set of a report of a's the function of the same things as in a
 * report of b's (the care set, ok, the layout, the modes' names:
 * everything but the items' own handles)? */
bool sa__item_keys_alike(const sa__item_keys *a, const sa__item_keys *b);

/* Does every item of k have the name it has in prev at the same place,
 * known without reading them (k shares prev's names, split alike)? */
bool sa__item_keys_all_named(const sa__item_keys *k, const sa__item_keys *prev);

/* Which items of k are prev's at the same place, as four arrays allocated
 * here (owned by the caller, even on failure): eq_same[i] / var_same[j]
 * (same name and handles), eq_named[i] / var_named[j] (same name). prev:
 * NULL (nothing the same), or keys alike k's (sa__item_keys_alike, which
 * the caller checked). False on OOM. */
bool sa__item_keys_mark(const sa__item_keys *k, const sa__item_keys *prev /* NULL ok */,
                        bool **eq_same, bool **var_same, bool **eq_named, bool **var_named);

/* sa_result_report_ex(r, flags, out), the sets of equation i / variable j
 * not computed where skip_eq[i] / skip_var[j] (NULL: none skipped). */
int sa__report_skipping(const sa_result *r, unsigned flags, const bool *skip_eq,
                        const bool *skip_var, sa_report **out /* out: owned */);

/* ---- sa_blocks.c: the blocks kept by place (issue 40 item 3) --------------
 * A result's blocks as sa__blocks_solve solved or reused them, each with
 * its key (sa_memo.c), its solution, and the result's rows, columns and
 * edges it is made of (sa_blocks.c says how an analysis seeded by the
 * result finds them without a key). */
typedef struct sa__kept sa__kept;
/* Frees k's records no other result shares (NULL ok). */
void sa__kept_free(sa__kept *k);

/* ---- sa_tight.c: a seeded result's own tight edges (issue 40 item 5) ------
 * Round 0 of the seeded rounds finds the tight edges of the hint's offsets
 * (sa_tight.c, tight_edges_vec: an edge is tight where it is active and
 * c_i + sigma_e is the largest such sum of its column). A result made so
 * keeps them, with the offsets round 0 read: where a column's rows have
 * those offsets in the result too (its final c), the column's tight edges
 * are the ones an analysis seeded by the result would find (sa_hint.c,
 * sa__hint_tight). */
typedef struct sa__own_tight {
    BDD *tight;  /* per edge, referenced: round 0's tight edges (false in
                    the stale columns) */
    bool *stale; /* per column: tight[] is not round 0's (a later round
                    made that column's again) */
    BDD *c;      /* per equation, w bits, referenced: the offsets round 0
                    read (the bits above w false) */
    int w;
    size_t n_edges, n_c; /* tight's and c's lengths */
} sa__own_tight;
/* Frees o and its references (NULL ok). */
void sa__own_tight_free(sa__own_tight *o);
/* Drops the references of a's n BDDs (when BuDDy still runs) and frees a
 * (NULL ok): a result's arrays of referenced functions (sa_analyze.c). */
void sa__free_bdds(BDD *a, size_t n);
/* bdd_delref of each of a's n BDDs that is not a constant (bdd_delref
 * leaves a constant as it is): the same references dropped, without a
 * call per constant (sa_analyze.c). */
void sa__delref_nodes(const BDD *a, size_t n);

/* How many blocks r's seeded tight rounds took from the hint's
 * records as they were (sa_blocks.c, "The decomposition from the hint's
 * records"), and into *afresh how many they found among the rest. */
uint32_t sa__kept_placed(const sa_result *r, uint32_t *afresh);
/* How many of the hint's records r's later seeded rounds took as parts
 * without checking them again (sa__known: an earlier round found them). */
uint32_t sa__kept_known(const sa_result *r);
/* How many of the hint's records r's seeded rounds took as parts by the
 * bulk check (sa_blocks.c, "The records of the hint's own rounds"): no
 * edge compared. */
uint32_t sa__kept_bulk(const sa_result *r);
/* Records of the hint a later seeded round of r took as parts from an
 * earlier round's parts, without checking them (sa_blocks.c, "The parts
 * taken again"; for tests). */
uint32_t sa__kept_again(const sa_result *r);
/* Records of the hint r's seeded rounds checked by their own edges only
 * (sa_blocks.c, "The records' own edges"; for tests). */
uint32_t sa__kept_by_edges(const sa_result *r);
/* Times r's seeded rounds listed the rest's rows and columns by merging
 * those given back (sa_blocks.c, rest_lists), checked under self_check
 * against the scans (for tests; counted under self_check only). */
uint32_t sa__kept_merged(const sa_result *r);

/* ---- sa_probe.c: the seeded rounds' samples from the hint (issue 40) ------
 * A sampled mode's canonical offsets repaired from the hint's in the same
 * mode (engine/sm_warm.h), for learn_shift (sa_tight.c). */
typedef struct sa__warm sa__warm;
/* For c->r's seeded rounds whose base (the hint's offsets, stride slots
 * per row, wb bits read) is the hint's own c, read in place: the hint's
 * rows, columns and edges compared once; NULL if the hint cannot answer
 * (another layout, no te). Temporaries of c. */
sa__warm *sa__warm_new(sa_ctx *c, const BDD *base, size_t stride, int wb);
/* learn_shift's lesson from the mode `mode` (valid in c->r), answered
 * from the hint: 1 and shift updated as the cold solve would (every row
 * active in the mode gets max(0, c_i) - base_i there, the others keep
 * theirs); 0 if the mode is singular (shift unchanged); -1 if not answered
 * (the caller solves the mode whole; shift unchanged). */
int sa__warm_learn(sa_ctx *c, sa__warm *w, const bool *mode, int *shift);

/* ---- sa_encode.c (h-enc19) ------------------------------------------------- */
/* a[k] and b[k] exchanged for k < n, references and all (each array keeps
 * owning what it now holds; vector code): for slots b whose BDDs go into
 * a kept array a before b's release, what `sa__put(&a[k], b[k])` per k
 * and the release did, without a reference count touched for b's nodes
 * (the release then drops a's old ones). The arrays do not overlap. */
void sa__swap_bdds(BDD *restrict a, BDD *restrict b, size_t n);
/* The first j in [from, n) with flags[j] set, else n: 8 flags read at a
 * time where none is (a pass over few set flags, e.g. the columns an edit
 * made again, without a test per flag). */
uint32_t sa__next_flag(const bool *flags, uint32_t from, uint32_t n);

#endif /* SA_INT_H */
