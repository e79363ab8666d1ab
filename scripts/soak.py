#!/usr/bin/env python3
# scripts/soak.py -- `make soak`: mdaed under sustained mixed load with faults
# (issue 17). Loopback only; bounded in time.
#
# Starts its own mdaed, then for --seconds runs --clients concurrent clients
# over newline-delimited JSON on TCP, LSP (Content-Length) framing and HTTP
# POST /rpc, each doing random session/open, edit, analyze (streamed or
# not), mode, $/cancelRequest and close over the corpus models (and random
# edits of them), with bad input mixed in: malformed JSON, an oversized
# message, invalid params, models with errors, and clients that send
# requests and stop reading. A chaos task SIGKILLs a random worker every
# few seconds. It asserts, and prints as its closing lines:
#   - every request answered (a result or a JSON-RPC error): 0 lost;
#   - mdaed never died, and exits 0 on SIGTERM at the end;
#   - session/analyze of a model text gives the same JSON as `mdae analyze
#     --json` of that text;
#   - the router's resident memory grows by less than 10 % after the warm-up
#     (median over a quarter of the run from minute 2, or from the middle of
#     a shorter run, against the median over the last quarter);
#   - its open descriptors are back to where they started once the clients
#     are gone and idle workers stopped;
# and prints p50/p99 latency per method.
#
# Attackers (issue 37 item 5, docs/security.md "Connections and their
# bounds"): from ATTACK_AT (a third of the run, at most 60 s in) to the end,
# slowloris clients dribble HTTP headers, idle clients connect and say
# nothing, stalled clients send part of a large message and stop, and one
# client opens sessions without end to fill the session table (a per-owner
# quota answers it -32005, MDAE_E_LIMIT: counted as the expected outcome).
# The server runs with short bounds (ATTACK_LIMITS below). It also asserts:
#   - every slowloris, idle and stalled connection is closed by the server
#     within its bound (plus SLACK seconds);
#   - the normal clients' p99 latency with the attackers is at most 3 times
#     their p99 before them (after a warm-up), and none of their requests
#     is lost;
#   - no normal client's session/open is refused for a full session table;
#   - the router's resident memory under attack stays within MEMORY_BOUND_KB
#     plus limits.partial_bytes of its median before the attack.
import argparse
import asyncio
import glob
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAX_MESSAGE = 1 << 20
# The bounds the soak's server runs with (short, so that the attackers are
# cut often within a 3-minute run).
ATTACK_LIMITS = {"header_timeout_ms": 2000, "body_timeout_ms": 4000, "body_min_rate": 65536,
                 "idle_ms": 10000, "http_idle_ms": 5000, "partial_bytes": 4 << 20}
SLACK = 3.0                # seconds past a bound before an attacker counts as kept
STALL_BYTES = 400 * 1000   # a stalled partial message (a 512 KiB buffer in the router)
MEMORY_BOUND_KB = 8 * 1024  # router growth under attack, beyond partial_bytes
P99_FACTOR = 3.0


class Stats:
    def __init__(self):
        self.timed = []  # (monotonic time answered, seconds) of every normal request
        self.sent = 0
        self.answered = 0
        self.lost = []
        self.errors = {}
        self.latency = {}
        self.mismatches = []
        self.checked = 0
        self.table_full = []  # normal clients' opens refused (-32005)

    def done(self, method, seconds, reply):
        self.answered += 1
        self.latency.setdefault(method, []).append(seconds)
        self.timed.append((time.monotonic(), seconds))
        if reply is not None and "error" in reply:
            code = str(reply["error"].get("code"))
            self.errors[code] = self.errors.get(code, 0) + 1


def models():
    files = sorted(glob.glob(os.path.join(ROOT, "tests/models/*.mel")) +
                   glob.glob(os.path.join(ROOT, "tests/models/*.mo")) +
                   glob.glob(os.path.join(ROOT, "tests/models/*.bmo")))
    out = []
    for f in files:
        with open(f, encoding="utf-8") as fh:
            text = fh.read()
        fmt = "modelica" if f.endswith((".mo", ".bmo")) else "mel"
        out.append((os.path.basename(f), fmt, text))
    return out


