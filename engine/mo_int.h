/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/mo_int.h -- declarations shared by the files of the Modelica
 * front-end (mo_lex.c, mo_parse.c, mo_elab.c, mo_print.c) and its tests; not
 * part of the public interface (engine/mo.h).
 *
 * Pipeline: mo_model_parse (mo_elab.c) checks the input size, runs mo__parse
 * (lexer + recursive-descent parser into a syntax tree in a scratch arena,
 * with the MEL front-end's arena and error report), then elaborates the one
 * model of the file into a mel_model whose guards come from the MEL guard
 * factory (mel_guard.c), so both front-ends build the same structure.
 *
 * Grammar: Base Modelica 0.1 (MCP-0031) as OpenModelica exports it, which is
 * the flat subset of Modelica 3.6's grammar (chapter A.2) without connect,
 * extends, inner/outer or redeclarations inside the model; the papers' flat
 * Modelica is the same subset without the package wrapper. Class bodies other
 * than the model (functions, records, types, external objects) are parsed
 * with the same rules and kept only for their names, enumerations and types.
 *
 * Stack safety: nesting of expressions, statements and classes counts
 * against max_depth (clamped to MEL__DEPTH_CAP), as in the MEL parser.
 */
#ifndef MO_INT_H
#define MO_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mdae.h"
#include "mel.h"
#include "mel_int.h"

/* ---- Lexer ---------------------------------------------------------------- */
typedef enum mo__tok {
    MO_T_EOF,
    MO_T_ID,   /* identifier, quoted or not (text: the name, without quotes) */
    MO_T_STR,  /* "string" (text: raw contents, escapes kept) */
    MO_T_NUM,
    MO_T_EMPTY, /* #EMPTY#: OpenModelica's export of a missing value (a warning) */
    /* keywords, in the order of mo__keywords[] */
    MO_T_ALGORITHM, MO_T_AND, MO_T_ANNOTATION, MO_T_BLOCK, MO_T_BREAK, MO_T_CLASS,
    MO_T_CONNECT, MO_T_CONNECTOR, MO_T_CONSTANT, MO_T_CONSTRAINEDBY, MO_T_DISCRETE,
    MO_T_EACH, MO_T_ELSE, MO_T_ELSEIF, MO_T_ELSEWHEN, MO_T_ENCAPSULATED, MO_T_END,
    MO_T_ENUMERATION, MO_T_EQUATION, MO_T_EXPANDABLE, MO_T_EXTENDS, MO_T_EXTERNAL,
    MO_T_FALSE, MO_T_FINAL, MO_T_FLOW, MO_T_FOR, MO_T_FUNCTION, MO_T_IF, MO_T_IMPORT,
    MO_T_IMPURE, MO_T_IN, MO_T_INITIAL, MO_T_INNER, MO_T_INPUT, MO_T_LOOP, MO_T_MODEL,
    MO_T_NOT, MO_T_OPERATOR, MO_T_OR, MO_T_OUTER, MO_T_OUTPUT, MO_T_PACKAGE,
    MO_T_PARAMETER, MO_T_PARTIAL, MO_T_PROTECTED, MO_T_PUBLIC, MO_T_PURE, MO_T_RECORD,
    MO_T_REDECLARE, MO_T_REPLACEABLE, MO_T_RETURN, MO_T_STREAM, MO_T_THEN, MO_T_TRUE,
    MO_T_TYPE, MO_T_WHEN, MO_T_WHILE, MO_T_WITHIN,
    /* punctuation */
    MO_T_LPAREN, MO_T_RPAREN, MO_T_LBRACK, MO_T_RBRACK, MO_T_LBRACE, MO_T_RBRACE,
    MO_T_COMMA, MO_T_SEMI, MO_T_DOT, MO_T_COLON, MO_T_ASSIGN /* = */, MO_T_DEFINE /* := */,
    MO_T_EQ, MO_T_NE, MO_T_LT, MO_T_LE, MO_T_GT, MO_T_GE,
    MO_T_PLUS, MO_T_MINUS, MO_T_STAR, MO_T_SLASH, MO_T_CARET,
    MO_T_DPLUS, MO_T_DMINUS, MO_T_DSTAR, MO_T_DSLASH, MO_T_DCARET, /* .+ .- .* ./ .^ */
    MO_T__COUNT
} mo__tok;

typedef struct mo__token {
    mo__tok kind;
    mdae_range where;
    const char *text; /* into the source (for MO_T_ID: the name) */
    size_t len;
    double value;   /* MO_T_NUM */
    long long ival; /* MO_T_NUM with is_int */
    bool is_int;
    bool quoted;    /* MO_T_ID written 'like this' */
} mo__token;

/* A comment that can label an equation: a block comment holding only
 * `NAME:` (RR-9459 Fig. 1: `/ * e0: * /`), or a line comment holding only
 * `(NAME)` (RR-9322 Fig. 4: `// (K1)`). */
typedef struct mo__label {
    const char *name; /* into the source */
    size_t len;
    uint32_t offset, line; /* start of the comment */
    bool trailing;         /* the `// (NAME)` form */
    bool escaped;          /* quoted with \' or \\: the name is name unescaped */
} mo__label;

typedef struct mo__lexer {
    mel__lexer cur;    /* the position in the text, as MEL's (mel_int.h) */
    mo__label *labels; /* mdae_malloc'ed, in source order */
    size_t n_labels, cap_labels;
} mo__lexer;

void mo__lex_init(mo__lexer *lx, const char *src, size_t len, mel__report *rep);
void mo__lex_close(mo__lexer *lx);
/* Next token; malformed input is reported and skipped (always progresses). */
void mo__lex_next(mo__lexer *lx, mo__token *out);
const char *mo__tok_name(mo__tok kind);

/* ---- Syntax tree (all in the parse arena) ----------------------------------- */
typedef enum mo__ek {
    MO_E_NUM,    /* num / ival */
    MO_E_STR,    /* str */
    MO_E_BOOL,   /* ival 0/1 */
    MO_E_REF,    /* parts[0..n_parts): a.b[i].c */
    MO_E_CALL,   /* parts: the function name; kids: arguments (names[k] or NULL);
                  * iters: a reduction `f(e for i in r)` */
    MO_E_UN,     /* op (MO_T_MINUS, MO_T_PLUS, MO_T_NOT): kids[0] */
    MO_E_BIN,    /* op: kids[0] op kids[1] */
    MO_E_IF,     /* kids: c1, v1, c2, v2, ..., else */
    MO_E_ARRAY,  /* { kids } (iters: a comprehension) */
    MO_E_MATRIX, /* [ rows ]: kids are MO_E_ARRAY rows */
    MO_E_RANGE,  /* kids: start, [step,] stop */
    MO_E_END,    /* `end` in a subscript */
    MO_E_COLON,  /* `:` as a subscript */
    MO_E_TUPLE,  /* ( a, , b ): kids, NULL for an empty slot */
    MO_E_DER,    /* der(kids[0]) (also a call; kept apart, it is everywhere) */
    MO_E_TIME    /* time */
} mo__ek;

typedef struct mo__expr mo__expr;

typedef struct mo__part {
    const char *name; /* NUL-terminated, in the arena */
    uint32_t n_subs;
    mo__expr **subs;
} mo__part;

typedef struct mo__iter {
    const char *name;
    mo__expr *range; /* NULL: implicit range (not supported by the elaborator) */
} mo__iter;

struct mo__expr {
    uint8_t kind; /* mo__ek */
    uint8_t op;   /* mo__tok */
    bool is_int;
    mdae_range where;
    double num;
    long long ival;
    const char *str;
    uint32_t n_parts, n_kids, n_iters;
    mo__part *parts;
    mo__expr **kids;
    const char **names; /* named arguments, parallel to kids (NULL entries) */
    mo__iter *iters;
};

typedef enum mo__sk {
    MO_S_EQ,      /* lhs = rhs (equation) */
    MO_S_ASSIGN,  /* lhs := rhs (statement); lhs may be a MO_E_TUPLE */
    MO_S_CALL,    /* a call as an equation or statement: rhs */
    MO_S_IF,      /* conds[k] (NULL: else), bodies[k] */
    MO_S_WHEN,    /* conds[k] (when, elsewhen...), bodies[k] */
    MO_S_FOR,     /* iters, body */
    MO_S_WHILE,   /* conds[0], body */
    MO_S_CONNECT, /* lhs, rhs */
    MO_S_BREAK,
    MO_S_RETURN
} mo__sk;

typedef struct mo__stmt {
    uint8_t kind;      /* mo__sk */
    mdae_range where;  /* the whole equation/statement */
    const char *label; /* from a label comment, or NULL */
    mo__expr *lhs, *rhs;
    uint32_t n_branches, n_iters;
    mo__expr **conds;
    struct mo__stmt **bodies;
    mo__iter *iters;
    struct mo__stmt *body;
    struct mo__stmt *next;
} mo__stmt;

/* Component prefixes. */
#define MO_P_PARAMETER 0x1u
#define MO_P_CONSTANT 0x2u
#define MO_P_DISCRETE 0x4u
#define MO_P_INPUT 0x8u
#define MO_P_OUTPUT 0x10u
#define MO_P_FLOW 0x20u
#define MO_P_STREAM 0x40u

typedef struct mo__mod {
    const char *name; /* "start", "fixed" ... (one name, not dotted) */
    mo__expr *value;  /* NULL if none */
    struct mo__mod *next;
} mo__mod;

typedef struct mo__comp {
    const char *name;
    const char *type;  /* "Real", "Modelica.Blocks.Types.Init" ... */
    mdae_range where;  /* the component's name */
    mdae_range type_where;
    unsigned prefixes;
    uint32_t n_dims;
    mo__expr **dims;   /* type dims then name dims */
    mo__mod *mods;     /* its `name = value` attributes, in source order */
    mo__expr *binding; /* `= e` */
    struct mo__comp *next;
} mo__comp;

typedef enum mo__ck {
    MO_C_PACKAGE, MO_C_MODEL, MO_C_FUNCTION, MO_C_RECORD, MO_C_TYPE, MO_C_CLASS,
    MO_C_BLOCK, MO_C_CONNECTOR, MO_C_OPERATOR
} mo__ck;

typedef enum mo__seck {
    MO_SEC_EQUATION, MO_SEC_INITIAL_EQUATION, MO_SEC_ALGORITHM, MO_SEC_INITIAL_ALGORITHM
} mo__seck;

typedef struct mo__section {
    mo__seck kind;
    mdae_range where;
    mo__stmt *stmts;
    struct mo__section *next;
} mo__section;

typedef struct mo__class {
    mo__ck kind;
    const char *name;
    mdae_range where;
    mo__comp *comps;
    struct mo__class *classes; /* nested class definitions */
    mo__section *sections;
    uint32_t n_literals;       /* type X = enumeration(a, b, c) */
    const char **literals;
    bool is_enum;
    const char *alias;         /* type X = Real(...): "Real" */
    bool has_extends;          /* `extends ...` (ExternalObject in Base Modelica) */
    struct mo__class *next;
} mo__class;

/* Parse the whole text. On MDAE_OK *out is the list of top-level classes
 * (NULL if none), in the arena; otherwise the report's code. */
int mo__parse(const char *src, size_t len, size_t max_depth, mel__arena *arena,
              mel__report *rep, mo__class **out);

/* Whether s[0..n) is a Modelica keyword (mo_lex.c). */
bool mo__is_keyword(const char *s, size_t n);

/* Print an expression as normalised source text (names unquoted, one space
 * around binary operators, parentheses where needed). Puts into b. A name
 * that would not read back so (not identifiers joined by dots and
 * constant subscripts, a keyword, a variable named time) is quoted, its
 * content as written. */
void mo__expr_print(mdae_buf *b, const mo__expr *e);
/* The same, asking h->ref first for each reference: when it returns true
 * it has printed the reference itself (the importer's enumeration
 * literals as their ordinals, in the text it keeps). */
typedef struct mo__print_hook {
    bool (*ref)(void *ctx, mdae_buf *b, const mo__expr *e);
    void *ctx;
} mo__print_hook;
void mo__expr_print_hooked(mdae_buf *b, const mo__expr *e, const mo__print_hook *h);

#endif /* MO_INT_H */
