/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * clients/cli_args.c -- parse a command's options strictly.
 *
 * Strict because a typo in `-D N=2O` must not silently analyse the model
 * with the default N: every malformed value is a usage error (exit 2), with
 * the offending argument quoted. Options and FILE may come in any order;
 * `--` ends the options (for a file named "-x"); "-" alone is FILE (stdin).
 */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static bool is_ident_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

int cli_parse_define(const char *arg, mel_define *out, const char **why)
{
    const char *eq = strchr(arg, '=');
    if (eq == NULL) {
        *why = "expected NAME=VALUE";
        return -1;
    }
    if (eq == arg || !is_ident_start(arg[0])) {
        *why = "NAME must be an identifier";
        return -1;
    }
    for (const char *p = arg; p < eq; p++) {
        if (!is_ident_start(*p) && !is_digit(*p)) {
            *why = "NAME must be an identifier";
            return -1;
        }
    }
    const char *v = eq + 1;
    const char *d = (*v == '+' || *v == '-') ? v + 1 : v;
    if (*d == '\0') {
        *why = "VALUE must be a decimal integer";
        return -1;
    }
    for (const char *p = d; *p; p++) {
        if (!is_digit(*p)) {
            *why = "VALUE must be a decimal integer";
            return -1;
        }
    }
    errno = 0;
    long long value = strtoll(v, NULL, 10);
    if (errno == ERANGE) {
        *why = "VALUE is out of range";
        return -1;
    }
    /* The name is used in place: mel_define borrows it, and it ends at '='.
     * Callers copy it (cli_args_parse) because mel wants a NUL-terminated
     * name. */
    out->name = arg;
    out->value = value;
    return 0;
}

static int parse_size(const char *s, size_t *out)
{
    if (*s == '\0')
        return -1;
    for (const char *p = s; *p; p++)
        if (!is_digit(*p))
            return -1;
    errno = 0;
    unsigned long long v = strtoull(s, NULL, 10);
    if (errno == ERANGE || v > SIZE_MAX || v == 0)
        return -1;
    *out = (size_t)v;
    return 0;
}

void cli_print_command_help(FILE *f, const cli_command *cmd)
{
    fprintf(f, "usage: mdae %s %s\n\n%s", cmd->name, cmd->args, cmd->help);
    fprintf(f, "\noptions:\n");
    if (cmd->opts & CLI_OPT_DEFINE)
        fprintf(f, "  -D NAME=VALUE   override integer constant NAME (repeatable)\n");
    if (cmd->opts & CLI_OPT_JSON)
        fprintf(f, "  --json          print JSON to stdout\n");
    if (cmd->opts & CLI_OPT_NODE_LIMIT)
        fprintf(f, "  --node-limit N  give up past N BDD nodes (exit status 3)\n");
    if (cmd->opts & CLI_OPT_METHOD)
        fprintf(f, "  --method M      how each connected component is analysed: auto (default:\n"
                   "                  by an estimate), implicit (all modes at once on BDDs),\n"
                   "                  enumeration (each valid mode), blocks (implicit, the\n"
                   "                  matchings block by block) or tight (blocks, each by\n"
                   "                  the tight graphs of sampled modes); the result is\n"
                   "                  the same\n");
    if (cmd->opts & CLI_OPT_REORDER)
        fprintf(f, "  --reorder       enable dynamic BDD variable reordering\n");
    if (cmd->opts & CLI_OPT_DOT)
        fprintf(f, "  --dot[=OUT]     write the CDG in Graphviz DOT to stdout (or to OUT)\n"
                   "  --svg[=OUT]     write the CDG laid out by Graphviz, as SVG\n");
    if (cmd->opts & CLI_OPT_FAMILIES)
        fprintf(f, "  --families      print block families (one per structure, each item with\n"
                   "                  its modes) instead of every block and edge\n");
    if (cmd->opts & CLI_OPT_MODE)
        fprintf(f, "  --mode SPEC     the mode: 'g1=1,g2=0' (1/0/true/false; unlisted: false)\n");
    if (cmd->opts & CLI_OPT_TO)
        fprintf(f, "  --to mel        the language to print (MEL)\n");
    if (cmd->opts & CLI_OPT_OUTPUT)
        fprintf(f, "  -o OUT          write to the file OUT instead of stdout (atomically:\n"
                   "                  OUT is left as it was when writing fails; -: stdout)\n");
    if (cmd->opts & CLI_OPT_NO_GUARD)
        fprintf(f, "  --no-guard      print block equations unguarded (RR-9459 section 4.7\n"
                   "                  off): partially evaluated only\n"
                   "  --accept-jumps  mode changes that make states jump or values\n"
                   "                  impulsive are warned about instead of refused; the\n"
                   "                  output copies the states there (wrong if they jump)\n");
    if (cmd->opts & CLI_OPT_CHANGE)
        fprintf(f, "  --from SPEC     the old mode: 'g1=1,g2=0' (1/0/true/false; unlisted: false)\n"
                   "  --to SPEC       the new mode, likewise\n"
                   "  --all           every change between two valid modes (see above)\n"
                   "  --first         the first instant of every change, on BDDs (see above)\n"
                   "  --erasures      with --first: also which equations it erases, pair by\n"
                   "                  pair (costlier: one pass over the pairs per equation),\n"
                   "                  and its impulse orders by class of pairs\n"
                   "  --instants      with --first: also every later instant, on BDDs: the\n"
                   "                  status and number of instants of every change, each\n"
                   "                  instant's erasures and impulse orders\n");
    fprintf(f, "  --format F      read FILE as F: mel or modelica (default: Modelica for\n"
               "                  .mo/.bmo files, texts starting with //! base, and texts\n"
               "                  whose first word is model, package, within...)\n");
    fprintf(f, "  --color[=WHEN]  colour the diagnostics: auto (default: when stderr is a\n"
               "                  terminal and NO_COLOR is unset), always, never\n");
    fprintf(f, "  -h, --help      print this help\n"
               "\nexit status: 0 success, 1 model errors, 2 usage error,\n"
               "3 BDD node limit reached, 4 input/output or internal error\n");
}

