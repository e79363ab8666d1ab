/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/mdae.h -- the shared core: error codes, allocator, source ranges and
 * diagnostics lists.
 *
 * Every other module of engine/ and protocol/ includes this header. It holds
 * no global state except the replaceable allocator (set once, at start-up,
 * before any other call, like uv_replace_allocator).
 *
 * Errors: functions return int, MDAE_OK (0) or a negative MDAE_E_* code, and
 * write results to out-parameters (last) only on success.
 *
 * Diagnostics: functions that read user text take an optional
 * `mdae_diags *` and append located messages to it; NULL means "don't care".
 * The engine never prints: callers format diagnostics with
 * mdae_diag_format().
 */
#ifndef MDAE_H
#define MDAE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* MDAE_TEST_API marks an exported function that only the tests and the
 * benchmarks call (SQLite's SQLITE_TEST API, issue 12): an accessor kept for
 * checking a module from outside. Nothing in server/ or clients/ may use
 * one; `grep MDAE_TEST_API` lists them. */
#define MDAE_TEST_API MDAE_API

#if defined(__GNUC__)
#define MDAE_API __attribute__((visibility("default")))
#define MDAE_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define MDAE_API
#define MDAE_PRINTF(a, b)
#endif

#define MDAE_VERSION "0.1.0"

/* X-macro list of error codes: name, value, message (after UV_ERRNO_MAP). */
#define MDAE_ERR_MAP(XX)                                                    \
    XX(OK, 0, "success")                                                    \
    XX(E_NOMEM, -1, "out of memory")                                        \
    XX(E_INVAL, -2, "invalid argument")                                     \
    XX(E_PARSE, -3, "the model has syntax errors")                          \
    XX(E_MODEL, -4, "the model has semantic errors")                        \
    XX(E_LIMIT, -5, "the model exceeds a configured limit")                 \
    XX(E_BDD_LIMIT, -6, "analysis exceeded the BDD node limit")             \
    XX(E_BDD, -7, "BDD library error")                                      \
    XX(E_IO, -8, "input/output error")                                      \
    XX(E_CANCELED, -9, "operation canceled")                                \
    XX(E_TIMEOUT, -10, "operation exceeded its time budget")                \
    XX(E_NOTIMPL, -11, "not implemented")                                   \
    XX(E_STATE, -12, "operation not valid in the current state")            \
    XX(E_PROTO, -13, "protocol error")                                      \
    XX(E_NOTSAVED, -14, "the change could not be made durable")             \
    XX(E_CONFLICT, -15, "another writer changed it first")

typedef enum mdae_err {
#define MDAE_ERR_ENUM_(name, val, msg) MDAE_##name = (val),
    MDAE_ERR_MAP(MDAE_ERR_ENUM_)
#undef MDAE_ERR_ENUM_
} mdae_err;

/* Human-readable message for a code; never NULL ("unknown error" if the code
 * is not in the map). Static storage. */
MDAE_API const char *mdae_strerror(int code);
/* Symbolic name ("MDAE_E_NOMEM"); never NULL. Static storage. */
MDAE_API const char *mdae_err_name(int code);

/* ---- Allocator ------------------------------------------------------------
 * All engine and protocol allocations go through these, so tests can make
 * allocation N fail. mdae_free(NULL) does nothing. mdae_strdup/strndup
 * return NULL on failure. */
typedef struct mdae_allocator {
    void *(*malloc_fn)(size_t);
    void *(*realloc_fn)(void *, size_t);
    void *(*calloc_fn)(size_t, size_t);
    void (*free_fn)(void *);
} mdae_allocator;

/* Replace the allocator (NULL restores libc's). Call before any other mdae
 * call; returns MDAE_E_INVAL if a function pointer is missing. */
MDAE_API int mdae_replace_allocator(const mdae_allocator *a);
MDAE_API void *mdae_malloc(size_t n);
MDAE_API void *mdae_calloc(size_t count, size_t n);
MDAE_API void *mdae_realloc(void *p, size_t n);
MDAE_API void mdae_free(void *p);
MDAE_API char *mdae_strdup(const char *s);
MDAE_API char *mdae_strndup(const char *s, size_t n);
/* printf into a new string (owned: free with mdae_free); NULL on OOM. */
MDAE_API char *mdae_asprintf(const char *fmt, ...) MDAE_PRINTF(1, 2);
MDAE_API char *mdae_vasprintf(const char *fmt, va_list ap);
/* ---- Assertions -------------------------------------------------------------
 * MDAE_ASSERT(cond) checks one of our own invariants, as a header states it
 * (STYLE.md 15: for our bugs, never for bad input). Unlike assert() it does
 * not follow NDEBUG: the test suite runs in every build type (CI runs
 * RelWithDebInfo and Release) and must check them there too, so every
 * MDAE_ASSERT is cheap -- O(1), or linear in what the call has just built,
 * once per call. -DMDAE_NO_ASSERT removes them. A failure prints the
 * condition, file and line to stderr and aborts (the only output the engine
 * ever makes). */
#ifdef MDAE_NO_ASSERT
#define MDAE_ASSERT(cond) ((void)0)
#else
#define MDAE_ASSERT(cond) ((cond) ? (void)0 : mdae__assert_fail(#cond, __FILE__, __LINE__))
#endif
MDAE_API _Noreturn void mdae__assert_fail(const char *cond, const char *file, int line);

/* 64-bit FNV-1a of n bytes: for hash tables keyed by names or serialised
 * keys (callers compare keys in full; the hash only spreads them). */
MDAE_API uint64_t mdae_hash(const void *p, size_t n);
/* mdae_hash of the C string s, in one pass (no strlen first). */
MDAE_API uint64_t mdae_hash_str(const char *s);
/* A hash of n bytes read 8 at a time, continuing from h (start with
 * MDAE_HASH_SEED; chain calls to hash several arrays as one key): for long
 * binary keys, where mdae_hash's byte loop shows. Not mdae_hash's values. */
#define MDAE_HASH_SEED 1469598103934665603ull
MDAE_API uint64_t mdae_hash_words(uint64_t h, const void *p, size_t n);

/* v in decimal at out, which must have room for MDAE_INT_CHARS bytes (no
 * NUL is written); returns its length. For the names and keys built by the
 * tens of thousands on large models, where snprintf was most of the cost. */
#define MDAE_INT_CHARS 20
MDAE_API size_t mdae_put_int(char *out, long long v);

/* ---- String builder -------------------------------------------------------
 * A growable NUL-terminated string for the engine's printers (S-expressions,
 * guards, DOT, cache keys). Out of memory is sticky, as in SQLite's StrAccum:
 * once a growth fails, oom is set and every later put does nothing, so a
 * printer checks once at the end. Start from {0}: p stays NULL until the
 * first put. p is owned by the caller (free with mdae_free, oom or not). */
typedef struct mdae_buf {
    char *p;
    size_t len, cap;
    bool oom;
} mdae_buf;

/* Append n bytes of s (which need not be NUL-terminated). */
MDAE_API void mdae_buf_put(mdae_buf *b, const char *s, size_t n);
/* Append the string s. */
MDAE_API void mdae_buf_puts(mdae_buf *b, const char *s);
/* Append the byte c: mdae_buf_put(b, &c, 1), without a call while the
 * buffer has room (the JSON and DOT printers put punctuation a byte at a
 * time: a tenth of `mdae analyze --json`'s printing on the brake). */
static inline void mdae_buf_putc(mdae_buf *b, char c)
{
    if (!b->oom && b->len + 2 <= b->cap) {
        b->p[b->len++] = c;
        b->p[b->len] = '\0';
    } else {
        mdae_buf_put(b, &c, 1);
    }
}

/* ---- Source positions -----------------------------------------------------
 * line and col are 1-based; col counts bytes from the start of the line
 * (what `FILE:LINE:COL` shows; the server converts to LSP's UTF-16 columns
 * from offset). offset is the 0-based byte offset. A zero line means
 * "no location". end is exclusive. */
typedef struct mdae_pos {
    uint32_t line;
    uint32_t col;
    uint32_t offset;
} mdae_pos;

typedef struct mdae_range {
    mdae_pos start;
    mdae_pos end;
} mdae_range;

/* ---- Diagnostics ---------------------------------------------------------- */
typedef enum mdae_severity {
    MDAE_SEV_ERROR = 1,
    MDAE_SEV_WARNING = 2,
    MDAE_SEV_NOTE = 3
} mdae_severity;

typedef struct mdae_diag {
    mdae_severity severity;
    mdae_range where;
    char *message; /* owned by the list */
    int limit;     /* the stated limit it reports (MDAE_LIMIT_*; 0: none) */
    double limit_value; /* that limit's value, when limit is set */
} mdae_diag;

/* A growable list of diagnostics, capped at `limit` entries (0: 100); entries
 * past the cap are counted in `dropped`, not stored, so a flood of errors
 * cannot exhaust memory. */
typedef struct mdae_diags {
    mdae_diag *items;
    size_t count;
    size_t cap;
    size_t limit;
    size_t dropped;
    size_t errors; /* number of MDAE_SEV_ERROR added, dropped ones included */
} mdae_diags;

MDAE_API void mdae_diags_init(mdae_diags *d);
MDAE_API void mdae_diags_close(mdae_diags *d); /* frees items; safe twice */
/* Append a diagnostic. MDAE_OK or MDAE_E_NOMEM (the entry is then counted as
 * dropped, and errors still counts it). d may be NULL (no-op, MDAE_OK). */
MDAE_API int mdae_diags_add(mdae_diags *d, mdae_severity sev, mdae_range where,
                            const char *fmt, ...) MDAE_PRINTF(4, 5);
/* Append a copy of diag (its limit too). As mdae_diags_add. */
MDAE_API int mdae_diags_add_copy(mdae_diags *d, const mdae_diag *diag /* borrowed */);
/* The first diagnostic of d that reports a stated limit, or NULL (borrowed
 * from d: valid until d is added to or closed). */
MDAE_API const mdae_diag *mdae_diags_find_limit(const mdae_diags *d);

/* ---- Stated limits (issue 36) ----------------------------------------------
 * Every limit the engine and the server enforce on a model's analysis, as
 * the user raises it: `setting` is its key in conf/mdaed.json where it has
 * one (the server's), `flag` the option of the mdae command line (NULL:
 * none), and `fixed` the engine's constant where it cannot be raised at
 * all. A limit that is hit becomes a diagnostic located at the equations
 * that reached it, its message ending with mdae_limit_note()'s text, its
 * limit and limit_value set (so JSON can carry them as fields). */
#define MDAE_LIMIT_MAP(XX)                                                            \
    XX(BDD_NODES, 1, "bdd.node_limit", "--node-limit", NULL, "BDD nodes")             \
    XX(GRAPH_EDGES, 2, NULL, NULL, "CDG_MAX_EDGES", "edges of the dependency graph")  \
    XX(GRAPH_ITEMS, 3, NULL, NULL, "CDG_MAX_KEY_INTS", "items of the blocks' identities") \
    XX(ENUM_MODES, 4, NULL, NULL, "SA_ENUM_MAX_MODES", "modes enumerated")            \
    XX(ENCODING, 5, NULL, NULL, "SA_MAX_BDD_VARS", "BDD variables of the encoding")   \
    XX(OFFSET_BITS, 6, NULL, NULL, "SA_MAX_OFFSET_BITS", "bits of an offset")         \
    XX(WORKER_MEMORY, 7, "limits.worker_memory_mb", NULL, NULL, "MiB per worker")     \
    XX(REQUEST_TIME, 8, "limits.request_timeout_ms", NULL, NULL, "ms per request")    \
    XX(INSTANCES, 9, NULL, NULL, "MEL_MAX_INSTANCES", "instances of the model")       \
    XX(INPUT_BYTES, 10, NULL, NULL, "MEL_MAX_INPUT_BYTES", "bytes of input")

typedef enum mdae_limit_id {
    MDAE_LIMIT_NONE = 0,
#define MDAE_LIMIT_ENUM_(name, val, setting, flag, fixed, unit) MDAE_LIMIT_##name = (val),
    MDAE_LIMIT_MAP(MDAE_LIMIT_ENUM_)
#undef MDAE_LIMIT_ENUM_
} mdae_limit_id;

typedef struct mdae_limit_info {
    const char *name;    /* how messages and JSON name it: setting, else fixed */
    const char *setting; /* key in conf/mdaed.json, or NULL */
    const char *flag;    /* mdae's command-line option, or NULL */
    const char *fixed;   /* the engine's constant when nothing raises it, or NULL */
    const char *unit;    /* what is counted */
} mdae_limit_info;

/* The limit's description (static storage), or NULL for an unknown id. */
MDAE_API const mdae_limit_info *mdae_limit_get(int id);
/* "(limit bdd.node_limit = 100000; raise it with --node-limit N or
 * bdd.node_limit in mdaed.json)", and the like for the other limits, in a
 * new string (owned: mdae_free); NULL on OOM or an unknown id. */
MDAE_API char *mdae_limit_note(int id, double value);
/* Append an error at `where` reporting limit id of value `value`: the
 * formatted text, then mdae_limit_note's. As mdae_diags_add. */
MDAE_API int mdae_diags_add_limit(mdae_diags *d, mdae_range where, int id, double value,
                                  const char *fmt, ...) MDAE_PRINTF(5, 6);

/* Format "FILE:LINE:COL: error: message" (no newline) into a new string
 * (owned: mdae_free). file may be NULL ("<input>"). NULL on OOM. */
MDAE_API char *mdae_diag_format(const mdae_diag *diag, const char *file);

#endif /* MDAE_H */
