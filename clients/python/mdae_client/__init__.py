# mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
"""mdae_client -- a small, typed client of mdaed (standard library only).

Installed with ``pip install ./clients/python`` (clients/python/pyproject.toml),
with the command-line entry point ``mdae-client`` (mdae_client/cli.py).

Speaks JSON-RPC 2.0 over newline-delimited JSON on a TCP or Unix socket, or
on the stdin/stdout of a ``mdaed --stdio`` child process. Two lines::

    with mdae_client.Client.connect("tcp://127.0.0.1:7420") as c:
        print(c.open(open("rldc2.mel").read()).analyze()["status"])

Streamed analyses yield their notifications first, then the result::

    for kind, payload in session.analyze_stream():
        print(kind, payload)        # "notification", {...} ... "result", {...}

Errors from the server raise RpcError (code, message, data).

Sessions belong to their owner (docs/security.md): a session opened on a
socket is this connection's; one opened over HTTP or with persist=True is
reached by the id the server made, which nobody can guess. A name of your
own for such a session (``open(..., session="mine")``) goes with an owner
key, a secret the client sends with every call naming the session: give one
(``Client.connect(..., owner=KEY)``, e.g. ``secrets.token_urlsafe(16)``,
to reach the session again from another process) or let the Client make
one for its own lifetime.

Over HTTP (``Client.connect("http://127.0.0.1:7420")``) each request is a
``POST /rpc`` carrying ``X-Mdae-Session``, so that a proxy in front of several
instances (conf/haproxy.cfg) routes it to the session's instance. A session
whose instance went away (HTTP 502/503/504, or "no such session" after a
restart without persistence) is opened again by the client, with the text it
holds, and the request is retried once: see Session.
"""

import http.client
import itertools
import json
import os
import secrets
import socket
import subprocess
from typing import (Any, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple,
                    Union)

__all__ = ["Client", "Session", "RpcError", "ServerUnavailable", "SessionClosed", "Json"]
__version__ = "0.1.0"

#: A JSON value as the server sends it (objects are dicts).
Json = Any

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
REQUEST_CANCELLED = -32800


class RpcError(Exception):
    """A JSON-RPC error answered by the server."""

    def __init__(self, code: int, message: str, data: Json = None) -> None:
        super().__init__("%d: %s" % (code, message))
        self.code = code
        self.message = message
        self.data = data

    @property
    def name(self) -> Optional[str]:
        """The mdae error name (``MDAE_E_PARSE``...) when the server gave one."""
        return (self.data or {}).get("name") if isinstance(self.data, dict) else None


class ServerUnavailable(ConnectionError):
    """HTTP answered without JSON-RPC (a proxy's 502/503/504: the session's
    instance is gone, or none is up)."""

    def __init__(self, status: int, body: bytes) -> None:
        super().__init__("HTTP %d: %s" % (status, body[:200].decode("utf-8", "replace").strip()))
        self.status = status


class SessionClosed(RuntimeError):
    """A call on a Session after its close(): the client never opens a new
    server session behind the caller's back for a session it closed."""


class _HttpTransport:
    """One POST /rpc per message; the reply's lines (notifications, then the
    answer) are read back one at a time."""

    def __init__(self, host: str, port: int, timeout: float, token: Optional[str]) -> None:
        self._host, self._port, self._timeout, self._token = host, port, timeout, token
        self._lines: List[bytes] = []

    def send(self, data: bytes) -> None:
        msg = json.loads(data)
        params = msg.get("params") if isinstance(msg, dict) else None
        headers = {"Content-Type": "application/json"}
        if isinstance(params, dict) and isinstance(params.get("session"), str):
            headers["X-Mdae-Session"] = params["session"]
        if self._token:
            headers["Authorization"] = "Bearer " + self._token
        conn = http.client.HTTPConnection(self._host, self._port, timeout=self._timeout)
        try:
            conn.request("POST", "/rpc", body=data, headers=headers)
            resp = conn.getresponse()
            body = resp.read()
        finally:
            conn.close()
        if resp.status != 200:
            raise ServerUnavailable(resp.status, body)
        self._lines.extend(line for line in body.split(b"\n") if line.strip())

    def readline(self) -> bytes:
        if not self._lines:
            raise ConnectionError("the server sent no answer")
        return self._lines.pop(0)

    def close(self) -> None:
        self._lines = []


