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
import argparse, os

from worker_drive import drive

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
drive(a.cmd, params, a.out, width=7)
