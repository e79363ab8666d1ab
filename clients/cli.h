/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * clients/cli.h -- the pieces of the `mdae` command-line tool shared between
 * its files: exit codes, the command table entry, parsed options, reading a
 * model file and printing diagnostics.
 *
 * Why: main stays a small dispatcher (cli_main.c); each command family lives
 * in its own file (cli_check.c: check and structure; cli_analyze.c:
 * analyze) and adds one row to the table in cli_main.c. Future commands
 * (`mode`, `analyze --dot`, talking to mdaed) plug in the same way.
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

/* The model read from a file (or stdin) of the command line. */
typedef struct cli_source {
    char *name; /* owned: shown in diagnostics ("<stdin>" for "-") */
    char *text; /* owned: the bytes, NUL-terminated for convenience */
    size_t len;
} cli_source;

typedef struct cli_opts {
    const char *file;    /* borrowed from argv; "-" is stdin */
    mel_define *defines; /* owned (names borrowed from argv) */
    size_t n_defines;
    bool json;
    bool reorder;
    size_t node_limit; /* 0: the engine's default */
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
int cli_load_model(const cli_opts *o, bool quiet, cli_source *src /* out */,
                   mel_model **m /* out */, mdae_diags *d);

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

/* The exit code for an engine error code (MDAE_E_PARSE -> CLI_EXIT_MODEL,
 * MDAE_E_BDD_LIMIT -> CLI_EXIT_LIMIT, ...). */
int cli_exit_code(int rc);

/* Flush stdout; if any write to it failed (full disk, closed pipe), say so
 * and return CLI_EXIT_IO, else `code`. Every command ends with this. */
int cli_finish(int code);

/* The BDD manager configuration of o (--node-limit, --reorder). */
void cli_sa_config(const cli_opts *o, sa_config *cfg /* out */);

/* ---- commands ---------------------------------------------------------- */
int cli_check_run(const cli_opts *o);     /* cli_check.c */
int cli_structure_run(const cli_opts *o); /* cli_check.c */
int cli_analyze_run(const cli_opts *o);   /* cli_analyze.c */

#endif /* CLI_H */