def mutate(text, fmt, rng):
    """A random edit that keeps the model's structure: a comment line."""
    mark = "//" if fmt == "mel" else "//"
    lines = text.split("\n")
    k = rng.randrange(len(lines) + 1)
    lines.insert(k, "%s soak %d" % (mark, rng.randrange(10 ** 6)))
    return "\n".join(lines)


class CliReference:
    """mdae analyze --json of a text, cached by text."""

    def __init__(self, mdae, tmp):
        self.mdae, self.tmp, self.cache = mdae, tmp, {}

    def analysis(self, text, fmt):
        key = (text, fmt)
        if key not in self.cache:  # called from several threads: a file each
            fd, path = tempfile.mkstemp(dir=self.tmp,
                                        suffix=".mo" if fmt == "modelica" else ".mel")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
            p = subprocess.run([self.mdae, "analyze", "--json", path], capture_output=True,
                               text=True, timeout=120)
            os.unlink(path)
            self.cache[key] = json.loads(p.stdout) if p.returncode == 0 else None
        return self.cache[key]


# ---- transports: send one request, read the reply with its id -------------------

class Conn:
    def __init__(self, kind, port):
        self.kind, self.port = kind, port
        self.reader = self.writer = None

    async def open(self):
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port,
                                                                   limit=1 << 26)

    def close(self):
        if self.writer is not None:
            self.writer.close()
        self.writer = None

    async def send(self, obj_or_bytes):
        body = obj_or_bytes if isinstance(obj_or_bytes, bytes) else json.dumps(obj_or_bytes).encode()
        if self.kind == "ndjson":
            self.writer.write(body + b"\n")
        elif self.kind == "lsp":
            self.writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        await self.writer.drain()

    async def read_message(self):
        if self.kind == "ndjson":
            line = await self.reader.readline()
            if not line:
                raise ConnectionError("closed")
            return json.loads(line)
        length = None
        while True:
            line = await self.reader.readline()
            if not line:
                raise ConnectionError("closed")
            if line in (b"\r\n", b"\n"):
                break
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        return json.loads(await self.reader.readexactly(length))

    async def call(self, msg):
        """The reply with msg's id (notifications skipped)."""
        await self.send(msg)
        while True:
            m = await self.read_message()
            if "id" in m and "method" not in m and m["id"] == msg["id"]:
                return m


async def http_call(port, msg_bytes):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"POST /rpc HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
                 b"Connection: close\r\nContent-Length: %d\r\n\r\n" % (port, len(msg_bytes)) +
                 msg_bytes)
    await writer.drain()
    data = await reader.read()
    writer.close()
    head, _, body = data.partition(b"\r\n\r\n")
    status = int(head.split(b" ")[1]) if head.startswith(b"HTTP/") else 0
    if b"chunked" in head.lower():
        out, rest = b"", body
        while rest:
            size, _, rest = rest.partition(b"\r\n")
            n = int(size, 16)
            if n == 0:
                break
            out, rest = out + rest[:n], rest[n + 2:]
        body = out
    if status != 200:  # refused by HTTP itself (413, 400, ...): an answer too
        return status, {"error": {"code": "HTTP %d" % status}}
    lines = [l for l in body.split(b"\n") if l.strip()]
    return status, (json.loads(lines[-1]) if lines else None)


# ---- one client ------------------------------------------------------------------------

