# mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
"""clients/python/mdae_client.py -- a small client of mdaed (standard library only).

Speaks JSON-RPC 2.0 over newline-delimited JSON on a TCP or Unix socket, or
on the stdin/stdout of a ``mdaed --stdio`` child process. Two lines::

    with mdae_client.Client.connect("tcp://127.0.0.1:7420") as c:
        print(c.open(open("rldc2.mel").read()).analyze()["status"])

Streamed analyses yield their notifications first, then the result::

    for kind, payload in session.analyze_stream():
        print(kind, payload)        # "notification", {...} ... "result", {...}

Errors from the server raise RpcError (code, message, data).
"""

import itertools
import json
import os
import socket
import subprocess

__all__ = ["Client", "Session", "RpcError"]

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
REQUEST_CANCELLED = -32800


class RpcError(Exception):
    """A JSON-RPC error answered by the server."""

    def __init__(self, code, message, data=None):
        super().__init__("%d: %s" % (code, message))
        self.code = code
        self.message = message
        self.data = data

    @property
    def name(self):
        """The mdae error name (``MDAE_E_PARSE``...) when the server gave one."""
        return (self.data or {}).get("name") if isinstance(self.data, dict) else None


class _SocketTransport:
    def __init__(self, sock, timeout):
        self._sock = sock
        self._sock.settimeout(timeout)
        self._buf = b""

    def send(self, data):
        self._sock.sendall(data)

    def readline(self):
        while b"\n" not in self._buf:
            chunk = self._sock.recv(65536)
            if not chunk:
                raise ConnectionError("the server closed the connection")
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        return line

    def close(self):
        self._sock.close()


class _ProcessTransport:
    def __init__(self, argv):
        self._proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def send(self, data):
        self._proc.stdin.write(data)
        self._proc.stdin.flush()

    def readline(self):
        line = self._proc.stdout.readline()
        if not line:
            raise ConnectionError("mdaed --stdio exited")
        return line.rstrip(b"\n")

    def close(self):
        try:
            self._proc.stdin.close()
        except OSError:
            pass
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        self._proc.stdout.close()


class Client:
    """A connection to mdaed. Not thread-safe: one caller at a time."""

    def __init__(self, transport):
        self._t = transport
        self._ids = itertools.count(1)
        self.notifications = []  # notifications received while waiting for others

    @classmethod
    def connect(cls, address="tcp://127.0.0.1:7420", token=None, timeout=60.0):
        """Connect to ``tcp://HOST:PORT``, ``HOST:PORT`` or ``unix://PATH``."""
        if address.startswith("unix://"):
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(timeout)
            sock.connect(address[len("unix://"):])
        else:
            if address.startswith("tcp://"):
                address = address[len("tcp://"):]
            host, _, port = address.rpartition(":")
            sock = socket.create_connection((host.strip("[]"), int(port)), timeout=timeout)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        client = cls(_SocketTransport(sock, timeout))
        if token is None:
            token = os.environ.get("MDAE_TOKEN")
        if token:
            client.call("auth", {"token": token})
        return client

    @classmethod
    def spawn(cls, argv=("mdaed", "--stdio")):
        """Start ``mdaed --stdio`` as a child process and talk over its pipes."""
        return cls(_ProcessTransport(list(argv)))

    def close(self):
        self._t.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _send(self, msg):
        self._t.send(json.dumps(msg, separators=(",", ":")).encode() + b"\n")

    def _read(self):
        return json.loads(self._t.readline())

    def notify(self, method, params=None):
        """Send a notification (no answer)."""
        msg = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        self._send(msg)

    def send_request(self, method, params=None):
        """Send a request without waiting; returns its id (for cancel)."""
        rid = next(self._ids)
        msg = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        self._send(msg)
        return rid

    def cancel(self, rid):
        """Ask the server to cancel request ``rid`` ($/cancelRequest)."""
        self.notify("$/cancelRequest", {"id": rid})

    def stream(self, rid):
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

    def call(self, method, params=None):
        """Call a method and return its result (raises RpcError)."""
        rid = self.send_request(method, params)
        for kind, payload in self.stream(rid):
            if kind == "result":
                return payload
        raise ConnectionError("no result")  # not reached: stream raises or yields

    def status(self):
        return self.call("server/status")

    def open(self, text, defines=None, persist=False, format="mel"):
        """Open a session on a model text, MEL (format="mel") or Modelica
        (format="modelica": Base Modelica or the papers' flat Modelica);
        returns a Session."""
        if format not in ("mel", "modelica"):
            raise ValueError("format must be 'mel' or 'modelica'")
        params = {"text": text, "format": format}
        if defines:
            params["defines"] = dict(defines)
        if persist:
            params["persist"] = True
        result = self.call("session/open", params)
        return Session(self, result["session"], result.get("summary"))


class Session:
    """A session opened on the server (closes with its connection unless
    opened with persist=True)."""

    def __init__(self, client, sid, summary=None):
        self.client = client
        self.id = sid
        self.summary = summary
        self.version = 1

    def edit(self, text=None, edits=None):
        """Replace the text, or apply LSP-style range edits."""
        params = {"session": self.id}
        if text is not None:
            params["text"] = text
        else:
            params["edits"] = list(edits)
        result = self.client.call("session/edit", params)
        self.version = result["version"]
        self.summary = result.get("summary")
        return result

    def analyze(self, since=None, stable_ids=False, reuse=False, method=None):
        """The analysis, exactly as ``mdae analyze --json`` prints it.

        since: a version analysed before (with stable_ids or since): only
        the difference from its result. stable_ids: block ids that stay the
        same across versions. reuse: add {"reuse": {...}}, what the
        session's cache reused (components, seeded equations) and how each
        component was analysed ("parts"). method: "auto" (the server's
        choice per component), "implicit" or "enumeration"; the result is
        the same."""
        params = {"session": self.id}
        if method is not None:
            params["method"] = method
        if since is not None:
            params["since"] = since
        if stable_ids:
            params["stableIds"] = True
        if reuse:
            params["reuse"] = True
        return self.client.call("session/analyze", params)

    def analyze_stream(self):
        """Yield progress notifications, then ("result", analysis)."""
        rid = self.client.send_request("session/analyze",
                                       {"session": self.id, "stream": True})
        return self.client.stream(rid)

    def mode(self, mode):
        """The projection on one mode, e.g. {"g1": True, "g2": False}."""
        return self.client.call("session/mode", {"session": self.id, "mode": mode})

    def dot(self):
        """The conditional dependency graph as Graphviz DOT text."""
        return self.client.call("session/dot", {"session": self.id})

    def svg(self):
        """The same graph laid out by Graphviz in the server, as SVG text."""
        return self.client.call("session/svg", {"session": self.id})

    def close(self):
        return self.client.call("session/close", {"session": self.id})