class _SocketTransport:
    def __init__(self, sock: socket.socket, timeout: float) -> None:
        self._sock = sock
        self._sock.settimeout(timeout)
        self._buf = b""

    def send(self, data: bytes) -> None:
        self._sock.sendall(data)

    def readline(self) -> bytes:
        while b"\n" not in self._buf:
            chunk = self._sock.recv(65536)
            if not chunk:
                raise ConnectionError("the server closed the connection")
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        return line

    def close(self) -> None:
        self._sock.close()


class _ProcessTransport:
    def __init__(self, argv: Sequence[str]) -> None:
        self._proc = subprocess.Popen(list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._in = self._proc.stdin
        self._out = self._proc.stdout

    def send(self, data: bytes) -> None:
        self._in.write(data)
        self._in.flush()

    def readline(self) -> bytes:
        line = self._out.readline()
        if not line:
            raise ConnectionError("mdaed --stdio exited")
        return line.rstrip(b"\n")

    def close(self) -> None:
        try:
            self._in.close()
        except OSError:
            pass
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        self._out.close()


class Client:
    """A connection to mdaed. Not thread-safe: one caller at a time."""

    def __init__(self,
                 transport: "Union[_SocketTransport, _ProcessTransport, _HttpTransport]",
                 owner: Optional[str] = None) -> None:
        self._t = transport
        self._ids = itertools.count(1)
        #: the owner key sent with every session this client opens (None:
        #: only with chosen ids of persistent sessions, made on first need)
        self.owner = owner
        self._made_owner: Optional[str] = None
        #: notifications received while waiting for others
        self.notifications: List[Dict[str, Json]] = []

    @classmethod
    def connect(cls, address: str = "tcp://127.0.0.1:7420", token: Optional[str] = None,
                timeout: float = 60.0, owner: Optional[str] = None) -> "Client":
        """Connect to ``tcp://HOST:PORT``, ``HOST:PORT``, ``unix://PATH`` (or
        ``unix:PATH``, as ``mdae --server``) or ``http://HOST:PORT`` (a POST
        /rpc per request, as through a proxy). ValueError for an address of
        none of these forms.
        owner: an owner key (at least 22 of A-Z a-z 0-9 _ -) sent with every
        session opened, so that it counts against this owner's quota and
        needs the key on every call (see the module's documentation)."""
        if token is None:
            token = os.environ.get("MDAE_TOKEN")
        if address.startswith("http://"):
            host, _, port = address[len("http://"):].rstrip("/").rpartition(":")
            return cls(_HttpTransport(host.strip("[]"), int(port), timeout, token), owner)
        if address.startswith("unix:"):
            # unix://PATH, or unix:PATH as `mdae --server` writes it
            path = address[len("unix://"):] if address.startswith("unix://") \
                else address[len("unix:"):]
            if not path:
                raise ValueError("a unix: address needs a path (unix:/run/mdaed.sock)")
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(timeout)
            try:
                sock.connect(path)
            except OSError:
                sock.close()
                raise
        else:
            if address.startswith("tcp://"):
                address = address[len("tcp://"):]
            host, _, port = address.rpartition(":")
            if not host or not port.isdigit():
                raise ValueError("invalid server address %r: expected tcp://HOST:PORT, "
                                 "unix:PATH or http://HOST:PORT" % address)
            sock = socket.create_connection((host.strip("[]"), int(port)), timeout=timeout)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        client = cls(_SocketTransport(sock, timeout), owner)
        if token:
            client.call("auth", {"token": token})
        return client

    @classmethod
    def spawn(cls, argv: Sequence[str] = ("mdaed", "--stdio"),
              owner: Optional[str] = None) -> "Client":
        """Start ``mdaed --stdio`` as a child process and talk over its pipes."""
        return cls(_ProcessTransport(list(argv)), owner)

    def close(self) -> None:
        self._t.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _send(self, msg: Mapping[str, Json]) -> None:
        self._t.send(json.dumps(msg, separators=(",", ":")).encode() + b"\n")

    def _read(self) -> Dict[str, Json]:
        msg = json.loads(self._t.readline())
        if not isinstance(msg, dict):
            raise ConnectionError("the server sent a message that is not an object")
        return msg

    def notify(self, method: str, params: Json = None) -> None:
        """Send a notification (no answer)."""
        msg: Dict[str, Json] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        self._send(msg)

    def send_request(self, method: str, params: Json = None) -> int:
        """Send a request without waiting; returns its id (for cancel)."""
        rid = next(self._ids)
        msg: Dict[str, Json] = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        self._send(msg)
        return rid

    def cancel(self, rid: int) -> None:
        """Ask the server to cancel request ``rid`` ($/cancelRequest)."""
        self.notify("$/cancelRequest", {"id": rid})

    def stream(self, rid: int) -> Iterator[Tuple[str, Json]]:
        """Yield ("notification", msg) for request rid, then ("result", result).

        Raises RpcError if the request fails. Notifications for other
        requests are kept in ``self.notifications``.
        """
        while True:
            msg = self._read()
            if "method" in msg:
                params = msg.get("params") or {}
                if isinstance(params, dict) and params.get("id") == rid:
                    yield "notification", msg
                else:
                    self.notifications.append(msg)
                continue
            if msg.get("id") != rid:
                continue  # an answer to a request nobody waits for any more
            if "error" in msg:
                err = msg["error"]
                raise RpcError(err.get("code"), err.get("message"), err.get("data"))
            yield "result", msg.get("result")
            return

    def call(self, method: str, params: Json = None) -> Json:
        """Call a method and return its result (raises RpcError)."""
        rid = self.send_request(method, params)
        for kind, payload in self.stream(rid):
            if kind == "result":
                return payload
        raise ConnectionError("no result")  # not reached: stream raises or yields

    def status(self) -> Dict[str, Json]:
        """server/status: version, uptime, sessions, workers, memory, limits."""
        result: Dict[str, Json] = self.call("server/status")
        return result

    def auth(self, token: str) -> Json:
        """auth {token}: needed before anything else on a non-loopback listener
        (connect() sends it when given a token or $MDAE_TOKEN)."""
        return self.call("auth", {"token": token})

    def _over_http(self) -> bool:
        return isinstance(self._t, _HttpTransport)

    def open(self, text: str, defines: Optional[Mapping[str, int]] = None, persist: bool = False,
             format: str = "mel", session: Optional[str] = None,
             owner: Optional[str] = None, recover: bool = False) -> "Session":
        """Open a session on a model text, MEL (format="mel") or Modelica
        (format="modelica": Base Modelica or the papers' flat Modelica);
        returns a Session. session: the id to give it (1 to 64 letters,
        digits, '.', '_', '-'; RpcError -32602 when taken by this owner),
        else the server's. A chosen id of a persistent session (persist,
        or over HTTP) goes with an owner key: owner, else the Client's, else
        one the Client makes (secrets.token_urlsafe(16)) and keeps.
        recover: a syntax error leaves out its statement instead of failing
        the open; results then list them in "leftOut" (a model being typed)."""
        if format not in ("mel", "modelica"):
            raise ValueError("format must be 'mel' or 'modelica'")
        key = owner or self.owner
        if key is None and session is not None and (persist or self._over_http()):
            if self._made_owner is None:
                self._made_owner = secrets.token_urlsafe(16)
            key = self._made_owner
        params: Dict[str, Json] = {"text": text, "format": format}
        if defines:
            params["defines"] = dict(defines)
        if persist:
            params["persist"] = True
        if recover:
            params["recover"] = True
        if session is not None:
            params["session"] = session
        if key is not None:
            params["owner"] = key
        result = self.call("session/open", params)
        s = Session(self, result["session"], result.get("summary"), key)
        s._text, s._open_params = text, params
        return s


class Session:
    """A session opened on the server (closes with its connection unless
    opened with persist=True).

    The session keeps the text it was opened or last edited with (whole-text
    edits; range edits forget it). When a request finds the session gone --
    its instance behind a proxy died (ServerUnavailable), or the server
    restarted and did not keep it ("no such session") -- the session is
    opened again with that text, under the same id if the client chose it,
    and the request is sent once more; ``reopened`` counts these. Its id may
    change (the new instance makes one) and its version starts again at 1.
    Streamed analyses are not retried.

    A session is a context manager (``with client.open(text) as s:``) that
    closes it on the way out; after close() every call raises SessionClosed.
    An edit the server applied but could not load (a syntax error: the
    error's data says {"applied": true, "version": N}) still moves the
    session to that version and text, as the server's is, then raises."""

    def __init__(self, client: Client, sid: str, summary: Json = None,
                 owner: Optional[str] = None) -> None:
        self.client = client
        self.id = sid
        #: the owner key sent with every call naming the session, or None
        self.owner = owner
        self.summary = summary
        self.version = 1
        self.reopened = 0
        #: True after close(): every later call raises SessionClosed
        self.closed = False
        self._text: Optional[str] = None
        self._open_params: Dict[str, Json] = {}

    def _params(self, **flags: Json) -> Dict[str, Json]:
        """{"session": id} and each flag given: True and other values
        (not None, not False) under their name."""
        params: Dict[str, Json] = {"session": self.id}
        params.update({k: v for k, v in flags.items() if v is not None and v is not False})
        return self._owned(params)

    def _owned(self, params: Dict[str, Json]) -> Dict[str, Json]:
        """params with the session's owner key, when it has one."""
        return dict(params, owner=self.owner) if self.owner is not None else params

    @staticmethod
    def _gone(e: Exception) -> bool:
        if isinstance(e, ServerUnavailable):
            return e.status in (502, 503, 504)
        return isinstance(e, RpcError) and e.name == "MDAE_E_STATE" and \
            "no such session" in e.message

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc: object) -> None:
        if self.closed:
            return
        try:
            self.close()
        except (RpcError, OSError, ConnectionError):
            if exc[0] is None:  # else the exception under way says more
                raise

    def _check_open(self) -> None:
        if self.closed:
            raise SessionClosed("session %s is closed" % self.id)

    def _call(self, method: str, params: Dict[str, Json]) -> Json:
        self._check_open()
        params = self._owned(params)
        try:
            return self.client.call(method, params)
        except (RpcError, ServerUnavailable) as e:
            if self._text is None or not self._gone(e):
                raise
        again = dict(self._open_params, text=self._text)
        result = self.client.call("session/open", again)
        self.id, self.version = result["session"], 1
        self.summary = result.get("summary")
        self.reopened += 1
        return self.client.call(method, dict(params, session=self.id))

    def edit(self, text: Optional[str] = None,
             edits: Optional[Iterable[Mapping[str, Json]]] = None) -> Dict[str, Json]:
        """Replace the text, or apply LSP-style range edits."""
        params: Dict[str, Json] = {"session": self.id}
        if text is not None:
            params["text"] = text
        elif edits is not None:
            params["edits"] = list(edits)
        else:
            raise ValueError("give text or edits")
        try:
            result: Dict[str, Json] = self._call("session/edit", params)
        except RpcError as e:
            data = e.data if isinstance(e.data, dict) else {}
            if data.get("applied") is True and isinstance(data.get("version"), int):
                # the server keeps the text it could not load (an editor's
                # half-typed line): so does the session, then it says why
                self.version = data["version"]
                self.summary = None
                self._text = text
            raise
        self.version = result["version"]
        self.summary = result.get("summary")
        self._text = text  # None after range edits: the text is the server's
        return result

    def analyze(self, since: Optional[int] = None, stable_ids: bool = False, reuse: bool = False,
                method: Optional[str] = None, modechanges: bool = False,
                families: bool = False) -> Dict[str, Json]:
        """The analysis, exactly as ``mdae analyze --json`` prints it.

        since: a version analysed before (with stable_ids or since): only
        the difference from its result. stable_ids: block ids that stay the
        same across versions. reuse: add {"reuse": {...}}, what the
        session's cache reused (components, seeded equations) and how each
        component was analysed ("parts"). method: "auto" (the server's
        choice per component), "implicit" or "enumeration"; the result is
        the same. modechanges: add {"modechanges": {...}}, every mode change
        of a small model summed up as modechanges() gives it (method,
        validModes, pairs, counts, classes); past the enumeration's limits,
        every instant of every change on BDDs as modechanges(first=True,
        instants=True) gives it, without "erasures", with
        "enumerationSkipped": why; {"skipped": why} for a model without
        mode variables or that both methods refuse. families: the block
        families ("blockCount", "families", "familyEdges") in place of
        "blocks" and "edges", as ``mdae analyze --json --families``
        (docs/block_families.md); not with since, stable_ids or
        modechanges."""
        params = self._params(modechanges=modechanges, method=method, since=since,
                              stableIds=stable_ids, reuse=reuse, families=families)
        result: Dict[str, Json] = self._call("session/analyze", params)
        return result

    def analyze_stream(self, modechanges: bool = False) -> Iterator[Tuple[str, Json]]:
        """Yield progress notifications, then ("result", analysis). With
        modechanges, also one analysis/modechange notification per mode
        change (after the analysis's own), and the summary in the result
        (see analyze)."""
        self._check_open()
        params = self._params(stream=True, modechanges=modechanges)
        rid = self.client.send_request("session/analyze", params)
        return self.client.stream(rid)

    def mode(self, mode: Mapping[str, bool]) -> Dict[str, Json]:
        """The projection on one mode, e.g. {"g1": True, "g2": False}."""
        result: Dict[str, Json] = self._call("session/mode",
                                             {"session": self.id, "mode": dict(mode)})
        return result

    def modechange(self, from_mode: Mapping[str, bool],
                   to_mode: Mapping[str, bool]) -> Dict[str, Json]:
        """The structural analysis of one mode change (restart instants,
        erased equations, status), e.g. modechange({"g": False}, {"g": True});
        the same JSON as ``mdae modechange --json``."""
        result: Dict[str, Json] = self._call(
            "session/modechange",
            {"session": self.id, "from": dict(from_mode) if isinstance(from_mode, Mapping)
             else from_mode, "to": dict(to_mode) if isinstance(to_mode, Mapping) else to_mode})
        return result

    def modechanges(self, first: bool = False, erasures: bool = False,
                    instants: bool = False) -> Dict[str, Json]:
        """Every change between two valid modes of a small model (by
        enumeration: result["method"] says so). first: the first instant of
        every change on BDDs instead, for models of any size (method "bdd";
        classes as formulas over g and g'); erasures: with which equations
        each first instant erases; instants: with every later instant
        (result["changes"]: continuous, reset, rejected). erasures and
        instants go with first."""
        params = self._params(first=first, erasures=erasures, instants=instants)
        result: Dict[str, Json] = self._call("session/modechanges", params)
        return result

    def approx(self) -> Dict[str, Json]:
        """What a single-mode tool (OpenModelica, Dymola) makes of the model,
        compared with the exact all-modes analysis, as ``mdae approx --json``
        prints it: "accepted", the approximate "equations", "variables" and
        "blocks", "findings" (kind "pivot", "offsets" or "singular", the
        equation and unknown, the pivot, "modes" {formula, cubes}, "count",
        "where", "message"), "wrong_modes" {formula, cubes, count},
        "valid_modes", and the session's "version" it was computed for."""
        result: Dict[str, Json] = self._call("session/approx", {"session": self.id})
        return result

    def rimis(self, guard: bool = True) -> Dict[str, Json]:
        """The model rewritten as one flat Modelica model that single-mode
        tools (OpenModelica, Dymola) simulate correctly, its Reduced-Index
        Mode-Independent Structure, as ``mdae rimis --json`` prints it:
        "name", "text" (the Modelica model), "lines", "replicates",
        "multiplexers", "reinits", "conditions" [{id, text, modes}],
        "variables" [{name, kind, source, order, condition, block}],
        "groups" [{block, condition, lines}], "warnings", and the session's
        "version" it was computed for. guard=False prints the block
        equations unguarded (``--no-guard``). A model it cannot represent (a
        singular mode, an impulsive mode change) raises RpcError
        (MDAE_E_MODEL) whose data has the located "diagnostics"."""
        result: Dict[str, Json] = self._call("session/rimis",
                                             {"session": self.id, "guard": guard})
        return result

    def dot(self) -> str:
        """The conditional dependency graph as Graphviz DOT text."""
        return str(self._call("session/dot", {"session": self.id}))

    def svg(self) -> str:
        """The same graph laid out by Graphviz in the server, as SVG text."""
        return str(self._call("session/svg", {"session": self.id}))

    def close(self) -> bool:
        """Close the session on the server (session/close). Later calls
        raise SessionClosed; closing again is a no-op returning False."""
        if self.closed:
            return False
        self.closed = True
        return bool(self.client.call("session/close", self._owned({"session": self.id})))
