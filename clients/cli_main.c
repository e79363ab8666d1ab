/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * clients/cli_main.c -- `mdae COMMAND ...`: the command table and dispatch.
 *
 * A command is one row of `commands` below; its options are parsed by
 * cli_args.c from the CLI_OPT_* flags of the row, so adding a command
 * touches this table and a new cli_<family>.c file, nothing else. Global
 * options come before the command (`mdae --server ADDRESS analyze ...`,
 * issue 5): they choose where the command runs, not what it does.
 */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const cli_command commands[] = {
    {"check", cli_check_run, CLI_OPT_DEFINE | CLI_OPT_JSON | CLI_OPT_NODE_LIMIT | CLI_OPT_REORDER,
     "FILE [-D NAME=VALUE]... [--json] [--node-limit N] [--reorder]",
     "parse a model and check its consistency in all modes",
     "Parses and elaborates the model, then checks with BDDs that every incidence\n"
     "is active only where its equation and its variable exist, and that the\n"
     "invariants leave at least one valid mode. Prints a summary of the flat\n"
     "structure to stdout and the diagnostics to stderr. With --json, prints\n"
     "{\"file\",\"ok\",\"counts\",\"diagnostics\"} to stdout instead.\n"
     "Syntax errors are recovered from as in `mdae analyze` (the rest is\n"
     "checked; exit status 1).\n"},
    {"structure", cli_structure_run, CLI_OPT_DEFINE | CLI_OPT_JSON,
     "FILE [-D NAME=VALUE]... [--json]",
     "print the flat guarded incidence structure of a model",
     "Prints the mode variables, invariants, variables and equations of the\n"
     "elaborated model, with the guard of every incidence case. With --json,\n"
     "prints the JSON form (modeVariables, invariants, equations, variables,\n"
     "counts).\n"},
    {"analyze", cli_analyze_run,
     CLI_OPT_DEFINE | CLI_OPT_JSON | CLI_OPT_NODE_LIMIT | CLI_OPT_REORDER | CLI_OPT_DOT |
         CLI_OPT_METHOD | CLI_OPT_FAMILIES,
     "FILE [-D NAME=VALUE]... [--json | --dot[=OUT] | --svg[=OUT]] [--families]\n"
     "       [--node-limit N] [--reorder] [--method auto|implicit|enumeration|blocks|tight]",
     "structural analysis in all modes at once: offsets, blocks, dependencies",
     "Runs the structural analysis on BDDs: valid modes, structurally singular\n"
     "modes with their over- and underdetermined parts, the offsets of every\n"
     "equation (c) and variable (d) as functions of the mode, then the\n"
     "mode-dependent blocks (which equations, differentiated how often, are\n"
     "solved together for which unknowns, in which modes) and the conditional\n"
     "dependency graph between them. Exit status 0 even when some modes are\n"
     "singular. With --json, prints the analysis as JSON (the same object as\n"
     "the server's analyze result, with \"blocks\" and \"edges\"; edges name\n"
     "block ids). With --families, the blocks that are variants of one\n"
     "structure are printed once, as a block family (each item with the modes\n"
     "where it belongs to the family's block), with the edges between families\n"
     "(JSON: \"families\", \"familyEdges\"; docs/block_families.md).\n"
     "With --dot, writes the dependency graph in Graphviz DOT\n"
     "instead (vertices `guard : reads -> equations -> unknowns`, edges\n"
     "labelled by their guard), to stdout or, with --dot=OUT, to the file OUT.\n"
     "With --svg, the same graph laid out by Graphviz's dot (libgvc), as SVG;\n"
     "with --server, laid out by the server (session/svg).\n"
     "Each connected component of the model is analysed either implicitly on\n"
     "BDDs or by enumerating its valid modes, whichever an estimate says is\n"
     "cheaper (--method forces one); the output does not depend on it.\n"
     "A syntax error does not stop the analysis: the broken statement is\n"
     "reported (FILE:LINE:COL: error: ...) and left out, with the statements\n"
     "that use a name only it declared, and the rest is analysed. The errors\n"
     "come first (stderr), then the analysis of the rest, then a line saying\n"
     "how many statements were left out; with --json the result also has\n"
     "\"leftOut\": [{line, col, endLine, endCol, offset, endOffset, message}]\n"
     "and \"syntaxErrors\": N. The exit status is still 1 (model errors).\n"},
    {"mode", cli_mode_run, CLI_OPT_DEFINE | CLI_OPT_JSON | CLI_OPT_NODE_LIMIT | CLI_OPT_REORDER |
                               CLI_OPT_MODE | CLI_OPT_METHOD,
     "FILE --mode SPEC [-D NAME=VALUE]... [--json] [--node-limit N] [--reorder]\n"
     "       [--method auto|implicit|enumeration|blocks|tight]",
     "what the all-modes analysis says about one mode",
     "SPEC sets mode variables: 'g1=1,g2=0' (values 1, 0, true, false); the\n"
     "variables it does not list are false, and a name that is not a mode\n"
     "variable of the model is a usage error (exit status 2). The result is\n"
     "the all-modes analysis restricted to this mode, not a new analysis:\n"
     "whether the mode is valid and nonsingular, the offsets, the blocks in a\n"
     "valid solving order (block triangular form: equations with ' per\n"
     "derivative -> unknowns, and what each block reads) and the edges\n"
     "between them. With --json, prints {mode, valid, singular, equations,\n"
     "variables, blocks, edges, overdetermined, underdetermined}: \"offset\"\n"
     "is null for inactive items and in invalid or singular modes; \"blocks\"\n"
     "are in solving order and each edge [from,to] gives positions in that\n"
     "list (so from < to); a block's \"id\" is its id in `analyze --json`.\n"},
    {"modechange", cli_modechange_run, CLI_OPT_DEFINE | CLI_OPT_JSON | CLI_OPT_CHANGE,
     "FILE --from SPEC --to SPEC [-D NAME=VALUE]... [--json]\n"
     "       FILE --all [-D NAME=VALUE]... [--json]\n"
     "       FILE --first [--erasures] [--instants] [-D NAME=VALUE]... [--json]",
     "what happens at a mode change: erased equations, restart systems",
     "The structural analysis of one mode change (RR-9459 section 5): the\n"
     "nonstandard expansion of the model (derivatives as Euler steps of an\n"
     "infinitesimal step), the old mode's instants as known values, and, instant\n"
     "after instant, the equations of the new mode that conflict with what the\n"
     "previous instants fixed (erased, Principle 1) until none is. The status is\n"
     "continuous (nothing erased), reset (a finite restart) or rejected (an\n"
     "underdetermined restart, a singular mode, or a guard defined from the\n"
     "current value of a variable it controls: use last()/pre()). SPEC is as\n"
     "for `mdae mode`; --from and --to must be different and valid or\n"
     "transient (exit 2 otherwise): a change into a transient mode (a `when`)\n"
     "is the cascade through its events, one out of one is analysed from a\n"
     "long mode entering it (docs/mode_changes.md). With --json, prints {from, to, status, ambiguous, instants:\n"
     "[{r, equations, unknowns, known, context, erased, status, overdetermined,\n"
     "underdetermined, alternatives}], impulsive, resets, diagnostics}, each\n"
     "item {name, shift}: shift k is the k-th forward shift (x.k) counted from\n"
     "the instant. --all: every pair of different valid modes, by enumeration\n"
     "(small models only, see docs/mode_changes.md). --first: the first instant of every\n"
     "change between valid nonsingular long modes, on BDDs over the mode\n"
     "variables before (g) and after (g'), without enumerating pairs: which are\n"
     "continuous, which need a restart, which are rejected there; with --json\n"
     "{method, pairs, counts, classes: {continuous, restart, rejected}} (sets\n"
     "as {guard, cubes}); the changes through `when` events beside them, whole,\n"
     "by enumeration (events). Syntax errors are recovered from as in `mdae\n"
     "analyze` (the changes of the rest are analysed; exit status 1).\n"},
    {"approx", cli_approx_run,
     CLI_OPT_DEFINE | CLI_OPT_JSON | CLI_OPT_NODE_LIMIT | CLI_OPT_REORDER | CLI_OPT_METHOD,
     "FILE [-D NAME=VALUE]... [--json] [--node-limit N] [--reorder]\n"
     "       [--method auto|implicit|enumeration|blocks|tight]",
     "what single-mode tools (OpenModelica, Dymola) get wrong, and in which modes",
     "Analyses the model as single-mode tools do (RR-9459 section 3.1): the\n"
     "incidences of every mode united (the equations of one if-equation at the\n"
     "same position are one equation, every guard ignored), one maximum-weight\n"
     "matching, Pryce's offsets and one block triangular form; then compares\n"
     "it with the exact all-modes analysis. Prints one line per finding,\n"
     "FILE:LINE:COL: warning: ..., then a summary: the modes where a zero\n"
     "pivot makes the generated code divide by zero (pivot), where the\n"
     "offsets differ (offsets: wrong index or states), where the model is\n"
     "singular though the tool accepts it (singular), or the modes it could\n"
     "solve when the tool refuses the model (refused). Exit status 0 whatever\n"
     "it finds. With --json, prints {accepted, equations, variables, blocks,\n"
     "findings, wrong_modes, valid_modes, overdetermined, underdetermined}\n"
     "(docs/approx.md describes it). Syntax errors are recovered from as in\n"
     "`mdae analyze`: the rest is compared, and the exit status says so.\n"},
    {"rimis", cli_rimis_run,
     CLI_OPT_DEFINE | CLI_OPT_JSON | CLI_OPT_NODE_LIMIT | CLI_OPT_REORDER | CLI_OPT_METHOD |
         CLI_OPT_OUTPUT | CLI_OPT_NO_GUARD,
     "FILE [-o OUT.mo] [-D NAME=VALUE]... [--json] [--no-guard] [--accept-jumps]\n"
     "       [--node-limit N] [--reorder] [--method auto|implicit|enumeration|blocks|tight]",
     "the model as flat Modelica that single-mode tools simulate correctly",
     "Rewrites a multimode model into one flat Modelica model, its Reduced-Index\n"
     "Mode-Independent Structure (RR-9459 section 4): every block of the exact\n"
     "all-modes analysis, in every mode, on its own replicates of the unknowns\n"
     "it writes, and multiplexers choosing by mode which replicate holds each\n"
     "variable, so that the mode-agnostic analysis of OpenModelica and Dymola\n"
     "finds every block and simulates the model correctly. The text (sections\n"
     "with comments, one group per block headed `// Block cond: reads --\n"
     "equations -> unknowns`) goes to stdout, or to OUT with -o (written\n"
     "atomically: OUT keeps its old content when writing fails); `mdae analyze`\n"
     "reads it back. Block equations are made trivial outside their modes\n"
     "(`if C then ... else w + ... = 0;`) unless --no-guard. A model RIMIS cannot\n"
     "represent is refused with located errors and exit status 1: a singular\n"
     "valid mode (its formula), an impulsive mode change (the variables and the\n"
     "change; --accept-jumps makes it a warning, the states copied across it).\n"
     "With --json, prints {name, text, lines, replicates,\n"
     "multiplexers, reinits, conditions, variables, groups, warnings}, what\n"
     "session/rimis answers (docs/rimis.md describes it).\n"},
    {"convert", cli_convert_run, CLI_OPT_TO, "FILE --to mel|modelica [--format F]",
     "print the model as MEL or as flat Modelica",
     "Reads the model (MEL or Modelica) and prints its flat model in the\n"
     "language asked for, text that reads back into the same flat model: the\n"
     "known quantities with their bindings, the mode variables with their\n"
     "definitions (a Modelica relation atom under its quoted text in MEL, as\n"
     "the relation in Modelica), the invariants (MEL), the unknowns, every\n"
     "equation as written, guarded by a conditional statement (MEL) or an\n"
     "if-equation (Modelica), when-equations (reinit in Modelica), and the\n"
     "when-clauses, discrete and initial equations that are kept aside (as\n"
     "comments in MEL, as text in Modelica). Names that are not identifiers\n"
     "are quoted ('stop1.v'). See docs/convert.md.\n"},
};

