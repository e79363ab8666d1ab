# mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
"""mdae_client.cli -- ``mdae-client``: the server's methods from a shell.

    mdae-client status
    mdae-client analyze MODEL [--json] [-D N=20] [--method implicit]
    mdae-client mode MODEL --mode g1=1,g2=0
    mdae-client modechange MODEL --from g=0 --to g=1    (or --all, --first)
    mdae-client dot MODEL
    mdae-client svg MODEL > cdg.svg

The model is MEL, or Modelica for .mo/.bmo (or --format). By default it
talks to mdaed at tcp://127.0.0.1:7420 (--server ADDRESS: tcp://HOST:PORT,
unix:PATH or http://HOST:PORT, or $MDAE_SERVER); --stdio starts
``mdaed --stdio`` (--mdaed PATH) for the one command instead. Errors name
the model's file, never the server's session id, and end without a
traceback. Exit status as ``mdae``'s: 0 success, 1 the model has errors
(or is not UTF-8 text), 2 usage (a bad address, an unknown mode
variable), 3 the BDD node limit, 4 server or I/O error.
"""

import argparse
import json
import os
import re
import sys
from typing import Dict, List, Optional, Sequence

from . import INVALID_PARAMS, Client, RpcError, Session


def _parse_mode(text: str) -> Dict[str, bool]:
    mode: Dict[str, bool] = {}
    for part in filter(None, text.split(",")):
        name, sep, value = part.partition("=")
        if not sep or value not in ("0", "1", "true", "false"):
            raise argparse.ArgumentTypeError("a mode is name=0|1,... (got %r)" % part)
        mode[name.strip()] = value in ("1", "true")
    return mode


def _parse_define(text: str) -> Dict[str, int]:
    name, sep, value = text.partition("=")
    try:
        return {name: int(value)} if sep else {}
    except ValueError:
        raise argparse.ArgumentTypeError("-D takes NAME=INTEGER (got %r)" % text)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="mdae-client",
                                description="Structural analysis of multimode DAE models "
                                            "by a running mdaed.")
    p.add_argument("--server", default=os.environ.get("MDAE_SERVER", "tcp://127.0.0.1:7420"),
                   help="tcp://HOST:PORT or unix://PATH (default %(default)s)")
    p.add_argument("--stdio", action="store_true", help="start mdaed --stdio instead")
    p.add_argument("--mdaed", default="mdaed", help="the mdaed binary for --stdio")
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("status", help="server/status")
    for name, what in (("analyze", "the analysis (a summary, or --json)"),
                       ("mode", "the projection on one mode"),
                       ("modechange", "what happens at a mode change (--from/--to, or --all)"),
                       ("dot", "the dependency graph as Graphviz DOT"),
                       ("svg", "the dependency graph as SVG")):
        c = sub.add_parser(name, help=what)
        c.add_argument("model", help="a .mel, .mo or .bmo file ('-': standard input)")
        c.add_argument("--format", choices=("mel", "modelica"),
                       help="the model's language (default: by extension)")
        c.add_argument("-D", dest="defines", action="append", type=_parse_define, default=[],
                       metavar="NAME=VALUE", help="override an integer constant")
        if name == "analyze":
            c.add_argument("--json", action="store_true", help="print the whole JSON")
            c.add_argument("--method", choices=("auto", "implicit", "enumeration"))
        if name == "mode":
            c.add_argument("--mode", required=True, type=_parse_mode,
                           help="name=0|1,... e.g. g1=1,g2=0")
        if name == "modechange":
            c.add_argument("--from", dest="from_mode", type=_parse_mode,
                           help="the mode before, e.g. g=0")
            c.add_argument("--to", dest="to_mode", type=_parse_mode,
                           help="the mode after, e.g. g=1")
            c.add_argument("--all", action="store_true",
                           help="every change between two valid modes (small models)")
            c.add_argument("--first", action="store_true",
                           help="the first instant of every change, on BDDs (any size)")
            c.add_argument("--erasures", action="store_true",
                           help="with --first: which equations each first instant erases")
            c.add_argument("--instants", action="store_true",
                           help="with --first: every later instant too")
    return p


