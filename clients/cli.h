/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * clients/cli.h -- the pieces of the `mdae` command-line tool shared between
 * its files: exit codes, the command table entry, parsed options, reading a
 * model file and printing diagnostics.
 *
 * Why: main stays a small dispatcher (cli_main.c); each command family lives
 * in its own file (cli_check.c: check and structure; cli_analyze.c:
 * analyze; cli_mode.c: mode) and adds one row to the table in cli_main.c.
 * Text output is printed from the JSON form (cli_render.c), which is what
 * lets `mdae --server ADDRESS ...` (cli_remote.c) print exactly what the
 * embedded engine prints.
 *
 * Unlike engine/ and protocol/, this is a program: it prints (results to
 * stdout, diagnostics and errors to stderr) and turns every failure into one
 * of the documented exit codes below. It still allocates through
 * mdae_malloc/mdae_free, so the same leak checks apply.
 */
#ifndef CLI_H
#define CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "mdae.h"
#include "mel.h"
#include "sa.h"
#include "cdg.h"
#include "inc.h"

/* Exit codes: documented in the usage text (cli_main.c) and the README. */
enum {
    CLI_EXIT_OK = 0,     /* success (analysis done, even if singular) */
    CLI_EXIT_MODEL = 1,  /* the model has errors (syntax or semantic) */
    CLI_EXIT_USAGE = 2,  /* bad command line */
    CLI_EXIT_LIMIT = 3,  /* analysis resource limit (BDD node limit) */
    CLI_EXIT_IO = 4      /* input/output or internal error */
};

/* Options a command accepts (cli_command.opts); anything else is a usage
 * error for that command. */
#define CLI_OPT_DEFINE 0x1u     /* -D NAME=VALUE, --define NAME=VALUE */
#define CLI_OPT_JSON 0x2u       /* --json */
#define CLI_OPT_NODE_LIMIT 0x4u /* --node-limit N */
#define CLI_OPT_REORDER 0x8u    /* --reorder */
#define CLI_OPT_DOT 0x10u       /* --dot, --dot=FILE */
#define CLI_OPT_MODE 0x20u      /* --mode SPEC (required by `mode`) */
#define CLI_OPT_METHOD 0x40u    /* --method auto|implicit|enumeration */
#define CLI_OPT_TO 0x80u        /* --to mel (required by `convert`) */
#define CLI_OPT_CHANGE 0x100u   /* --from SPEC --to SPEC | --all (`modechange`) */
#define CLI_OPT_OUTPUT 0x200u   /* -o FILE, --output FILE (`rimis`) */
#define CLI_OPT_NO_GUARD 0x400u /* --no-guard, --accept-jumps (`rimis`) */
#define CLI_OPT_FAMILIES 0x800u /* --families (`analyze`: cdg_family.h) */

/* --color=WHEN (cli_opts.color) */
enum { CLI_COLOR_AUTO = 0, CLI_COLOR_ALWAYS, CLI_COLOR_NEVER };

/* The model read from a file (or stdin) of the command line. */
typedef struct cli_source {
    char *name; /* owned: shown in diagnostics ("<stdin>" for "-") */
    char *text; /* owned: the bytes, NUL-terminated for convenience */
    size_t len;
    bool color; /* its diagnostics in colour (cli_load_model: cli_color_wanted) */
} cli_source;

