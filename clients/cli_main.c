/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * clients/cli_main.c -- `mdae COMMAND ...`: the command table and dispatch.
 *
 * A command is one row of `commands` below; its options are parsed by
 * cli_args.c from the CLI_OPT_* flags of the row, so adding a command
 * (issue 4: `mode`; issue 5: remote analysis through mdaed) touches this
 * table and a new cli_<family>.c file, nothing else.
 */
#include "cli.h"

#include <stdio.h>
#include <string.h>

static const cli_command commands[] = {
    {"check", cli_check_run, CLI_OPT_DEFINE | CLI_OPT_JSON | CLI_OPT_NODE_LIMIT | CLI_OPT_REORDER,
     "FILE [-D NAME=VALUE]... [--json] [--node-limit N] [--reorder]",
     "parse a model and check its consistency in all modes",
     "Parses and elaborates the model, then checks with BDDs that every incidence\n"
     "is active only where its equation and its variable exist, and that the\n"
     "invariants leave at least one valid mode. Prints a summary of the flat\n"
     "structure to stdout and the diagnostics to stderr. With --json, prints\n"
     "{\"file\",\"ok\",\"counts\",\"diagnostics\"} to stdout instead.\n"},
    {"structure", cli_structure_run, CLI_OPT_DEFINE | CLI_OPT_JSON,
     "FILE [-D NAME=VALUE]... [--json]",
     "print the flat guarded incidence structure of a model",
     "Prints the mode variables, invariants, variables and equations of the\n"
     "elaborated model, with the guard of every incidence case. With --json,\n"
     "prints the JSON form (modeVariables, invariants, equations, variables,\n"
     "counts).\n"},
    {"analyze", cli_analyze_run, CLI_OPT_DEFINE | CLI_OPT_JSON | CLI_OPT_NODE_LIMIT | CLI_OPT_REORDER,
     "FILE [-D NAME=VALUE]... [--json] [--node-limit N] [--reorder]",
     "structural analysis in all modes at once",
     "Runs the structural analysis on BDDs: valid modes, structurally singular\n"
     "modes with their over- and underdetermined parts, and the offsets of every\n"
     "equation (c) and variable (d) as functions of the mode. Exit status 0 even\n"
     "when some modes are singular. With --json, prints the report as JSON (the\n"
     "same object as the server's analyze result).\n"},
};

#define N_COMMANDS (sizeof commands / sizeof commands[0])

static void print_usage(FILE *f)
{
    fprintf(f, "usage: mdae COMMAND [OPTIONS] FILE\n"
               "       mdae --help | --version\n"
               "       mdae help COMMAND\n"
               "\n"
               "Structural analysis of multimode DAE models (MEL files), for all modes at\n"
               "once. FILE may be '-' to read the model from stdin.\n"
               "\n"
               "commands:\n");
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n"
               "options (see `mdae help COMMAND` for which apply):\n"
               "  -D NAME=VALUE      override integer constant NAME (repeatable)\n"
               "  --json             print JSON to stdout instead of text\n"
               "  --node-limit N     stop the analysis past N BDD nodes (exit status 3)\n"
               "  --reorder          enable dynamic BDD variable reordering\n"
               "  -h, --help         print help and exit\n"
               "\n"
               "exit status:\n"
               "  0  success (the analysis was done, even if some modes are singular)\n"
               "  1  the model has errors (syntax or semantic)\n"
               "  2  usage error (bad command line)\n"
               "  3  analysis resource limit (BDD node limit) reached\n"
               "  4  input/output or internal error\n");
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

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_usage(stderr);
        return CLI_EXIT_USAGE;
    }
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
    code = cmd->run(&o);
    cli_opts_close(&o);
    return cli_finish(code);
}