#define N_COMMANDS (sizeof commands / sizeof commands[0])

static void print_usage(FILE *f)
{
    fprintf(f, "usage: mdae COMMAND [OPTIONS] FILE\n"
               "       mdae --server ADDRESS [--timeout SECONDS] COMMAND [OPTIONS] FILE\n"
               "       mdae --help | --version\n"
               "       mdae help COMMAND\n"
               "\n"
               "Structural analysis of multimode DAE models (MEL or Modelica files), for\n"
               "all modes at once. FILE may be '-' to read the model from stdin.\n"
               "\n"
               "commands:\n");
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n"
               "global options (before COMMAND):\n"
               "  --server ADDRESS   run the command on a running mdaed instead of the\n"
               "                     embedded engine: tcp://HOST:PORT (tcp:// may be\n"
               "                     omitted) or unix:PATH; the output is the same. The\n"
               "                     access token, if the server wants one, is read from\n"
               "                     the environment variable MDAE_TOKEN. Commands:\n"
               "                     check, analyze (with --json, --dot or --svg), mode,\n"
               "                     modechange.\n"
               "  --timeout SECONDS  longest wait for one answer of the server (630)\n"
               "  --color[=WHEN]     colour the diagnostics: auto (default: when stderr is a\n"
               "                     terminal and NO_COLOR is unset), always, never; also\n"
               "                     after COMMAND\n"
               "\n"
               "options (see `mdae help COMMAND` for which apply):\n"
               "  -D NAME=VALUE      override integer constant NAME (repeatable)\n"
               "  --json             print JSON to stdout instead of text\n"
               "  --node-limit N     stop the analysis past N BDD nodes (exit status 3)\n"
               "  --reorder          enable dynamic BDD variable reordering\n"
               "  --dot[=OUT]        analyze: write the dependency graph in Graphviz DOT\n"
               "  --svg[=OUT]        analyze: the dependency graph laid out, as SVG\n"
               "  --mode SPEC        mode: the mode to look at, e.g. 'g1=1,g2=0'\n"
               "  -o OUT             rimis: write to the file OUT (atomically) instead of\n"
               "                     stdout\n"
               "  --no-guard         rimis: block equations unguarded\n"
               "  --accept-jumps     rimis: warn about jumping mode changes, not refuse\n"
               "  -h, --help         print help and exit\n"
               "\n"
               "exit status:\n"
               "  0  success (the analysis was done, even if some modes are singular)\n"
               "  1  the model has errors (syntax or semantic)\n"
               "  2  usage error (bad command line)\n"
               "  3  analysis resource limit (BDD node limit) reached\n"
               "  4  input/output or internal error; with --server: cannot reach the\n"
               "     server, or it failed or does not support the request\n");
}

