# scripts/worker_drive.py -- what worker_since.py and worker_lsp.py share:
# a `mdaed --worker` command fed requests one at a time, as the router
# does (LSP framing), each answer's worker CPU seconds (/proc, 10 ms
# ticks), size and md5 printed, and the answers written to `out`.
import hashlib, json, os, re, subprocess, sys


def drive(cmd, params, out=None, width=7):
    """Send params [(method, params)] to the worker `cmd` in turn (ids 1, 2,
    ...), each after the answer to the one before; returns the answers."""
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    tick = os.sysconf('SC_CLK_TCK')

    def cpu():
        f = open('/proc/%d/stat' % p.pid).read().rsplit(')', 1)[1].split()
        return (int(f[11]) + int(f[12])) / tick

    buf, answers = b'', []
    for i, (method, pr) in enumerate(params, 1):
        body = json.dumps({'jsonrpc': '2.0', 'id': i, 'method': method, 'params': pr}).encode()
        c0 = cpu()
        p.stdin.write(b'Content-Length: %d\r\n\r\n' % len(body) + body)
        p.stdin.flush()
        while True:
            m = re.match(rb'Content-Length: (\d+)\r\n\r\n', buf)
            if m and len(buf) >= m.end() + int(m.group(1)):
                msg, buf = buf[m.end():m.end() + int(m.group(1))], buf[m.end() + int(m.group(1)):]
                if msg.startswith(b'{"jsonrpc":"2.0","id"'):
                    answers.append(msg)
                    print('%d %-*s %.2f s cpu %9d bytes md5 %s' %
                          (i, width, method, cpu() - c0, len(msg), hashlib.md5(msg).hexdigest()))
                    break
                continue
            chunk = p.stdout.read1(1 << 20)
            if not chunk:
                sys.exit('the worker closed its output')
            buf += chunk
    p.stdin.close()
    p.wait()
    if out:
        with open(out, 'wb') as f:
            for msg in answers:
                f.write(msg + b'\n')
    return answers