typedef struct cli_opts {
    const char *file;    /* borrowed from argv; "-" is stdin */
    mel_define *defines; /* owned (names borrowed from argv) */
    size_t n_defines;
    bool json;
    bool reorder;
    size_t node_limit; /* 0: the engine's default */
    bool dot;             /* --dot or --svg: write the CDG in Graphviz DOT */
    bool svg;             /* --svg: ... laid out by Graphviz, as SVG (dot is set too) */
    const char *dot_file; /* borrowed from argv; NULL: stdout (--dot=OUT, --svg=OUT) */
    const char *mode;     /* borrowed from argv: --mode SPEC */
    int method;           /* --method: SA_METHOD_* (default SA_METHOD_AUTO) */
    const char *format;   /* borrowed: --format mel|modelica; NULL: by extension/header */
    int color;            /* --color=WHEN: CLI_COLOR_* (default CLI_COLOR_AUTO) */
    const char *to;       /* borrowed: convert --to mel|modelica */
    const char *from_mode; /* borrowed: modechange --from SPEC */
    const char *to_mode;   /* borrowed: modechange --to SPEC */
    bool all;              /* modechange --all (or --first) */
    bool first;            /* modechange --first: the first instants on BDDs */
    bool erasures;         /* modechange --first --erasures: and what they erase */
    bool instants;         /* modechange --first --instants: and every later instant */
    const char *output;    /* borrowed: rimis -o FILE; NULL: stdout */
    bool no_guard;         /* rimis --no-guard: block equations unguarded */
    bool families;         /* analyze --families: block families, not blocks */
    bool accept_jumps;     /* rimis --accept-jumps: jumps copied, warned */
    /* check and analyze (set by main): recover from syntax errors and
     * carry on with the rest of the model (engine/mel.h, "Recovery"; issue
     * 36 item 2); the exit status is still CLI_EXIT_MODEL. */
    bool recover;
    /* Global options (before the command), set by main. */
    const char *server;   /* borrowed: --server ADDRESS; NULL: embedded engine */
    int timeout_ms;       /* --timeout SECONDS for a server's answer */
} cli_opts;

typedef struct cli_command {
    const char *name;
    int (*run)(const cli_opts *o); /* returns a CLI_EXIT_* code */
    unsigned opts;                 /* CLI_OPT_* accepted */
    const char *args;              /* e.g. "FILE [-D NAME=VALUE]... [--json]" */
    const char *summary;           /* one line, for `mdae --help` */
    const char *help;              /* the command's details, for `mdae CMD --help` */
} cli_command;

/* ---- cli_args.c -------------------------------------------------------- */

/* Parse the arguments after the command name (argv[0] is the first option
 * or FILE). On CLI_EXIT_OK *o is filled (release with cli_opts_close);
 * otherwise a message was printed to stderr and the result is
 * CLI_EXIT_USAGE (or CLI_EXIT_IO on out of memory). `--help`/`-h` among the
 * arguments returns CLI_EXIT_OK with *help set and *o empty. */
int cli_args_parse(const cli_command *cmd, int argc, char **argv, cli_opts *o /* out */,
                   bool *help /* out */);
void cli_opts_close(cli_opts *o);

/* Parse "--color", "--color=WHEN" (or --colour): WHEN auto, always or never
 * (alone: always) into *color (CLI_COLOR_*). 0, or -1 for another WHEN
 * (*color unchanged). */
int cli_parse_color(const char *arg, int *color /* out */);

/* Parse a -D argument "NAME=VALUE" strictly: NAME an identifier, VALUE a
 * decimal integer (optional sign) fitting in long long. 0 on success,
 * -1 with a reason in *why (static string) otherwise. */
int cli_parse_define(const char *arg, mel_define *out /* out */, const char **why /* out */);

/* Print the usage of one command ("usage: mdae CMD ARGS" and its help) to f. */
void cli_print_command_help(FILE *f, const cli_command *cmd);

/* ---- cli_io.c ----------------------------------------------------------- */

/* Largest model file we read (same as mel_options' default). */
#define CLI_MAX_FILE_BYTES ((size_t)64 << 20)

/* Read a whole file ("-": stdin) into *src. On failure an error naming the
 * file was printed to stderr; returns CLI_EXIT_IO. */
int cli_source_read(const char *path, cli_source *src /* out */);
void cli_source_close(cli_source *src);

/* Print every diagnostic to stderr as `FILE:LINE:COL: error: message`,
 * followed, when the location is in the source text, by the source line and
 * a caret under the column (gcc style). */
void cli_print_diags(const cli_source *src, const mdae_diags *d);

/* Read the file of o and parse it with o's defines. On CLI_EXIT_OK *m is
 * the model (mel_model_free) and *src the text (cli_source_close), and any
 * warnings are left in d (not printed). Otherwise *src was released, the
 * diagnostics are in d and, unless `quiet`, were printed to stderr with a
 * closing "FILE: N errors" line; the result is CLI_EXIT_MODEL or
 * CLI_EXIT_IO. (Read errors are always printed.) */
