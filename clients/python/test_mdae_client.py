# mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
"""clients/python/test_mdae_client.py -- the Python client against a real mdaed.

Run: MDAED=build/server/mdaed python3 -m unittest clients/python/test_mdae_client.py
(MDAED defaults to build/server/mdaed under the repository). Loopback only;
every wait has a timeout. With MDAE_CLIENT_INSTALLED=1 (tests/clients/
python_package.sh) the package is imported as installed by pip, not from
this folder.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.environ.get("MDAE_SOURCE_DIR") or os.path.dirname(os.path.dirname(HERE))
INSTALLED = os.environ.get("MDAE_CLIENT_INSTALLED") == "1"
if not INSTALLED:
    sys.path.insert(0, HERE)

import mdae_client  # noqa: E402
import mdae_client.cli  # noqa: E402

MDAED = os.environ.get("MDAED", os.path.join(ROOT, "build", "server", "mdaed"))


def model(name):
    with open(os.path.join(ROOT, "tests", "models", name)) as f:
        return f.read()


@unittest.skipUnless(os.access(MDAED, os.X_OK), "mdaed not built (set MDAED)")
class ClientTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="mdae-py-")
        self.sock = os.path.join(self.dir, "sock")
        conf = os.path.join(self.dir, "mdaed.json")
        with open(conf, "w") as f:
            json.dump({"listen": {"tcp": "127.0.0.1:0", "unix": self.sock},
                       "log_level": "warn", "debug_methods": True,
                       "state_dir": "none"}, f)
        port_file = os.path.join(self.dir, "port")
        self.proc = subprocess.Popen([MDAED, "--config", conf, "--port-file", port_file])
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if os.path.exists(port_file):
                with open(port_file) as f:
                    self.port = int(f.read())
                return
            self.assertIsNone(self.proc.poll(), "mdaed exited at startup")
            time.sleep(0.01)
        self.fail("mdaed did not start")

    def tearDown(self):
        self.proc.terminate()
        try:
            self.assertEqual(self.proc.wait(timeout=20), 0)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            shutil.rmtree(self.dir, ignore_errors=True)

    def client(self):
        return mdae_client.Client.connect("tcp://127.0.0.1:%d" % self.port, timeout=30)

    def test_reports_status(self):
        with self.client() as c:
            st = c.status()
            self.assertEqual(st["name"], "mdaed")
            self.assertEqual(st["sessions"], 0)

    def test_opens_and_analyses_a_model(self):
        with self.client() as c:
            s = c.open(model("rldc2.mel"))
            self.assertEqual(s.summary["counts"]["equations"], 14)
            result = s.analyze()
            self.assertEqual(result["status"], "nonsingular")
            self.assertIn("blocks", result)
            self.assertTrue(s.dot().startswith("digraph"))
            self.assertIn("<svg", s.svg())
            self.assertTrue(s.mode({"g1": True, "g2": False})["valid"])
            s.close()

    def test_analyses_a_model_as_block_families(self):
        with self.client() as c:
            s = c.open(model("rldc2.mel"))
            result = s.analyze(families=True)
            self.assertNotIn("blocks", result)
            self.assertEqual(result["blockCountExact"], str(len(s.analyze()["blocks"])))
            self.assertEqual(sum(f["variants"] for f in result["families"]),
                             result["blockCount"])
            s.close()

    def test_opens_and_analyses_a_modelica_model(self):
        with self.client() as c:
            s = c.open(model("rldc2_cc.mo"), format="modelica")
            self.assertEqual(s.summary["counts"]["equations"], 14)
            result = s.analyze()
            self.assertEqual(result["status"], "nonsingular")
            self.assertEqual(result["equations"][0]["name"], "K1")
            self.assertTrue(s.mode({"g1": True, "g2": False})["valid"])
            s.edit(text=model("rldc2_cc.mo").replace("// (K1)", "// (KCL)"))
            self.assertEqual(s.analyze()["equations"][0]["name"], "KCL")
            s.close()

    def test_names_its_session(self):
        with self.client() as c:
            s = c.open(model("rldc2.mel"), session="my-rldc2")
            self.assertEqual(s.id, "my-rldc2")
            with self.assertRaises(mdae_client.RpcError) as cm:
                c.open(model("rldc2.mel"), session="my-rldc2")
            self.assertEqual(cm.exception.code, mdae_client.INVALID_PARAMS)

    def test_a_chosen_id_over_http_belongs_to_its_owner(self):
        # Over HTTP a session is persistent: a chosen id goes with an owner
        # key (issue 37), made by each Client unless given. Two owners, one
        # name: two sessions; the name alone reaches neither.
        url = "http://127.0.0.1:%d" % self.port
        a = mdae_client.Client.connect(url, timeout=30)
        b = mdae_client.Client.connect(url, timeout=30)
        sa = a.open(model("rldc2.mel"), session="my-rldc2")
        sb = b.open(model("two_equations.mel"), session="my-rldc2")
        self.assertEqual((sa.id, sb.id), ("my-rldc2", "my-rldc2"))
        self.assertNotEqual(sa.owner, sb.owner)
        self.assertEqual(len(sa.analyze()["equations"]), 14)
        self.assertEqual(len(sb.analyze()["equations"]), 1)
        with self.assertRaises(mdae_client.RpcError) as cm:
            a.call("session/analyze", {"session": "my-rldc2"})
        self.assertEqual(cm.exception.name, "MDAE_E_STATE")
        # A key of the caller's reaches the session from another client.
        key = "test-owner-key-0123456789"
        c = mdae_client.Client.connect(url, timeout=30, owner=key)
        c.open(model("rldc2.mel"), session="shared")
        d = mdae_client.Client.connect(url, timeout=30)
        self.assertEqual(d.call("session/analyze", {"session": "shared", "owner": key})["status"],
                         "nonsingular")
        with self.assertRaises(mdae_client.RpcError):  # too short to be a secret
            d.open(model("rldc2.mel"), session="other", owner="short")
        self.assertTrue(sa.close() and sb.close())

    def test_talks_http_and_reopens_a_session_the_server_lost(self):
        # Over HTTP each request is a POST /rpc with X-Mdae-Session (what a
        # proxy routes on). A restart without persistence loses the session:
        # the client opens it again with the text it holds, and retries.
        text = model("rldc2.mel")
        c = mdae_client.Client.connect("http://127.0.0.1:%d" % self.port, timeout=30)
        s = c.open(text)
        first = s.analyze()
        self.assertEqual(first["status"], "nonsingular")
        s.edit(text + "\n// edited\n")
        self.proc.terminate()
        self.assertEqual(self.proc.wait(timeout=20), 0)
        conf = os.path.join(self.dir, "mdaed2.json")
        with open(conf, "w") as f:  # the same port, nothing kept
            json.dump({"listen": {"tcp": "127.0.0.1:%d" % self.port, "unix": None},
                       "log_level": "warn", "state_dir": "none"}, f)
        port_file = os.path.join(self.dir, "port2")
        self.proc = subprocess.Popen([MDAED, "--config", conf, "--port-file", port_file])
        deadline = time.monotonic() + 20
        while not os.path.exists(port_file) and time.monotonic() < deadline:
            time.sleep(0.01)
        self.assertEqual(c.status()["sessions"], 0)
        again = s.analyze()
        self.assertEqual(s.reopened, 1)
        self.assertEqual(again, first)  # a comment changes no analysis
        self.assertEqual(c.status()["sessions"], 1)
        with self.assertRaises(mdae_client.RpcError) as e:  # range edits: not kept
            s.edit(edits=[{"range": {"start": {"line": 0, "character": 0},
                                     "end": {"line": 0, "character": 0}}, "text": ""}])
            c.call("session/close", {"session": s.id})
            s.analyze()
        self.assertEqual(e.exception.name, "MDAE_E_STATE")
        c.close()

    def test_streams_notifications_then_the_result(self):
        with self.client() as c:
            s = c.open(model("brake.mel"))
            kinds = [kind for kind, _ in s.analyze_stream()]
            self.assertGreater(len(kinds), 1)
            self.assertEqual(kinds[-1], "result")
            self.assertTrue(all(k == "notification" for k in kinds[:-1]))

    def test_raises_rpc_errors_with_their_code(self):
        with self.client() as c:
            with self.assertRaises(mdae_client.RpcError) as cm:
                c.call("no/such/method")
            self.assertEqual(cm.exception.code, mdae_client.METHOD_NOT_FOUND)
            with self.assertRaises(mdae_client.RpcError) as cm:
                c.open(model("syntax_error.mel"))
            self.assertEqual(cm.exception.name, "MDAE_E_PARSE")
            self.assertTrue(cm.exception.data["messages"])

    def test_analyses_a_mode_change(self):
        with self.client() as c:
            s = c.open(model("clutch.mel"))
            r = s.modechange({"gamma": False}, {"gamma": True})
            self.assertEqual(r["status"], "reset")
            self.assertEqual(len(r["instants"]), 1)
            self.assertEqual(r["instants"][0]["erased"],
                             [{"name": "e3", "shift": 0, "body": "w1 - w2 = 0"}])
            self.assertEqual(r["instants"][0]["status"], "nonsingular")
            self.assertEqual(s.modechange({"gamma": True}, {"gamma": False})["status"],
                             "continuous")
            for bad in (({"gama": True}, {"gamma": False}),
                        ({"gamma": True}, {"gamma": True}),
                        ("engaged", {"gamma": True})):
                with self.assertRaises(mdae_client.RpcError) as cm:
                    s.modechange(*bad)
                self.assertEqual(cm.exception.code, -32602)
            with self.assertRaises(mdae_client.RpcError) as cm:
                s.modechange({"gamma": True}, {"gamma": True})
            self.assertIn("same mode", str(cm.exception))
            a = s.modechanges()
            self.assertEqual(a["method"], "enumeration")
            self.assertEqual(a["pairs"], 2)
            self.assertEqual({k: a["counts"][k] for k in ("continuous", "reset", "rejected")},
                             {"continuous": 1, "reset": 1, "rejected": 0})
            self.assertEqual(a["counts"]["resetExact"], "1")

    def test_says_what_a_single_mode_tool_gets_wrong(self):
        with self.client() as c:
            s = c.open(model("water_tank.mel"))
            r = s.approx()
            self.assertEqual(r["version"], 1)
            pivots = [f for f in r["findings"] if f["kind"] == "pivot"]
            eh2 = [f for f in pivots if f["equation"] == "eh2"]
            self.assertEqual(len(eh2), 1, pivots)
            self.assertEqual(eh2[0]["variable"], "yh")
            self.assertEqual(eh2[0]["modes"]["formula"], "bh")
            self.assertGreater(r["wrong_modes"]["count"], 0)
            s.edit(model("rldc2.mel"))
            self.assertEqual(s.approx()["version"], 2)
            with self.assertRaises(mdae_client.RpcError) as cm:
                c.call("session/approx", {"session": s.id, "mode": {}})
            self.assertEqual(cm.exception.code, -32602)

    def test_writes_the_mode_independent_model(self):
        with self.client() as c:
            s = c.open(model("water_tank.mel"))
            r = s.rimis()
            self.assertEqual(r["version"], 1)
            self.assertTrue(r["text"].startswith("model "), r["text"][:80])
            self.assertIn("end %s;" % r["name"], r["text"])
            self.assertEqual(r["lines"], r["text"].count("\n"))
            self.assertGreater(r["multiplexers"], 0)
            for v in r["variables"]:
                self.assertIn(v["kind"], ("source", "dummy", "replicate", "read"))
            self.assertEqual(sorted(g["block"] for g in r["groups"]),
                             list(range(len(r["groups"]))))
            self.assertEqual(s.rimis(guard=False)["version"], 1)
            with self.assertRaises(mdae_client.RpcError) as cm:
                c.call("session/rimis", {"session": s.id, "guard": "yes"})
            self.assertEqual(cm.exception.code, -32602)
            s.edit(model("singular_simple.mel"))
            with self.assertRaises(mdae_client.RpcError) as cm:
                s.rimis()
            self.assertEqual(cm.exception.name, "MDAE_E_MODEL")
            where = [d["range"]["start"]["line"] for d in cm.exception.data["diagnostics"]]
            self.assertTrue(where and all(line > 0 for line in where), cm.exception.data)

    def test_analyses_the_mode_changes_with_the_model(self):
        with self.client() as c:
            s = c.open(model("clutch.mel"))
            summary = s.analyze(modechanges=True)["modechanges"]
            self.assertEqual(summary["counts"], s.modechanges()["counts"])
            self.assertEqual(summary["pairs"], 2)
            self.assertNotIn("modechanges", s.analyze())
            changes = [p["params"] for kind, p in s.analyze_stream(modechanges=True)
                       if kind == "notification" and p["method"] == "analysis/modechange"]
            self.assertEqual(sorted(ch["status"] for ch in changes), ["continuous", "reset"])

    def test_analyses_every_change_of_a_large_model_on_bdds(self):
        with self.client() as c:
            s = c.open(model("clutch.mel"))
            f = s.modechanges(first=True, erasures=True, instants=True)
            self.assertEqual(f["method"], "bdd")
            counts = f["changes"]["counts"]
            self.assertEqual({k: counts[k] for k in ("continuous", "reset", "rejected")},
                             {"continuous": 1, "reset": 1, "rejected": 0})
            self.assertEqual([(e["name"], e["shift"]) for e in f["erasures"]], [("e3", 0)])
            with self.assertRaises(mdae_client.RpcError) as cm:
                s.modechanges(instants=True)
            self.assertEqual(cm.exception.code, -32602)
            # 2^20 modes: past the enumeration, the summary comes from BDDs;
            # a change needs a reset exactly when some valve opens
            text = model("brake.mel").replace("N : integer = 3;", "N : integer = 20;")
            s = c.open(text)
            summary = s.analyze(modechanges=True)["modechanges"]
            self.assertEqual(summary["method"], "bdd")
            self.assertIn("1048576 valid modes", summary["enumerationSkipped"])
            self.assertEqual(summary["pairs"], 2**20 * (2**20 - 1))
            counts = summary["changes"]["counts"]
            self.assertEqual({k: counts[k] for k in ("continuous", "reset", "rejected")},
                             {"continuous": 3**20 - 2**20, "reset": 4**20 - 3**20,
                              "rejected": 0})
            # exact counts (issue 41 item 2): the decimal digits beside the number
            self.assertEqual(counts["resetExact"], str(4**20 - 3**20))
            self.assertEqual(summary["pairsExact"], str(2**20 * (2**20 - 1)))

    def test_reports_how_each_component_was_analysed(self):
        with self.client() as c:
            s = c.open(model("rldc2.mel"))
            auto = s.analyze(reuse=True)
            parts = auto.pop("reuse")["parts"]
            self.assertEqual([p["method"] for p in parts], ["enumeration"])
            s2 = c.open(model("rldc2.mel"))
            implicit = s2.analyze(method="implicit")
            self.assertEqual(auto, implicit)

    def test_edits_a_session(self):
        with self.client() as c:
            s = c.open("x : real;\ne : equation der(x) = 1;\n")
            r = s.edit(edits=[{"range": {"start": {"line": 9, "character": 0},
                                         "end": {"line": 9, "character": 0}},
                               "text": "y : real;\nf : equation y = x;\n"}])
            self.assertEqual(r["version"], 2)
            self.assertEqual(s.summary["counts"]["equations"], 2)

    def test_analyses_an_edit_incrementally(self):
        text = model("brake.mel")
        with self.client() as c:
            s = c.open(text, defines={"N": 3})
            first = s.analyze(stable_ids=True)
            v1 = s.version
            s.edit(text=text.replace("me2[i] : equation fv[i] - fch[i]",
                                     "me2[i] : equation der(fv[i]) - fch[i]"))
            diff = s.analyze(since=v1, reuse=True, method="implicit")
            self.assertEqual(diff["since"], v1)
            self.assertEqual(diff["version"], s.version)
            self.assertEqual(diff["reuse"]["recomputed"], 1)
            self.assertGreater(diff["reuse"]["seeded"], 0)
            self.assertTrue(diff["equations"]["changed"])
            self.assertNotIn("reuse", s.analyze())
            self.assertIn("blocks", first)

    def test_cancels_a_request(self):
        with self.client() as c:
            s = c.open(model("two_equations.mel"))
            rid = c.send_request("debug/sleep", {"session": s.id, "ms": 60000})
            c.cancel(rid)
            with self.assertRaises(mdae_client.RpcError) as cm:
                list(c.stream(rid))
            self.assertEqual(cm.exception.code, mdae_client.REQUEST_CANCELLED)

    def test_connects_over_the_unix_socket(self):
        with mdae_client.Client.connect("unix://" + self.sock) as c:
            self.assertEqual(c.status()["name"], "mdaed")

    def test_talks_to_mdaed_over_stdio(self):
        c = mdae_client.Client.spawn([MDAED, "--stdio", "--log-level", "warn"])
        try:
            self.assertEqual(c.open(model("clutch.mel")).analyze()["status"], "nonsingular")
        finally:
            c.close()


    def test_runs_the_command_line_entry_point(self):
        import contextlib
        import io
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = mdae_client.cli.main(["--server", "tcp://127.0.0.1:%d" % self.port, "mode",
                                       os.path.join(ROOT, "tests", "models", "rldc2.mel"),
                                       "--mode", "g1=1,g2=0"])
        self.assertEqual(rc, 0)
        self.assertTrue(json.loads(out.getvalue())["valid"])
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            rc = mdae_client.cli.main(["--stdio", "--mdaed", MDAED, "analyze",
                                       os.path.join(ROOT, "tests", "models", "syntax_error.mel")])
        self.assertEqual(rc, 1, "a model with errors")
        self.assertIn("3 statements left out, the result is of the rest", err.getvalue())


    # ---- issue 42: sessions as their users meet them ----------------------------

    def test_a_closed_session_raises_instead_of_opening_another(self):
        with self.client() as c:
            s = c.open(model("rldc2.mel"))
            self.assertTrue(s.close())
            self.assertTrue(s.closed)
            with self.assertRaises(mdae_client.SessionClosed):
                s.analyze()
            with self.assertRaises(mdae_client.SessionClosed):
                s.edit(text=model("rldc2.mel"))
            with self.assertRaises(mdae_client.SessionClosed):
                s.analyze_stream()
            self.assertFalse(s.close(), "closing twice is a no-op")
            self.assertEqual(s.reopened, 0)
            self.assertEqual(c.status()["sessions"], 0, "no session opened behind our back")

    def test_a_failed_edit_the_server_applied_moves_the_session_with_it(self):
        good = model("rldc2.mel")
        bad = good + "\nbroken : equation = ;\n"
        with self.client() as c:
            s = c.open(good)
            with self.assertRaises(mdae_client.RpcError) as cm:
                s.edit(text=bad)
            self.assertEqual(cm.exception.name, "MDAE_E_PARSE")
            self.assertEqual(s.version, 2, "the server's version")
            self.assertEqual(s._text, bad, "the server's text")
            r = s.edit(text=good)  # the next edit builds on the server's version
            self.assertEqual(r["version"], 3)
            self.assertEqual(s.version, 3)
            self.assertEqual(s.analyze()["status"], "nonsingular")

    def test_a_session_is_a_context_manager(self):
        with self.client() as c:
            with c.open(model("rldc2.mel")) as s:
                self.assertEqual(c.status()["sessions"], 1)
                self.assertEqual(s.analyze()["status"], "nonsingular")
            self.assertTrue(s.closed)
            self.assertEqual(c.status()["sessions"], 0)
            with self.assertRaises(KeyError):
                with c.open(model("rldc2.mel")) as s2:
                    raise KeyError("the caller's error goes through")
            self.assertTrue(s2.closed)

    def _cli(self, *argv, stdin=None):
        """mdae-client as a user runs it: (exit status, stdout, stderr)."""
        env = dict(os.environ, PYTHONPATH=HERE if not INSTALLED else os.environ.get(
            "PYTHONPATH", ""))
        p = subprocess.run([sys.executable, "-m", "mdae_client.cli"] + list(argv),
                           input=stdin, capture_output=True, env=env, timeout=120)
        return p.returncode, p.stdout.decode(), p.stderr.decode()

    def test_the_command_line_analyses_a_half_typed_model(self):
        """As mdae analyze: the broken statement is an error and left out,
        the rest is analysed, the exit status is 1."""
        tcp = "tcp://127.0.0.1:%d" % self.port
        with tempfile.NamedTemporaryFile("w", suffix=".mel", delete=False) as f:
            f.write("x : real;\ny : real;\ne1 : equation der(x) = y;\ne2 : equation x = \n")
        try:
            rc, out, err = self._cli("--server", tcp, "analyze", f.name)
        finally:
            os.unlink(f.name)
        self.assertEqual(rc, 1, err)
        self.assertIn("%s:4:1: error: expected an expression" % f.name, err)
        self.assertIn("1 statement left out, the result is of the rest", err)
        self.assertIn("singular, 1 valid mode\n", out)
        self.assertIn("underdetermined y in every mode", out)

    def test_the_command_line_says_what_is_wrong_without_a_traceback(self):
        tcp = "tcp://127.0.0.1:%d" % self.port
        with tempfile.NamedTemporaryFile("wb", suffix=".mel", delete=False) as f:
            f.write(b"x : real; // caf\xe9\ne : equation der(x) = 1;\n")
        try:
            rc, out, err = self._cli("--server", tcp, "analyze", f.name)
        finally:
            os.unlink(f.name)
        self.assertEqual(rc, 1, err)
        self.assertIn("%s:1:17: error: the file is not UTF-8 (byte 0xE9)" % f.name, err)
        rc, out, err = self._cli("--server", tcp, "analyze", MDAED)
        self.assertEqual(rc, 1, err)
        self.assertIn("is not a model: a binary file", err)
        self.assertLess(len(err), 300)
        rc, out, err = self._cli("--server", "unix:" + self.sock, "analyze",
                                 os.path.join(ROOT, "tests", "models", "rldc2.mel"))
        self.assertEqual(rc, 0, err)
        self.assertIn("nonsingular, 4 valid modes", out)
        rc, out, err = self._cli("--server", "nowhere", "status")
        self.assertEqual(rc, 2, err)
        path = os.path.join(ROOT, "tests", "models", "syntax_error.mel")
        rc, out, err = self._cli("--server", tcp, "mode", path, "--mode", "g=1")
        self.assertEqual(rc, 1, err)
        self.assertIn(path + ":12:27: error: expected ')'", err, "the file, not the session id")
        rc, out, err = self._cli("--server", tcp, "analyze", path)  # recovers, as mdae does
        self.assertEqual(rc, 1, err)
        self.assertIn(path + ":12:1: error: expected ')'", err)
        rc, out, err = self._cli("--server", tcp, "mode",
                                 os.path.join(ROOT, "tests", "models", "rldc2.mel"),
                                 "--mode", "nosuch=1")
        self.assertEqual(rc, 2, "as mdae: an unknown mode variable is a usage error")
        for rc, out, err in (self._cli("--server", tcp, "status"),):
            self.assertNotIn("Traceback", err)

    def test_the_command_line_analyses_mode_changes(self):
        tcp = "tcp://127.0.0.1:%d" % self.port
        clutch = os.path.join(ROOT, "tests", "models", "clutch.mel")
        rc, out, err = self._cli("--server", tcp, "modechange", clutch,
                                 "--from", "gamma=0", "--to", "gamma=1")
        self.assertEqual(rc, 0, err)
        self.assertIn("status", json.loads(out))
        rc, out, err = self._cli("--server", tcp, "modechange", clutch, "--all")
        self.assertEqual(rc, 0, err)
        self.assertEqual(json.loads(out)["validModes"], 2)
        rc, out, err = self._cli("--server", tcp, "modechange", clutch)
        self.assertEqual(rc, 2, err)
        self.assertIn("docs/mode_changes.md", err)

    def test_the_command_line_reads_modelica_on_standard_input(self):
        with open(os.path.join(ROOT, "tests", "models", "clutch_basic.mo"), "rb") as f:
            rc, out, err = self._cli("--server", "tcp://127.0.0.1:%d" % self.port,
                                     "analyze", "-", stdin=f.read())
        self.assertEqual(rc, 0, err)
        self.assertIn("<stdin>: nonsingular", out)


class PackageTest(unittest.TestCase):
    def test_is_typed_and_installed_where_expected(self):
        pkg = os.path.dirname(mdae_client.__file__)
        self.assertTrue(os.path.exists(os.path.join(pkg, "py.typed")), "PEP 561 marker")
        if INSTALLED:
            self.assertIn("site-packages", pkg, "imported from the installed package")
        self.assertEqual(mdae_client.__version__, "0.1.0")


if __name__ == "__main__":
    unittest.main()
