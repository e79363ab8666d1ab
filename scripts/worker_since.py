#!/usr/bin/env python3
# scripts/worker_since.py -- the worker's since path alone (issue 40 item 5):
# `mdaed --worker` fed what the router sends for bench_server's row 5 (the
# brake at N, one railcar's piston equation gains a derivative, the railcar
# alternating), one request at a time as the router does, each answer's
# worker CPU seconds (/proc, 10 ms ticks) and md5 printed:
#   1 load, 2 analyze {stableIds} (cold), 3 load (edit), 4 analyze {since: 1},
#   5 load (edit back), 6 analyze {since: 2}.
# Under callgrind, --dump-before=wk_method_find gives one dump per request
# (FILE.5: request 4, the since path):
#   scripts/worker_since.py --n 2000 -- valgrind --tool=callgrind \
#     --dump-before=wk_method_find --callgrind-out-file=/tmp/cg build/server/mdaed --worker
import argparse, hashlib, json, os, re, subprocess, sys

ap = argparse.ArgumentParser()
ap.add_argument('--n', type=int, default=10000)
ap.add_argument('--model', default=os.path.join(os.path.dirname(__file__), '..', 'tests',
                                                 'models', 'brake.mel'))
ap.add_argument('--out', help='write the answers here, one a line')
ap.add_argument('cmd', nargs='+', help='the worker command (after --)')
a = ap.parse_args()

text = open(a.model).read()
src = 'px[i] : equation b[i] = K*x[i];'
assert src in text


def edited(k):
    return text.replace(src, 'px[i] : equation b[i] = K*x[i] + (if i == %d then der(x[i]) '
                        'else 0);' % (a.n // 2 + k), 1)


defs = {'N': a.n}
params = [('load', {'text': edited(0), 'name': 's', 'defines': defs}),
          ('analyze', {'stream': False, 'stableIds': True, 'version': 1}),
          ('load', {'text': edited(1), 'name': 's', 'defines': defs}),
          ('analyze', {'stream': False, 'stableIds': True, 'version': 2, 'since': 1}),
          ('load', {'text': edited(0), 'name': 's', 'defines': defs}),
          ('analyze', {'stream': False, 'stableIds': True, 'version': 3, 'since': 2})]
p = subprocess.Popen(a.cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
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
                print('%d %-7s %.2f s cpu %9d bytes md5 %s' %
                      (i, method, cpu() - c0, len(msg), hashlib.md5(msg).hexdigest()))
                break
            continue
        chunk = p.stdout.read1(1 << 20)
        if not chunk:
            sys.exit('the worker closed its output')
        buf += chunk
p.stdin.close()
p.wait()
if a.out:
    with open(a.out, 'wb') as f:
        for msg in answers:
            f.write(msg + b'\n')