class _Refused(Exception):
    """The model file cannot be sent: a message naming it, and the exit status."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def _read_model(path: str) -> str:
    """The model's text; _Refused for a binary file or one not in UTF-8 (what
    ``mdae`` says of them: one line naming the file, exit status 1)."""
    name = "<stdin>" if path == "-" else path
    try:
        if path == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as f:
                data = f.read()
    except OSError as e:
        raise _Refused("mdae-client: cannot read '%s': %s" % (name, e.strerror or e), 4)
    nul = data.find(b"\0")
    if nul >= 0:
        raise _Refused("mdae-client: '%s' is not a model: a binary file (a NUL byte at offset %d);"
                       " models are MEL or Modelica text in UTF-8, see docs/languages.md"
                       % (name, nul), 1)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        start = data.rfind(b"\n", 0, e.start) + 1
        col = len(data[start:e.start].decode("utf-8", "replace")) + 1
        raise _Refused("%s:%d:%d: error: the file is not UTF-8 (byte 0x%02X); a server takes "
                       "UTF-8 text only (convert it, e.g. iconv -f latin1 -t utf-8), see "
                       "docs/languages.md" % (name, line, col, data[e.start]), 1)


def _modechange(args: argparse.Namespace, session: Session) -> Dict[str, object]:
    if args.all or args.first:
        if args.from_mode is not None or args.to_mode is not None:
            raise _Refused("mdae-client modechange: --all/--first or --from/--to, not both", 2)
        return session.modechanges(first=args.first, erasures=args.erasures,
                                   instants=args.instants)
    if args.from_mode is None or args.to_mode is None:
        raise _Refused("mdae-client modechange: give --from SPEC --to SPEC, or --all "
                       "(see docs/mode_changes.md)", 2)
    if args.erasures or args.instants:
        raise _Refused("mdae-client modechange: --erasures and --instants go with --first", 2)
    return session.modechange(args.from_mode, args.to_mode)


def _summary(path: str, r: Dict[str, object]) -> str:
    count = r.get("validModesExact") or r.get("validModes")
    lines = ["%s: %s, %s valid mode%s" % (path, r.get("status"), count,
                                          "" if str(count) == "1" else "s")]
    for d in r.get("diagnostics") or []:  # type: ignore[attr-defined]
        what = d.get("equation") or d.get("variable")
        guard = d.get("guard")
        lines.append("  %s %s %s" % (d.get("kind"), what,
                                     "in every mode" if guard == "true" else "when %s" % guard))
    lines.append("  %d blocks, %d edges" % (len(r.get("blocks") or []),  # type: ignore[arg-type]
                                            len(r.get("edges") or [])))  # type: ignore[arg-type]
    return "\n".join(lines)


def _run(args: argparse.Namespace, client: Client) -> int:
    if args.command == "status":
        print(json.dumps(client.status(), indent=2))
        return 0
    text = _read_model(args.model)
    fmt = args.format or ("modelica" if args.model.endswith((".mo", ".bmo")) or
                          (not args.model.endswith(".mel") and _looks_like_modelica(text))
                          else "mel")
    defines: Dict[str, int] = {}
    for d in args.defines:
        defines.update(d)
    session: Session = client.open(text, defines=defines or None, format=fmt,
                                   recover=args.command == "analyze")
    if args.command == "analyze":
        # as `mdae analyze`: a half-typed statement is reported and left
        # out, the rest analysed, and the exit status says there were errors
        path = "<stdin>" if args.model == "-" else args.model
        r = session.analyze(method=args.method)
        left_out = r.get("leftOut") or []
        for e in left_out:
            print("%s:%s:%s: error: %s" % (path, e.get("line"), e.get("col"), e.get("message")),
                  file=sys.stderr)
        if left_out:
            print("%s: %d statement%s left out, the result is of the rest"
                  % (path, len(left_out), "" if len(left_out) == 1 else "s"), file=sys.stderr)
        print(json.dumps(r, indent=2) if args.json else _summary(path, r))
        return 1 if left_out else 0
    elif args.command == "mode":
        print(json.dumps(session.mode(args.mode), indent=2))
    elif args.command == "modechange":
        print(json.dumps(_modechange(args, session), indent=2))
    elif args.command == "dot":
        sys.stdout.write(session.dot())
    else:
        sys.stdout.write(session.svg())
    return 0


_MODELICA_FIRST_WORDS = ("within", "model", "package", "block", "class", "record", "connector",
                         "function", "type", "partial", "encapsulated", "operator", "expandable")


def _looks_like_modelica(text: str) -> bool:
    """As the server's mo_is_modelica: `//! base`, or a first word (after
    blank space and comments) that opens a Modelica class and is not a MEL
    declaration (`model : real;`)."""
    rest = text.lstrip("\ufeff \t\r\n")
    if rest.startswith("//! base"):
        return True
    while rest.startswith(("//", "/*")):
        end = rest.find("\n") if rest.startswith("//") else rest.find("*/")
        rest = "" if end < 0 else rest[end + (1 if rest.startswith("//") else 2):]
        rest = rest.lstrip(" \t\r\n")
    word = rest.split(None, 1)[0] if rest.split() else ""
    word = word.split(":", 1)[0].split(";", 1)[0]
    after = rest[len(word):].lstrip()
    return word in _MODELICA_FIRST_WORDS and not after.startswith(":")


def _exit_status(e: RpcError) -> int:
    """mdae's exit status for a server error."""
    if e.code == INVALID_PARAMS:
        return 2  # a mode that names no mode variable, a bad -D: usage, as mdae
    if e.name in ("MDAE_E_PARSE", "MDAE_E_MODEL", "MDAE_E_LIMIT"):
        return 1
    return 3 if e.name == "MDAE_E_BDD_LIMIT" else 4


