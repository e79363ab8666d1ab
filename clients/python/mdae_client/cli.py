# mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
"""mdae_client.cli -- ``mdae-client``: the server's methods from a shell.

    mdae-client status
    mdae-client analyze MODEL [--json] [-D N=20] [--method implicit]
    mdae-client mode MODEL --mode g1=1,g2=0
    mdae-client dot MODEL
    mdae-client svg MODEL > cdg.svg

The model is MEL, or Modelica for .mo/.bmo (or --format). By default it
talks to mdaed at tcp://127.0.0.1:7420 (--server ADDRESS, or $MDAE_SERVER);
--stdio starts ``mdaed --stdio`` (--mdaed PATH) for the one command instead.
Exit status: 0 success, 1 the model has errors, 2 usage, 4 server or I/O
error (the C CLI's convention).
"""

import argparse
import json
import os
import sys
from typing import Dict, List, Optional, Sequence

from . import Client, RpcError, Session


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
    return p


def _read_model(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    with open(path, encoding="utf-8") as f:
        return f.read()


def _summary(path: str, r: Dict[str, object]) -> str:
    lines = ["%s: %s, %s valid modes" % (path, r.get("status"), r.get("validModes"))]
    for d in r.get("diagnostics") or []:  # type: ignore[attr-defined]
        what = d.get("equation") or d.get("variable")
        lines.append("  %s %s when %s" % (d.get("kind"), what, d.get("guard")))
    lines.append("  %d blocks, %d edges" % (len(r.get("blocks") or []),  # type: ignore[arg-type]
                                            len(r.get("edges") or [])))  # type: ignore[arg-type]
    return "\n".join(lines)


def _run(args: argparse.Namespace, client: Client) -> int:
    if args.command == "status":
        print(json.dumps(client.status(), indent=2))
        return 0
    fmt = args.format or ("modelica" if args.model.endswith((".mo", ".bmo")) else "mel")
    defines: Dict[str, int] = {}
    for d in args.defines:
        defines.update(d)
    session: Session = client.open(_read_model(args.model), defines=defines or None, format=fmt)
    if args.command == "analyze":
        r = session.analyze(method=args.method)
        print(json.dumps(r, indent=2) if args.json else _summary(args.model, r))
    elif args.command == "mode":
        print(json.dumps(session.mode(args.mode), indent=2))
    elif args.command == "dot":
        sys.stdout.write(session.dot())
    else:
        sys.stdout.write(session.svg())
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = _parser().parse_args(list(argv) if argv is not None else None)
    try:
        client = (Client.spawn([args.mdaed, "--stdio", "--log-level", "error"]) if args.stdio
                  else Client.connect(args.server))
    except OSError as e:
        print("mdae-client: cannot reach the server: %s" % e, file=sys.stderr)
        return 4
    try:
        with client:
            return _run(args, client)
    except RpcError as e:
        print("mdae-client: %s%s" % (e.message, " (%s)" % e.name if e.name else ""),
              file=sys.stderr)
        data = e.data if isinstance(e.data, dict) else {}
        for m in data.get("messages") or []:
            print(m, file=sys.stderr)
        return 1 if e.name in ("MDAE_E_PARSE", "MDAE_E_MODEL") else 4
    except (OSError, ConnectionError) as e:
        print("mdae-client: %s" % e, file=sys.stderr)
        return 4


if __name__ == "__main__":
    sys.exit(main())