/* With o->recover, the syntax errors recovered from: cli_syntax_verdict
 * says so after the output and gives the exit status. */
int cli_syntax_verdict(const cli_source *src, const mel_model *m, int code);
/* The same from counts (the server's session/open summary). */
int cli_syntax_verdict_n(const char *name, uint32_t n_syntax, uint32_t n_left_out, int code);
int cli_load_model(const cli_opts *o, bool quiet, cli_source *src /* out */,
                   mel_model **m /* out */, mdae_diags *d);

/* Is the file of o Modelica? --format if given, else the extension (.mo,
 * .bmo) or the Base Modelica header `//! base` of the text. */
bool cli_is_modelica(const cli_opts *o, const cli_source *src);

/* Write len bytes to path atomically: into a new temporary file beside it,
 * flushed to disk, then renamed over path (mode 0666 less the umask), so
 * that path holds either its old content or all of the new one, never a
 * part (a full disk, a size limit, a crash). CLI_EXIT_OK, or CLI_EXIT_IO
 * with the failure printed (naming path) and the temporary file removed. */
int cli_write_file_atomic(const char *path, const char *bytes, size_t len);

/* ---- cli_convert.c ------------------------------------------------------ */
int cli_convert_run(const cli_opts *o);

/* Print a JSON tree (borrowed) to stdout, compact (one line: pipe it to
 * `jq` to read it), with a final newline.
 * CLI_EXIT_OK, or CLI_EXIT_IO on out of memory (printed). */
int cli_print_json(const cJSON *json);

/* One line summary of a model's flat structure, without newline:
 * "14 equations, 14 variables, 2 mode variables (4 modes), 32 incidences,
 * 0 invariants, 6 parameters". */
void cli_print_counts(FILE *f, const mel_model *m);

/* Number of diagnostics of a severity in d (stored ones only). */
size_t cli_count_severity(const mdae_diags *d, mdae_severity sev);

/* Whether diagnostics on stderr get colour: CLI_COLOR_ALWAYS, or
 * CLI_COLOR_AUTO when stderr is a terminal, NO_COLOR is unset or empty
 * (https://no-color.org) and TERM is not "dumb". */
bool cli_color_wanted(int color);

/* The exit code for an engine error code (MDAE_E_PARSE -> CLI_EXIT_MODEL,
 * MDAE_E_BDD_LIMIT -> CLI_EXIT_LIMIT, ...). */
int cli_exit_code(int rc);

/* Flush stdout; if any write to it failed (full disk, closed pipe), say so
 * and return CLI_EXIT_IO, else `code`. Every command ends with this. */
int cli_finish(int code);

/* The BDD manager configuration of o (--node-limit, --reorder). */
void cli_sa_config(const cli_opts *o, sa_config *cfg /* out */);

/* Print {"file":..,"ok":bool,"status":..,"counts":{..}|null,"diagnostics":[..]}
 * to stdout: `check --json`'s verdict (status NULL: left out), and what
 * `analyze --json` prints for a model it could not analyse (status "error"
 * or "limit"; m may be NULL when the model did not load). Borrows all;
 * CLI_EXIT_OK, or CLI_EXIT_IO (printed). */
int cli_print_verdict_json(const char *file, bool ok, const char *status, const mel_model *m,
                           const mdae_diags *d);

/* ---- cli_analyze.c: the embedded engine ----------------------------------- */

/* A model analysed in this process: everything `analyze` and `mode` need. */
typedef struct cli_engine {
    cli_source src;
    mel_model *m;
    inc_session *inc; /* each connected component analysed by the method
                         that fits it, then composed (engine/inc.h) */
    inc_result *ir;
    sa_result *res;   /* borrowed from ir */
    cdg_graph *g;     /* borrowed from ir */
    mdae_diags d;
} cli_engine;