class Client:
    def __init__(self, n, args, stats, corpus, ref, deadline):
        self.n, self.args, self.stats, self.corpus, self.ref = n, args, stats, corpus, ref
        self.deadline = deadline
        self.rng = random.Random(args.seed * 1000 + n)
        self.kind = ("ndjson", "ndjson", "ndjson", "lsp", "http")[n % 5]
        self.conn = None
        self.sessions = {}  # id -> (text, fmt)
        self.next_id = 1

    def msg(self, method, params):
        self.next_id += 1
        return {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}

    async def request(self, method, params, raw=None):
        m = self.msg(method, params)
        payload = raw if raw is not None else json.dumps(m).encode()
        self.stats.sent += 1
        t0 = time.monotonic()
        try:
            if self.kind == "http":
                status, reply = await asyncio.wait_for(http_call(self.args.port, payload),
                                                       self.args.request_timeout)
                if reply is None:
                    raise ConnectionError("HTTP %d without a reply" % status)
            else:
                if self.conn is None:
                    self.conn = Conn(self.kind, self.args.port)
                    await self.conn.open()
                    self.sessions.clear()  # they went with the previous connection
                if raw is not None:
                    await self.conn.send(raw)
                    reply = await asyncio.wait_for(self.read_error(), self.args.request_timeout)
                    if method == "(oversized)":
                        self.reset()  # the server says why, then closes
                else:
                    reply = await asyncio.wait_for(self.conn.call(m), self.args.request_timeout)
        except (asyncio.TimeoutError, ConnectionError, OSError, json.JSONDecodeError,
                asyncio.IncompleteReadError, ValueError) as e:
            if raw is not None and isinstance(e, (ConnectionError, asyncio.IncompleteReadError)):
                # an oversized message: the error, then the connection closes
                self.stats.done(method, time.monotonic() - t0, None)
                self.reset()
                return None
            self.stats.lost.append("%s %s (client %d, %s): %r" % (method, m["id"], self.n,
                                                                  self.kind, e))
            self.reset()
            return None
        self.stats.done(method, time.monotonic() - t0, reply)
        return reply

    async def read_error(self):
        while True:
            m = await self.conn.read_message()
            if "error" in m:
                return m

    def reset(self):
        if self.conn is not None:
            self.conn.close()
        self.conn = None
        if self.kind != "http":
            self.sessions.clear()

    async def op_open(self):
        name, fmt, text = self.rng.choice(self.corpus)
        if self.rng.random() < 0.3:
            text = mutate(text, fmt, self.rng)
        params = {"text": text, "format": fmt}
        r = await self.request("session/open", params)
        if r and "result" in r:
            self.sessions[r["result"]["session"]] = (text, fmt)
        elif r and r.get("error", {}).get("code") == -32005:
            self.stats.table_full.append("client %d: %s" % (self.n, r["error"].get("message")))

    async def op_edit(self, sid):
        text, fmt = self.sessions[sid]
        text = mutate(text, fmt, self.rng)
        r = await self.request("session/edit", {"session": sid, "text": text})
        if r and "result" in r:
            self.sessions[sid] = (text, fmt)
        elif r and "error" in r:
            self.sessions.pop(sid, None)

    async def op_analyze(self, sid):
        stream = self.rng.random() < 0.3
        text, fmt = self.sessions[sid]
        r = await self.request("session/analyze", {"session": sid, "stream": stream})
        if r and "result" in r and self.rng.random() < self.args.check_ratio:
            want = await asyncio.get_running_loop().run_in_executor(
                None, self.ref.analysis, text, fmt)
            self.stats.checked += 1
            if want is not None and want != r["result"]:
                keys = sorted(k for k in set(want) | set(r["result"])
                              if want.get(k) != r["result"].get(k))
                self.stats.mismatches.append("session %s (client %d): %s differ; %s" %
                                             (sid, self.n, ", ".join(keys),
                                              json.dumps(r["result"].get(keys[0]))[:300]))
        elif r and "error" in r and r["error"].get("code") == -32012:
            self.sessions.pop(sid, None)

    async def op_mode(self, sid):
        await self.request("session/mode", {"session": sid, "mode": {}})

    async def op_cancel(self, sid):
        if self.kind == "http":
            return await self.op_analyze(sid)
        m = self.msg("session/analyze", {"session": sid})
        self.stats.sent += 1
        t0 = time.monotonic()
        try:
            await self.conn.send(m)
            await self.conn.send({"jsonrpc": "2.0", "method": "$/cancelRequest",
                                  "params": {"id": m["id"]}})
            while True:
                r = await asyncio.wait_for(self.conn.read_message(), self.args.request_timeout)
                if r.get("id") == m["id"] and "method" not in r:
                    break
            self.stats.done("session/analyze+cancel", time.monotonic() - t0, r)
        except (asyncio.TimeoutError, ConnectionError, OSError, asyncio.IncompleteReadError) as e:
            self.stats.lost.append("cancelled analyze %s (client %d): %r" % (m["id"], self.n, e))
            self.reset()

    async def op_close(self, sid):
        r = await self.request("session/close", {"session": sid})
        self.sessions.pop(sid, None)
        return r

    async def op_bad(self):
        kind = self.rng.randrange(4)
        if kind == 0:
            await self.request("(malformed)", None, raw=b'{"jsonrpc":"2.0","id":1,"method":')
        elif kind == 1:
            await self.request("session/analyze", {"session": 42})
        elif kind == 2:
            name, fmt, text = self.rng.choice(self.corpus)
            await self.request("session/open", {"text": text[: len(text) // 2] + " @@ ;",
                                                "format": fmt})
        elif self.rng.random() < 0.2:
            big = b'{"jsonrpc":"2.0","id":1,"method":"session/open","params":{"text":"' + \
                b"x" * (MAX_MESSAGE + 10) + b'"}}'
            await self.request("(oversized)", None, raw=big)

    async def run(self):
        # Each client holds a steady number of sessions (opened first, then
        # churned: a close is followed by an open), so that the server's
        # load is the same from the first half of the run to its end and
        # its memory can be compared across them.
        target = 2 + self.n % 3
        while time.monotonic() < self.deadline:
            sids = list(self.sessions)
            p = self.rng.random()
            if len(sids) < target:
                await self.op_open()
            elif p < 0.20:
                await self.op_edit(self.rng.choice(sids))
            elif p < 0.52:
                await self.op_analyze(self.rng.choice(sids))
            elif p < 0.67:
                await self.op_mode(self.rng.choice(sids))
            elif p < 0.77 and self.conn is not None:
                await self.op_cancel(self.rng.choice(sids))
            elif p < 0.90:
                await self.op_close(self.rng.choice(sids))  # reopened next turn
            else:
                await self.op_bad()
            await asyncio.sleep(self.rng.random() * 0.05)
        for sid in list(self.sessions):
            await self.op_close(sid)
        self.reset()


async def stalled_reader(args, deadline, rng):
    """Clients that send requests and stop reading, then go away."""
    _, fmt, text = max(models(), key=lambda m: len(m[2]))
    while time.monotonic() < deadline:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", args.port)
            writer.write((json.dumps({"jsonrpc": "2.0", "id": 1, "method": "session/open",
                                      "params": {"text": text, "format": fmt}}) + "\n").encode())
            for k in range(50):
                writer.write((json.dumps({"jsonrpc": "2.0", "id": 2 + k,
                                          "method": "server/status"}) + "\n").encode())
            await asyncio.sleep(3 + rng.random() * 3)
            writer.close()
        except OSError:
            pass
        await asyncio.sleep(1)


# ---- attackers (issue 37 item 5) -------------------------------------------------------

class Attack:
    """What the attackers saw: per kind, connections cut by the server and
    how long each lived; connections the server kept past their bound."""

    def __init__(self):
        self.cut = {}    # kind -> [seconds from the attack's start to the server's close]
        self.told = {}   # kind -> how many were told why (408, a JSON-RPC error)
        self.kept = []   # "kind: lived N s, bound B s"
        self.filler_opened = 0
        self.filler_refused = 0   # -32005: the per-owner quota (expected)
        self.filler_other = {}    # any other answer, by code

    def never_cut(self, kind, lived, bound):
        """Still open at the end of the run."""
        if lived > bound + SLACK:
            self.kept.append("%s: still open after %.1f s, bound %.1f s" % (kind, lived, bound))

    def record(self, kind, lived, bound, told):
        self.cut.setdefault(kind, []).append(lived)
        if told:
            self.told[kind] = self.told.get(kind, 0) + 1
        if lived > bound + SLACK:
            self.kept.append("%s: lived %.1f s, bound %.1f s" % (kind, lived, bound))


async def wait_closed(reader, until):
    """Read until the server closes (True, with what came) or `until`."""
    got = b""
    while time.monotonic() < until:
        try:
            chunk = await asyncio.wait_for(reader.read(65536), max(0.05, until - time.monotonic()))
        except asyncio.TimeoutError:
            break
        except (ConnectionError, OSError):
            return True, got
        if not chunk:
            return True, got
        got += chunk
    return False, got


async def connections(port, until):
    """Connections to port, the next one when the caller is done with the
    last, until `until`; a refused connect is tried again half a second
    later."""
    while time.monotonic() < until:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.5)
            continue
        yield reader, writer