static int usage_error(const cli_command *cmd, cli_opts *o, const char *fmt, const char *arg,
                       const char *why)
{
    fprintf(stderr, "mdae %s: ", cmd->name);
    fprintf(stderr, fmt, arg);
    if (why)
        fprintf(stderr, ": %s", why);
    fprintf(stderr, "\nusage: mdae %s %s\n", cmd->name, cmd->args);
    cli_opts_close(o);
    return CLI_EXIT_USAGE;
}

/* Add one define, copying its name (mel_define wants a NUL-terminated name;
 * argv holds "NAME=VALUE"). Rejects a second -D for the same name: which
 * one wins would be a guess. */
static int add_define(const cli_command *cmd, cli_opts *o, const char *arg)
{
    mel_define def;
    const char *why = NULL;
    if (cli_parse_define(arg, &def, &why) != 0)
        return usage_error(cmd, o, "invalid -D '%s'", arg, why);
    size_t nlen = (size_t)(strchr(arg, '=') - arg);
    for (size_t i = 0; i < o->n_defines; i++) {
        if (strlen(o->defines[i].name) == nlen && memcmp(o->defines[i].name, arg, nlen) == 0)
            return usage_error(cmd, o, "-D '%s' defines a name twice", arg, NULL);
    }
    char *name = mdae_strndup(arg, nlen);
    mel_define *grown = name ? mdae_realloc(o->defines, (o->n_defines + 1) * sizeof *grown) : NULL;
    if (grown == NULL) {
        mdae_free(name);
        fprintf(stderr, "mdae: out of memory\n");
        cli_opts_close(o);
        return CLI_EXIT_IO;
    }
    o->defines = grown;
    o->defines[o->n_defines].name = name;
    o->defines[o->n_defines].value = def.value;
    o->n_defines++;
    return CLI_EXIT_OK;
}

void cli_opts_close(cli_opts *o)
{
    for (size_t i = 0; i < o->n_defines; i++)
        mdae_free((char *)o->defines[i].name);
    mdae_free(o->defines);
    memset(o, 0, sizeof *o);
}

/* The value of an option given as "--opt VALUE" or "--opt=VALUE" (short
 * option "-DVALUE" too). NULL when missing. Advances *i past VALUE. */
static const char *option_value(int argc, char **argv, int *i, const char *opt)
{
    const char *a = argv[*i];
    size_t n = strlen(opt);
    if (a[n] == '=' && opt[1] == '-')
        return a + n + 1;
    if (a[n] != '\0') /* "-DN=20" */
        return a + n;
    if (*i + 1 >= argc)
        return NULL;
    (*i)++;
    return argv[*i];
}

/* Does argument a name option opt, alone or as "--opt=..." / "-Dxxx"? */
static bool is_option(const char *a, const char *opt)
{
    size_t n = strlen(opt);
    if (strncmp(a, opt, n) != 0)
        return false;
    if (a[n] == '\0')
        return true;
    return opt[1] == '-' ? a[n] == '=' : true;
}