/* Read and parse o's FILE, start BuDDy, run sa_analyze and cdg_build.
 * Diagnostics (warnings included) and errors are printed to stderr.
 * Returns a CLI_EXIT_* code; release *e with cli_engine_close whatever it
 * is (it also stops BuDDy). */
int cli_engine_run(const cli_opts *o, cli_engine *e /* out */);
/* The two halves of cli_engine_run: parse only (warnings stay in e->d,
 * unprinted), then analyse a loaded engine. */
int cli_engine_load(const cli_opts *o, cli_engine *e /* out */);
int cli_engine_analyze(const cli_opts *o, cli_engine *e);
/* Start BuDDy sized for a loaded engine's model (o's --node-limit...):
 * CLI_EXIT_OK, or CLI_EXIT_IO with the failure printed. cli_engine_close
 * stops it. */
int cli_engine_begin(const cli_opts *o, const cli_engine *e);
void cli_engine_close(cli_engine *e);

/* ---- cli_render.c -----------------------------------------------------------
 * Text forms, printed from the JSON (rpc_json_analysis, rpc_json_mode) so
 * that the embedded engine and a server (which only sends JSON) print the
 * very same text. The JSON is borrowed; missing members (an older server)
 * print as absent, never crash. */

/* `mdae analyze` text: verdict, singular parts, offsets, blocks, edges. */
void cli_render_analysis(const char *file, const cJSON *analysis);
/* `mdae mode` text: status, block triangular form in solving order with
 * edges, offsets, singular parts. */
void cli_render_mode(const char *file, const cJSON *mode);
/* `mdae modechange` text: the verdict, then each restart instant (erased
 * equations, restart system, known values, context), impulsive values. */
void cli_render_modechange(const char *file, const cJSON *change);
/* `mdae modechange --all` text: the counts, then one line per change. */
void cli_render_modechanges(const char *file, const cJSON *changes);

/* `mdae modechange --first` text: the counts, then each class's formula
 * (cut past 400 bytes; --json has them whole). */
void cli_render_first(const char *file, const cJSON *first);
/* `mdae approx` text: one `FILE:LINE:COL: warning: message` line per
 * finding, then a summary line (accepted or refused, the wrong modes). */
void cli_render_approx(const char *file, const cJSON *approx);
/* Write the graph's text (DOT, or SVG with --svg) to o->dot_file (or
 * stdout). CLI_EXIT_OK or CLI_EXIT_IO (printed). */
int cli_write_dot(const cli_opts *o, const char *dot);

/* ---- cli_remote.c: the CLI as a client of mdaed --------------------------- */

typedef enum cli_remote_cmd {
    CLI_REMOTE_ANALYZE, /* session/analyze (or session/dot with --dot) */
    CLI_REMOTE_MODE,    /* session/mode */
    CLI_REMOTE_CHECK,   /* session/open's summary */
    CLI_REMOTE_MODECHANGE /* session/modechange (or session/modechanges) */
} cli_remote_cmd;

/* Default wait for one answer of the server: its default request budget
 * (conf/mdaed.json, limits.request_timeout_ms = 600 s) plus a margin. */
#define CLI_DEFAULT_TIMEOUT_MS 630000
/* Largest answer line we accept from a server. */
#define CLI_MAX_REPLY_BYTES ((size_t)256 << 20)

/* Run a command through the server at o->server: read FILE, session/open,
 * then the command's method; print what the embedded engine prints.
 * Returns a CLI_EXIT_* code (JSON-RPC errors mapped, see cli_remote.c). */
int cli_remote_run(const cli_opts *o, cli_remote_cmd cmd);

/* ---- commands ---------------------------------------------------------- */
int cli_check_run(const cli_opts *o);     /* cli_check.c */
int cli_structure_run(const cli_opts *o); /* cli_check.c */
int cli_analyze_run(const cli_opts *o);   /* cli_analyze.c */
int cli_mode_run(const cli_opts *o);      /* cli_mode.c */
int cli_modechange_run(const cli_opts *o); /* cli_modechange.c */
int cli_approx_run(const cli_opts *o);     /* cli_approx.c */
int cli_rimis_run(const cli_opts *o);      /* cli_rimis.c */

#endif /* CLI_H */