async def slowloris(port, deadline, attack, rng):
    """HTTP headers, one line every half second, never the blank line."""
    bound = ATTACK_LIMITS["header_timeout_ms"] / 1000
    async for reader, writer in connections(port, deadline - bound - SLACK):
        t0 = time.monotonic()
        writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        closed, got = False, b""
        while not closed and time.monotonic() < deadline:
            try:
                writer.write(b"X-Slow-%d: 1\r\n" % rng.randrange(10 ** 6))
                await writer.drain()
            except (ConnectionError, OSError):
                closed = True
                break
            closed, more = await wait_closed(reader, time.monotonic() + 0.5)
            got += more
        writer.close()
        if closed:
            attack.record("slowloris", time.monotonic() - t0, bound, b" 408 " in got)
        else:
            attack.never_cut("slowloris", time.monotonic() - t0, bound)


async def idler(port, deadline, attack):
    """Connect and say nothing."""
    bound = ATTACK_LIMITS["idle_ms"] / 1000
    async for reader, writer in connections(port, deadline - bound - SLACK):
        t0 = time.monotonic()
        closed, _ = await wait_closed(reader, deadline)
        writer.close()
        if closed:
            attack.record("idle", time.monotonic() - t0, bound, False)
        else:
            attack.never_cut("idle", time.monotonic() - t0, bound)


