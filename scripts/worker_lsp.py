#!/usr/bin/env python3
# scripts/worker_lsp.py -- the worker's side of bench_lsp's edit rows alone
# (issue 40 item 5): `mdaed --worker` fed what the router sends when an
# editor opens the brake at N and edits it (each edit gives px[i] a der(x)
# term in railcar 10, 11, ...: a text the worker has not seen), one request
# at a time as the router does: for each version the first stage
# ("diagnose", whose answer is the first publication) and then, unless
# --no-second, the second ("diagnose/modeChanges", to its end, as in
# bench_lsp's "sound, every check" row). Prints each answer's worker CPU
# seconds (/proc, 10 ms ticks), size and md5; --out writes the answers.
#   requests: 1 diagnose (open), 2 modeChanges, 3 diagnose (edit 1), 4 ...
# Under callgrind, count the first stages only, one dump per request
# (FILE.K holds request K-1's; FILE.4 the first edit's first stage, FILE.6
# the second's):
#   scripts/worker_lsp.py --n 2000 -- valgrind --tool=callgrind \
#     --toggle-collect=m_diagnose --dump-before=wk_method_find \
#     --callgrind-out-file=/tmp/cg build/server/mdaed --worker
import argparse, os

from worker_drive import drive

ap = argparse.ArgumentParser()
ap.add_argument('--n', type=int, default=10000)
ap.add_argument('--edits', type=int, default=3)
ap.add_argument('--no-second', action='store_true', help='first stages only (mode-change check off)')
ap.add_argument('--model', default=os.path.join(os.path.dirname(__file__), '..', 'tests',
                                                 'models', 'brake.mel'))
ap.add_argument('--out', help='write the answers here, one a line')
ap.add_argument('cmd', nargs='+', help='the worker command (after --)')
a = ap.parse_args()

text = open(a.model).read()
src, n3 = 'px[i] : equation b[i] = K*x[i];', 'N : integer = 3;'
assert src in text and n3 in text
text = text.replace(n3, 'N : integer = %d;' % a.n, 1)


def version(k):
    """The text bench_lsp sends: the plain brake (k = 0), else px[9 + k] edited."""
    if k == 0:
        return text
    return text.replace(src, 'px[i] : equation b[i] = K*x[i] + (if i == %d then der(x[i]) '
                        'else 0);' % (9 + k), 1)


params = []
for k in range(a.edits + 1):
    params.append(('diagnose', {'text': version(k), 'name': 'file:///brake.mel',
                                'modeChanges': False, 'approx': False}))
    if not a.no_second:
        params.append(('diagnose/modeChanges', {'approx': True, 'modeChanges': True}))
drive(a.cmd, params, a.out, width=20)