static const cli_command *find_command(const char *name)
{
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

static int unknown_command(const char *name)
{
    fprintf(stderr, "mdae: unknown command '%s'\n", name);
    fprintf(stderr, "Try 'mdae --help' for the list of commands.\n");
    return CLI_EXIT_USAGE;
}

/* Global options before the command: --server ADDRESS, --timeout SECONDS
 * (also as --server=ADDRESS, --timeout=SECONDS), --color[=WHEN] (*color:
 * CLI_COLOR_*, as a command's own --color, which wins). Returns the index of the
 * command in argv, or -1 after printing a usage error. */
static int parse_globals(int argc, char **argv, const char **server, int *timeout_ms,
                         int *color)
{
    int i = 1;
    bool timeout_given = false;
    while (i < argc) {
        const char *a = argv[i];
        const char *v = NULL;
        if (strncmp(a, "--color", 7) == 0 && (a[7] == '\0' || a[7] == '=')) {
            int c;
            if (cli_parse_color(a, &c) < 0) {
                fprintf(stderr, "mdae: invalid --color '%s': expected auto, always or never\n",
                        a + 8);
                return -1;
            }
            *color = c;
            i++;
            continue;
        }
        bool is_server = strncmp(a, "--server", 8) == 0 && (a[8] == '\0' || a[8] == '=');
        bool is_timeout = strncmp(a, "--timeout", 9) == 0 && (a[9] == '\0' || a[9] == '=');
        if (!is_server && !is_timeout)
            break;
        const char *eq = strchr(a, '=');
        if (eq != NULL) {
            v = eq + 1;
        } else if (i + 1 < argc) {
            v = argv[++i];
        }
        if (v == NULL || v[0] == '\0') {
            fprintf(stderr, "mdae: option '%s' needs a value\n", a);
            return -1;
        }
        if (is_server) {
            *server = v;
        } else {
            char *end = NULL;
            errno = 0;
            long secs = strtol(v, &end, 10);
            if (errno != 0 || end == v || *end != '\0' || secs <= 0 || secs > 86400) {
                fprintf(stderr, "mdae: invalid --timeout '%s': expected seconds, 1 to 86400\n",
                        v);
                return -1;
            }
            *timeout_ms = (int)secs * 1000;
            timeout_given = true;
        }
        i++;
    }
    if (timeout_given && *server == NULL) {
        fprintf(stderr, "mdae: --timeout only applies with --server\n");
        return -1;
    }
    return i;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_usage(stderr);
        return CLI_EXIT_USAGE;
    }
    const char *server = NULL;
    int timeout_ms = CLI_DEFAULT_TIMEOUT_MS;
    int color = CLI_COLOR_AUTO;
    int first_i = parse_globals(argc, argv, &server, &timeout_ms, &color);
    if (first_i < 0) {
        fprintf(stderr, "Try 'mdae --help' for more information.\n");
        return CLI_EXIT_USAGE;
    }
    if (first_i >= argc) {
        fprintf(stderr, "mdae: expected a command after the global options\n");
        return CLI_EXIT_USAGE;
    }
    argc -= first_i - 1;
    argv += first_i - 1;
    const char *first = argv[1];
    if (strcmp(first, "--help") == 0 || strcmp(first, "-h") == 0) {
        print_usage(stdout);
        return cli_finish(CLI_EXIT_OK);
    }
    if (strcmp(first, "--version") == 0) {
        printf("mdae %s\n", MDAE_VERSION);
        return cli_finish(CLI_EXIT_OK);
    }
    if (strcmp(first, "help") == 0) {
        if (argc == 2) {
            print_usage(stdout);
            return cli_finish(CLI_EXIT_OK);
        }
        if (argc > 3) {
            fprintf(stderr, "mdae: usage: mdae help [COMMAND]\n");
            return CLI_EXIT_USAGE;
        }
        const cli_command *c = find_command(argv[2]);
        if (c == NULL)
            return unknown_command(argv[2]);
        cli_print_command_help(stdout, c);
        return cli_finish(CLI_EXIT_OK);
    }
    if (first[0] == '-') {
        fprintf(stderr, "mdae: expected a command before '%s'\n", first);
        fprintf(stderr, "Try 'mdae --help' for more information.\n");
        return CLI_EXIT_USAGE;
    }
    const cli_command *cmd = find_command(first);
    if (cmd == NULL)
        return unknown_command(first);

    cli_opts o;
    bool help = false;
    int code = cli_args_parse(cmd, argc - 2, argv + 2, &o, &help);
    if (code != CLI_EXIT_OK)
        return code;
    if (help) {
        cli_print_command_help(stdout, cmd);
        return cli_finish(CLI_EXIT_OK);
    }
    o.server = server;
    o.timeout_ms = timeout_ms;
    if (o.color == CLI_COLOR_AUTO)
        o.color = color;
    o.recover = cmd->run == cli_check_run || cmd->run == cli_analyze_run ||
                cmd->run == cli_approx_run || cmd->run == cli_modechange_run;
    if (server != NULL && (cmd->run == cli_structure_run || cmd->run == cli_convert_run)) {
        /* never run locally as if the server had answered (issue 42) */
        fprintf(stderr, "mdae %s: not available with --server (the server runs check, "
                        "analyze, mode and modechange); run it without --server, see "
                        "docs/protocol.md\n", cmd->name);
        cli_opts_close(&o);
        return CLI_EXIT_USAGE;
    }
    code = cmd->run(&o);
    cli_opts_close(&o);
    return cli_finish(code);
}