async def staller(port, deadline, attack):
    """Part of a large NDJSON message, then nothing."""
    bound = (ATTACK_LIMITS["body_timeout_ms"] + STALL_BYTES * 1000 /
             ATTACK_LIMITS["body_min_rate"]) / 1000
    head = b'{"jsonrpc":"2.0","id":1,"method":"session/open","params":{"text":"'
    while time.monotonic() < deadline - bound - SLACK:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            t0 = time.monotonic()
            writer.write(head + b"x" * (STALL_BYTES - len(head)))
            await writer.drain()
        except OSError:
            await asyncio.sleep(0.5)
            continue
        closed, got = await wait_closed(reader, deadline)
        writer.close()
        if closed:
            attack.record("stalled", time.monotonic() - t0, bound, b'"error"' in got)
        else:
            attack.never_cut("stalled", time.monotonic() - t0, bound)
        await asyncio.sleep(0.5)  # those the budget refuses at once: not a busy loop


async def filler(port, deadline, attack):
    """One connection opening sessions as fast as it is answered, sixteen at
    a time in a batch (the issue saw 1,024 opens in 19 s lock everyone out):
    its quotas (sessions per owner, opens per second) stop it with -32005
    while the normal clients keep opening theirs."""
    conn = Conn("ndjson", port)
    n = 0
    while time.monotonic() < deadline - 1:
        batch = []
        for _ in range(16):
            n += 1
            batch.append({"jsonrpc": "2.0", "id": n, "method": "session/open",
                          "params": {"text": "x : real;\ne : equation der(x) = %d;\n" % n}})
        try:
            if conn.writer is None:
                await conn.open()
            await conn.send(batch)
            replies = None
            while not isinstance(replies, list):
                replies = await asyncio.wait_for(conn.read_message(),
                                                 max(1, deadline - time.monotonic()))
        except (asyncio.TimeoutError, ConnectionError, OSError, asyncio.IncompleteReadError):
            conn.close()
            await asyncio.sleep(1)
            continue
        for r in replies:
            if "result" in r:
                attack.filler_opened += 1
            elif r.get("error", {}).get("code") == -32005:
                attack.filler_refused += 1
            else:
                code = str(r.get("error", {}).get("code"))
                attack.filler_other[code] = attack.filler_other.get(code, 0) + 1
        await asyncio.sleep(0.05)
    conn.close()