#: a located message of the server: "SESSION:LINE:COL: error: ..."
_LOCATED = re.compile(r"^[A-Za-z0-9._-]+(?=:\d+:\d+: )")


def _say_rpc_error(e: RpcError, model: str) -> None:
    """The server's error in the file's words: its located messages name the
    session (`sgfel...:12:27: error: ...`, even one that failed to open);
    the user knows the file."""
    name = "<stdin>" if model == "-" else model

    def named(text: str) -> str:
        return _LOCATED.sub(lambda _: name, text, count=1)

    print("mdae-client: %s: %s%s" % (name, e.message, " (%s)" % e.name if e.name else ""),
          file=sys.stderr)
    data = e.data if isinstance(e.data, dict) else {}
    for m in data.get("messages") or []:
        print(named(str(m)), file=sys.stderr)
    if e.name == "MDAE_E_BDD_LIMIT":
        print("mdae-client: raise the server's bdd.node_limit, see docs/limits.md",
              file=sys.stderr)


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = _parser().parse_args(list(argv) if argv is not None else None)
    try:
        client = (Client.spawn([args.mdaed, "--stdio", "--log-level", "error"]) if args.stdio
                  else Client.connect(args.server))
    except ValueError as e:
        print("mdae-client: invalid --server %r: %s (see docs/protocol.md)" % (args.server, e),
              file=sys.stderr)
        return 2
    except OSError as e:
        print("mdae-client: cannot reach the server at %s: %s (see docs/operations.md)"
              % ("mdaed --stdio" if args.stdio else args.server, e.strerror or e),
              file=sys.stderr)
        return 4
    try:
        with client:
            return _run(args, client)
    except _Refused as e:
        print(e, file=sys.stderr)
        return e.status
    except RpcError as e:
        _say_rpc_error(e, getattr(args, "model", "-"))
        return _exit_status(e)
    except (OSError, ConnectionError) as e:
        print("mdae-client: %s" % e, file=sys.stderr)
        return 4


if __name__ == "__main__":
    sys.exit(main())
