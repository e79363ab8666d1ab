// mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
// clients/web/build.mjs -- build the page mdaed serves: node build.mjs OUTDIR
//
// Bundles src/main.js and the npm packages it imports (CodeMirror 6, the
// versions package-lock.json pins) into OUTDIR/app.js with esbuild, copies
// index.html and style.css, writes OUTDIR/licenses.txt with the licence of
// every package that ended up in the bundle (found from esbuild's metafile,
// so the list cannot drift from what ships), and copies the example models
// of tests/models with OUTDIR/models/index.json for the page's menu.
// Nothing is fetched at run time: OUTDIR is all the page needs. The page's
// own files also get a gzip copy beside them (app.js.gz, ...), which mdaed
// sends to a browser that takes gzip (server/srv_http.c, issue 42).

import { build } from 'esbuild';
import { mkdirSync, readFileSync, writeFileSync, copyFileSync, readdirSync, existsSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { gzipSync, constants as zlib } from 'node:zlib';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const out = resolve(process.argv[2] || join(root, 'build/web'));

mkdirSync(out, { recursive: true });
const result = await build({
  entryPoints: [join(here, 'src/main.js')],
  bundle: true,
  format: 'esm',
  minify: true,
  sourcemap: false,
  target: ['chrome100', 'firefox115'],
  outfile: join(out, 'app.js'),
  metafile: true,
  legalComments: 'none', // the licences go to licenses.txt, whole
  logLevel: 'warning',
});

// Every package directory under node_modules that contributed an input.
const pkgs = new Set();
for (const input of Object.keys(result.metafile.inputs)) {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
  if (m) pkgs.add(m[1]);
}
let licences = 'Third-party software in app.js (bundled from npm by clients/web/build.mjs)\n\n';
for (const name of [...pkgs].sort()) {
  const dir = join(here, 'node_modules', name);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const file = readdirSync(dir).find((f) => /^licen[cs]e/i.test(f));
  if (!file) throw new Error(`${name}: no licence file in the package; cannot ship it`);
  licences += `==== ${name} ${pkg.version} (${pkg.license}) ====\n${readFileSync(join(dir, file), 'utf8').trim()}\n\n`;
}
writeFileSync(join(out, 'licenses.txt'), licences);

for (const f of ['index.html', 'style.css']) copyFileSync(join(here, f), join(out, f));

// A model's title: its header comment from the "--" to the first full stop
// (or blank comment line), at most 80 characters.
function titleOf(text) {
  const lines = [];
  for (const l of text.split('\n')) {
    const m = /^\s*\/\/\s?(.*)$/.exec(l);
    if (!m || m[1].trim() === '') { if (lines.length) break; if (!m) break; continue; }
    lines.push(m[1].trim());
  }
  let t = lines.join(' ').replace(/^.*?\s--\s+/, '');
  const stop = t.search(/\.(\s|$)/);
  if (stop >= 0) t = t.slice(0, stop);
  return t.length > 80 ? `${t.slice(0, 79)}…` : t;
}

// The example models: every model of the corpus, with its title.
const models = join(out, 'models');
if (existsSync(models)) rmSync(models, { recursive: true });
mkdirSync(models);
const list = [];
for (const f of readdirSync(join(root, 'tests/models')).sort()) {
  if (!/\.(mel|mo|bmo)$/.test(f)) continue;
  const text = readFileSync(join(root, 'tests/models', f), 'utf8');
  copyFileSync(join(root, 'tests/models', f), join(models, f));
  list.push({ file: f, title: titleOf(text) });
}
writeFileSync(join(models, 'index.json'), JSON.stringify(list, null, 1));

// The gzip copies, written after the files (mdaed serves a .gz only when it
// is no older than its file).
let zipped = 0;
for (const f of ['app.js', 'index.html', 'style.css', 'licenses.txt']) {
  const z = gzipSync(readFileSync(join(out, f)), { level: zlib.Z_BEST_COMPRESSION });
  writeFileSync(join(out, `${f}.gz`), z);
  if (f === 'app.js') zipped = z.length;
}

const size = readFileSync(join(out, 'app.js')).length;
console.log(`web: ${out}: app.js ${(size / 1024).toFixed(0)} KiB (gzip ${(zipped / 1024).toFixed(0)} KiB), ${pkgs.size} packages (licenses.txt), ${list.length} example models`);