async def attackers(args, start, deadline, attack, rng):
    await asyncio.sleep(max(0, start - time.monotonic()))
    tasks = [slowloris(args.port, deadline, attack, random.Random(rng.random()))
             for _ in range(20)]
    tasks += [idler(args.port, deadline, attack) for _ in range(50)]
    tasks += [staller(args.port, deadline, attack) for _ in range(12)]
    tasks.append(filler(args.port, deadline, attack))
    await asyncio.gather(*tasks)


def children(pid):
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as fh:
            return [int(x) for x in fh.read().split()]
    except OSError:
        return []


async def chaos(pid, deadline, rng, killed):
    while time.monotonic() < deadline:
        await asyncio.sleep(2 + rng.random() * 4)
        kids = children(pid)
        if kids:
            victim = rng.choice(kids)
            try:
                os.kill(victim, signal.SIGKILL)
                killed.append(victim)
            except OSError:
                pass


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def fds(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


async def monitor(pid, deadline, samples):
    while time.monotonic() < deadline:
        samples.append((time.monotonic(), rss_kb(pid), fds(pid)))
        await asyncio.sleep(2)


def start_server(args, tmp):
    conf = os.path.join(tmp, "mdaed.json")
    port_file = os.path.join(tmp, "port")
    with open(conf, "w") as fh:
        json.dump({"listen": {"tcp": "127.0.0.1:0", "unix": None}, "log_level": "warn",
                   "state_dir": "none",
                   "limits": dict({"max_message_bytes": MAX_MESSAGE, "max_sessions": 4096,
                                   "max_workers": args.workers, "worker_idle_ms": 3000,
                                   "request_timeout_ms": 60000, "write_queue_bytes": 8 << 20},
                                  **ATTACK_LIMITS)},
                  fh)
    log = open(os.path.join(tmp, "mdaed.log"), "w")
    proc = subprocess.Popen([args.mdaed, "--config", conf, "--port-file", port_file],
                            stdout=subprocess.DEVNULL, stderr=log)
    for _ in range(500):
        if os.path.exists(port_file):
            with open(port_file) as fh:
                txt = fh.read().strip()
            if txt:
                return proc, int(txt)
        if proc.poll() is not None:
            sys.exit("soak: mdaed exited at startup")
        time.sleep(0.02)
    sys.exit("soak: mdaed did not start")


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


async def main_async(args, proc, ref):
    stats = Stats()
    corpus = models()
    t0 = time.monotonic()
    deadline = t0 + args.seconds
    rng = random.Random(args.seed)
    killed, samples = [], []
    # One connection first: libuv opens its reserve descriptor (loop's
    # emfile_fd) with the first stream, which is a client's since mdaed
    # accepts itself (issue 37).
    first = Conn("ndjson", args.port)
    await first.open()
    await first.call({"jsonrpc": "2.0", "id": 1, "method": "server/status"})
    first.close()
    await asyncio.sleep(0.2)
    start_fds = fds(proc.pid)
    clients = [Client(n, args, stats, corpus, ref, deadline) for n in range(args.clients)]
    tasks = [asyncio.create_task(c.run()) for c in clients]
    extra = [asyncio.create_task(stalled_reader(args, deadline, rng)) for _ in range(3)]
    extra.append(asyncio.create_task(chaos(proc.pid, deadline, rng, killed)))
    extra.append(asyncio.create_task(monitor(proc.pid, deadline, samples)))
    attack = Attack()
    attack_at = t0 + min(args.seconds / 3, 60)
    extra.append(asyncio.create_task(attackers(args, attack_at, deadline, attack,
                                               random.Random(args.seed + 7))))
    await asyncio.gather(*tasks, *extra)
    # Idle workers stop after worker_idle_ms; then the descriptors are back.
    end_fds = None
    for _ in range(40):
        await asyncio.sleep(0.5)
        end_fds = fds(proc.pid)
        if end_fds <= start_fds and not children(proc.pid):
            break
    return (stats, killed, samples, start_fds, end_fds, time.monotonic() - t0, attack, t0,
            attack_at)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mdaed", default=os.path.join(ROOT, "build/server/mdaed"))
    ap.add_argument("--mdae", default=os.path.join(ROOT, "build/clients/mdae"))
    ap.add_argument("--seconds", type=float, default=600)
    ap.add_argument("--clients", type=int, default=200)
    ap.add_argument("--workers", type=int, default=16)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--check-ratio", type=float, default=0.2)
    ap.add_argument("--request-timeout", type=float, default=120)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="mdae-soak-")
    proc, args.port = start_server(args, tmp)
    ref = CliReference(args.mdae, tmp)
    print("soak: %d clients for %.0f s against mdaed %d (port %d), seed %d" %
          (args.clients, args.seconds, proc.pid, args.port, args.seed), flush=True)
    (stats, killed, samples, start_fds, end_fds, took, attack, t0,
     attack_at) = asyncio.run(main_async(args, proc, ref))
    alive = proc.poll() is None
    if alive:
        proc.send_signal(signal.SIGTERM)
        try:
            exit_code = proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            exit_code = "hung"
    else:
        exit_code = proc.returncode
    # Memory: the median resident size over a window after the warm-up
    # (from minute 2, or the middle of a shorter run, for a quarter of the
    # run) against the median over the run's last quarter. Medians: single
    # samples swing by 10 % with the requests in flight at that instant.
    t_first, t_last = samples[0][0], samples[-1][0]
    quarter = (t_last - t_first) / 4
    base_t = t_first + min(120, (t_last - t_first) / 2)
    base_w = [kb for t, kb, _ in samples if base_t <= t < base_t + quarter]
    end_w = [kb for t, kb, _ in samples if t >= t_last - quarter]
    base_kb = statistics.median(base_w) if base_w else 0
    end_kb = statistics.median(end_w) if end_w else 0
    growth = (end_kb - base_kb) / base_kb * 100 if base_kb else 0.0
    print("\nlatency per method (seconds):")
    for method in sorted(stats.latency):
        xs = stats.latency[method]
        print("  %-24s n=%6d  p50 %.4f  p99 %.4f  max %.3f" %
              (method, len(xs), pct(xs, 0.5), pct(xs, 0.99), max(xs)))
    print("errors by code: %s" % json.dumps(stats.errors, sort_keys=True))
    step = max(1, len(samples) // 12)
    print("router memory (kB) over time: %s" %
          " ".join("%.0fs:%d" % (t - samples[0][0], kb) for t, kb, _ in samples[::step]))
    print("workers killed by the chaos task: %d" % len(killed))
    # Before and with the attackers: the normal clients' latency after a
    # warm-up (the first opens queue for workers), and the router's memory.
    warm = t0 + min(15, args.seconds / 10)
    before = [x for t, x in stats.timed if warm <= t < attack_at]
    during = [x for t, x in stats.timed if t >= attack_at + 5]
    mem_before = [kb for t, kb, _ in samples if warm <= t < attack_at]
    mem_during = [kb for t, kb, _ in samples if t >= attack_at + 5]
    mb_kb = statistics.median(mem_before) if mem_before else 0
    md_kb = max(mem_during) if mem_during else 0
    print("normal clients before the attackers: n=%d p50 %.4f p99 %.4f" %
          (len(before), pct(before, 0.5) if before else 0, pct(before, 0.99) if before else 0))
    print("normal clients with the attackers:   n=%d p50 %.4f p99 %.4f" %
          (len(during), pct(during, 0.5) if during else 0, pct(during, 0.99) if during else 0))
    for kind in ("slowloris", "idle", "stalled"):
        xs = attack.cut.get(kind, [])
        print("attackers %-9s cut %4d times, told why %4d, lived median %.1f s max %.1f s" %
              (kind, len(xs), attack.told.get(kind, 0), statistics.median(xs) if xs else 0,
               max(xs) if xs else 0))
    print("session-table filler: %d opened, %d refused -32005 (quota), other answers %s" %
          (attack.filler_opened, attack.filler_refused, json.dumps(attack.filler_other)))
    print("router memory before the attackers (median) %d kB, with them (max) %d kB" %
          (mb_kb, md_kb))
    for line in attack.kept[:10]:
        print("  kept past its bound: " + line)
    for line in stats.table_full[:5]:
        print("  normal open refused: " + line)
    for line in stats.lost[:10]:
        print("  lost: " + line)
    for line in stats.mismatches[:10]:
        print("  differs from the CLI: " + line)
    ok = True

    def verdict(cond, text):
        nonlocal ok
        ok = ok and cond
        print("%s %s" % ("ok  " if cond else "FAIL", text))
    print()
    verdict(not stats.lost, "requests: %d sent, %d answered, %d lost in %.0f s" %
            (stats.sent, stats.answered, len(stats.lost), took))
    verdict(alive and exit_code == 0, "mdaed alive to the end, exit status on SIGTERM: %s" %
            (exit_code if alive else "died (%s)" % exit_code))
    verdict(not stats.mismatches and stats.checked > 0,
            "analyses compared with the CLI's: %d, differing: %d" %
            (stats.checked, len(stats.mismatches)))
    verdict(growth < 10, "router memory: median %d kB from %.0f s, %d kB over the last "
            "quarter (%+.1f %%)" % (base_kb, base_t - t_first, end_kb, growth))
    verdict(end_fds is not None and end_fds <= start_fds,
            "router descriptors: %d at the start, %d at the end" % (start_fds, end_fds))
    verdict(not attack.kept and all(attack.cut.get(k) for k in ("slowloris", "idle", "stalled")),
            "attackers cut within their bounds (+%.0f s): slowloris %d, idle %d, stalled %d; "
            "kept past them: %d" % (SLACK, len(attack.cut.get("slowloris", [])),
                                    len(attack.cut.get("idle", [])),
                                    len(attack.cut.get("stalled", [])), len(attack.kept)))
    p99_b = pct(before, 0.99) if before else 0
    p99_d = pct(during, 0.99) if during else 0
    verdict(before and during and p99_d <= P99_FACTOR * p99_b,
            "normal p99 with the attackers %.3f s, before %.3f s (x%.2f, bound x%.0f)" %
            (p99_d, p99_b, p99_d / p99_b if p99_b else 0, P99_FACTOR))
    verdict(not stats.table_full and not attack.filler_other,
            "session table: normal opens refused %d; the filler's %d opens, %d quota refusals, "
            "%d other errors" % (len(stats.table_full), attack.filler_opened,
                                 attack.filler_refused, sum(attack.filler_other.values())))
    bound_kb = MEMORY_BOUND_KB + ATTACK_LIMITS["partial_bytes"] // 1024
    verdict(mb_kb and md_kb - mb_kb <= bound_kb,
            "router memory with the attackers at most %d kB, %+d kB over its median before "
            "them (bound %d kB: partial_bytes + %d kB)" % (md_kb, md_kb - mb_kb, bound_kb,
                                                           MEMORY_BOUND_KB))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