int cli_parse_color(const char *arg, int *color)
{
    /* only --color=WHEN: a separate word is FILE (as GNU ls) */
    const char *v = strchr(arg, '=') ? strchr(arg, '=') + 1 : "always";
    if (strcmp(v, "auto") == 0)
        *color = CLI_COLOR_AUTO;
    else if (strcmp(v, "always") == 0)
        *color = CLI_COLOR_ALWAYS;
    else if (strcmp(v, "never") == 0)
        *color = CLI_COLOR_NEVER;
    else
        return -1;
    return 0;
}

int cli_args_parse(const cli_command *cmd, int argc, char **argv, cli_opts *o, bool *help)
{
    memset(o, 0, sizeof *o);
    *help = false;
    bool options_done = false;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        bool is_opt = !options_done && a[0] == '-' && a[1] != '\0';
        if (!is_opt) {
            if (o->file != NULL)
                return usage_error(cmd, o, "unexpected argument '%s' (only one FILE)", a, NULL);
            o->file = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            options_done = true;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            cli_opts_close(o);
            *help = true;
            return CLI_EXIT_OK;
        } else if ((cmd->opts & CLI_OPT_DEFINE) &&
                   (is_option(a, "-D") || is_option(a, "--define"))) {
            const char *v = option_value(argc, argv, &i, a[1] == 'D' ? "-D" : "--define");
            if (v == NULL)
                return usage_error(cmd, o, "option '%s' needs NAME=VALUE", a, NULL);
            int code = add_define(cmd, o, v);
            if (code != CLI_EXIT_OK)
                return code;
        } else if ((cmd->opts & CLI_OPT_JSON) && strcmp(a, "--json") == 0) {
            o->json = true;
        } else if ((cmd->opts & CLI_OPT_FAMILIES) && strcmp(a, "--families") == 0) {
            o->families = true;
        } else if ((cmd->opts & CLI_OPT_REORDER) && strcmp(a, "--reorder") == 0) {
            o->reorder = true;
        } else if ((cmd->opts & CLI_OPT_DOT) && is_option(a, "--dot")) {
            /* Only "--dot=FILE": a separate word after --dot is FILE, the
             * model. */
            if (o->dot)
                return usage_error(cmd, o, "--dot and --svg%s exclude each other", "", NULL);
            o->dot = true;
            o->dot_file = a[5] == '=' ? a + 6 : NULL;
            if (o->dot_file != NULL && o->dot_file[0] == '\0')
                return usage_error(cmd, o, "option '%s' needs a file name after '='", a, NULL);
        } else if ((cmd->opts & CLI_OPT_DOT) && is_option(a, "--svg")) {
            /* As --dot (issue 14): the same graph, laid out. */
            if (o->dot)
                return usage_error(cmd, o, "--dot and --svg%s exclude each other", "", NULL);
            o->dot = o->svg = true;
            o->dot_file = a[5] == '=' ? a + 6 : NULL;
            if (o->dot_file != NULL && o->dot_file[0] == '\0')
                return usage_error(cmd, o, "option '%s' needs a file name after '='", a, NULL);
        } else if ((cmd->opts & CLI_OPT_MODE) && is_option(a, "--mode")) {
            const char *v = option_value(argc, argv, &i, "--mode");
            if (v == NULL)
                return usage_error(cmd, o, "option '%s' needs a mode such as 'g1=1,g2=0'", a,
                                   NULL);
            if (o->mode != NULL)
                return usage_error(cmd, o, "option '%s' given twice", "--mode", NULL);
            o->mode = v;
        } else if ((cmd->opts & CLI_OPT_METHOD) && is_option(a, "--method")) {
            const char *v = option_value(argc, argv, &i, "--method");
            if (v == NULL || sa_method_from_name(v, &o->method) < 0)
                return usage_error(cmd, o, "invalid --method '%s'", v ? v : "",
                                   "expected auto, implicit, enumeration, blocks or tight");
        } else if (is_option(a, "--color") || is_option(a, "--colour")) {
            if (cli_parse_color(a, &o->color) < 0)
                return usage_error(cmd, o, "invalid --color '%s'", strchr(a, '=') + 1,
                                   "expected auto, always or never");
        } else if (is_option(a, "--format")) {
            const char *v = option_value(argc, argv, &i, "--format");
            if (v == NULL || (strcmp(v, "mel") != 0 && strcmp(v, "modelica") != 0))
                return usage_error(cmd, o, "option '%s' needs 'mel' or 'modelica'", "--format",
                                   NULL);
            o->format = v;
        } else if ((cmd->opts & CLI_OPT_CHANGE) &&
                   (is_option(a, "--from") || is_option(a, "--to"))) {
            bool from = is_option(a, "--from");
            const char *v = option_value(argc, argv, &i, from ? "--from" : "--to");
            if (v == NULL)
                return usage_error(cmd, o, "option '%s' needs a mode such as 'g1=1,g2=0'", a,
                                   NULL);
            if ((from ? o->from_mode : o->to_mode) != NULL)
                return usage_error(cmd, o, "option '%s' given twice", from ? "--from" : "--to",
                                   NULL);
            *(from ? &o->from_mode : &o->to_mode) = v;
        } else if ((cmd->opts & CLI_OPT_CHANGE) && strcmp(a, "--all") == 0) {
            o->all = true;
        } else if ((cmd->opts & CLI_OPT_CHANGE) && strcmp(a, "--first") == 0) {
            o->all = o->first = true;
        } else if ((cmd->opts & CLI_OPT_CHANGE) && strcmp(a, "--erasures") == 0) {
            o->erasures = true;
        } else if ((cmd->opts & CLI_OPT_CHANGE) && strcmp(a, "--instants") == 0) {
            o->instants = true;
        } else if ((cmd->opts & CLI_OPT_TO) && is_option(a, "--to")) {
            const char *v = option_value(argc, argv, &i, "--to");
            if (v == NULL || (strcmp(v, "mel") != 0 && strcmp(v, "modelica") != 0))
                return usage_error(cmd, o, "option '%s' needs 'mel' or 'modelica'", "--to",
                                   NULL);
            o->to = v;
        } else if ((cmd->opts & CLI_OPT_OUTPUT) &&
                   (is_option(a, "-o") || is_option(a, "--output"))) {
            const char *v = option_value(argc, argv, &i, a[1] == 'o' ? "-o" : "--output");
            if (v == NULL || v[0] == '\0')
                return usage_error(cmd, o, "option '%s' needs a file name", a, NULL);
            if (o->output != NULL)
                return usage_error(cmd, o, "option '%s' given twice", "-o", NULL);
            o->output = v;
        } else if ((cmd->opts & CLI_OPT_NO_GUARD) && strcmp(a, "--no-guard") == 0) {
            o->no_guard = true;
        } else if ((cmd->opts & CLI_OPT_NO_GUARD) && strcmp(a, "--accept-jumps") == 0) {
            o->accept_jumps = true;
        } else if ((cmd->opts & CLI_OPT_NODE_LIMIT) && is_option(a, "--node-limit")) {
            const char *v = option_value(argc, argv, &i, "--node-limit");
            if (v == NULL)
                return usage_error(cmd, o, "option '%s' needs a number", a, NULL);
            if (parse_size(v, &o->node_limit) != 0)
                return usage_error(cmd, o, "invalid --node-limit '%s'", v,
                                   "expected a positive integer");
        } else {
            return usage_error(cmd, o, "unknown option '%s'", a, NULL);
        }
    }
    if (o->file == NULL)
        return usage_error(cmd, o, "missing FILE%s", "", NULL);
    if ((cmd->opts & CLI_OPT_MODE) && o->mode == NULL)
        return usage_error(cmd, o, "missing --mode%s (e.g. --mode 'g1=1,g2=0')", "", NULL);
    if ((cmd->opts & CLI_OPT_CHANGE) && o->all && (o->from_mode || o->to_mode))
        return usage_error(cmd, o, "%s excludes --from and --to", o->first ? "--first" : "--all",
                           NULL);
    if ((cmd->opts & CLI_OPT_CHANGE) && (o->erasures || o->instants) && !o->first)
        return usage_error(cmd, o, "%s goes with --first", o->erasures ? "--erasures" : "--instants",
                           "(--all and --from/--to give every instant already)");
    if ((cmd->opts & CLI_OPT_CHANGE) && !o->all && (!o->from_mode || !o->to_mode))
        return usage_error(cmd, o, "missing %s (e.g. --from 'g=0' --to 'g=1', or --all)",
                           !o->from_mode ? "--from" : "--to", NULL);
    if ((cmd->opts & CLI_OPT_TO) && o->to == NULL)
        return usage_error(cmd, o, "missing --to%s (e.g. --to mel)", "", NULL);
    if (o->dot && o->families)
        return usage_error(cmd, o, "%s and --families exclude each other",
                           o->svg ? "--svg" : "--dot", NULL);
    if (o->dot && o->json)
        return usage_error(cmd, o, "%s and --json exclude each other", o->svg ? "--svg" : "--dot",
                           NULL);
    return CLI_EXIT_OK;
}
