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


class Stats:
    def __init__(self):
        self.sent = 0
        self.answered = 0
        self.lost = []
        self.errors = {}
        self.latency = {}
        self.mismatches = []
        self.checked = 0

    def done(self, method, seconds, reply):
        self.answered += 1
        self.latency.setdefault(method, []).append(seconds)
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
    writer.write(b"POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                 b"Connection: close\r\nContent-Length: %d\r\n\r\n" % len(msg_bytes) + msg_bytes)
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
                   "limits": {"max_message_bytes": MAX_MESSAGE, "max_sessions": 4096,
                              "max_workers": args.workers, "worker_idle_ms": 3000,
                              "request_timeout_ms": 60000, "write_queue_bytes": 8 << 20}},
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
    start_fds = fds(proc.pid)
    clients = [Client(n, args, stats, corpus, ref, deadline) for n in range(args.clients)]
    tasks = [asyncio.create_task(c.run()) for c in clients]
    extra = [asyncio.create_task(stalled_reader(args, deadline, rng)) for _ in range(3)]
    extra.append(asyncio.create_task(chaos(proc.pid, deadline, rng, killed)))
    extra.append(asyncio.create_task(monitor(proc.pid, deadline, samples)))
    await asyncio.gather(*tasks, *extra)
    # Idle workers stop after worker_idle_ms; then the descriptors are back.
    end_fds = None
    for _ in range(40):
        await asyncio.sleep(0.5)
        end_fds = fds(proc.pid)
        if end_fds <= start_fds and not children(proc.pid):
            break
    return stats, killed, samples, start_fds, end_fds, time.monotonic() - t0


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
    stats, killed, samples, start_fds, end_fds, took = asyncio.run(main_async(args, proc, ref))
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
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
