// mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
// clients/web/src/main.js -- the mode explorer page (issue 14): wires the
// editor, the analysis through mdaed's JSON-RPC (rpc.js), the mode controls
// and the dependency graph (graph.js).
//
// One analysis runs at a time. Typing restarts a 300 ms wait; when it ends,
// the running analysis (if any) is aborted and the text goes to the
// session with session/edit (the worker re-analyses only the components
// that changed), then session/structure (source ranges, to locate what the
// analysis names), session/analyze {stream} (progress and diagnostics as
// they come), session/mode for the chosen mode, session/svg for the
// drawing, session/approx for the "Single-mode tools" panel (approx.js) and
// session/rimis for the "Simulation code" panel (rimis.js). Results of a superseded run are dropped (the `run` counter).
//
// Issue 42: session/mode's edges are positions in its solving order
// (modeEdges); the mode opens valid and "pick a valid mode" finds one from
// the invariants (modes.js); a failure clears every panel of the last
// model; the model is kept in sessionStorage across a reload; counts are
// printed exactly (counts.js). docs/web.md is the page's reference.
//
// window.mdaeStats carries the timings the browser test prints; the
// data-* attributes of <body> tell a test when each step is done.

import { call, RpcError, UNAUTHORIZED, setToken, rpcHeaders } from './rpc.js';
import { Editor, guessFormat } from './editor.js';
import { Graph, names } from './graph.js';
import { encodeModel, decodeModel } from './share.js';
import { drawNeighbourhood } from './neighbourhood.js';
import { ModeChanges } from './modechange.js';
import { SingleModeTools } from './approx.js';
import { SimulationCode } from './rimis.js';
import { el, roving } from './dom.js';
import { Invariants } from './modes.js';
import { countOf } from './counts.js';

const DEBOUNCE_MS = 300;
// Above this many blocks a drawing is a hairball: the page offers the block
// list and the neighbourhood of a block instead (a button still draws it).
// ?maxblocks=N in the address sets another limit (the browser test uses it).
const GRAPH_MAX_BLOCKS = Number(new URLSearchParams(location.search).get('maxblocks')) || 1000;

const $ = (id) => document.getElementById(id);

const stats = (window.mdaeStats = { start: performance.now() });
const state = {
  session: null, sessionKey: null,
  structure: null, analysis: null, modeResult: null,
  run: 0, abort: null, timer: null, graphRun: 0,
  choice: new Map(), // mode variable -> 'true' | 'false' | 'either'
  selected: null, forceGraph: false,
  invariants: null, // modes.js Invariants of the analysed model
  inflight: null, // what the running analysis analyses (text, format, defines)
};

const editor = new Editor($('editor'), { onChange: scheduleAnalysis, onRun: () => analyse() });
const graph = new Graph($('graph'), $('tooltip'), { onBlock: (id) => selectBlock(id) });
const changes = new ModeChanges($('mode-changes'), {
  getSession: () => (state.analysis ? state.session : null),
  getFrom: chosenMode,
  select: (kind, name) => { const w = locate({ [kind]: name }); if (w) editor.select([w]); },
  selectRange: (r) => editor.select([rangeOf(r)]),
  chooseFrom: (mode) => chooseCube(mode),
});
const singleMode = new SingleModeTools($('approx'), {
  locate: (d) => locate(d),
  select: (range) => editor.select([range]),
  chooseMode: (cube) => chooseCube(cube),
});

const simCode = new SimulationCode($('rimis'), {
  locate: (d) => {
    const w = locate(d);
    return w ? { ...w, line: editor.view.state.doc.lineAt(w.from).number } : null;
  },
  select: (range) => editor.select([range]),
  guard: () => $('rimis-guard').checked,
});

function setStatus(msg, error = false) {
  const s = $('status');
  s.textContent = msg;
  s.classList.toggle('error', error);
}

function bump(name) {
  const d = document.body.dataset;
  d[name] = String(Number(d[name] || 0) + 1);
}

// ---- The model: format, defines, examples, files, links ----------------------------

let fileName = '';

// "auto": the text decides (a pasted model replaces a file's); the file
// name only when the text says nothing either way.
function currentFormat() {
  const f = $('format').value;
  return f === 'auto' ? guessFormat(editor.text(), fileName) : f;
}

function parseDefines() {
  const text = $('defines').value.trim();
  const out = {};
  if (text === '') return out;
  for (const part of text.split(/[\s,;]+/).filter(Boolean)) {
    const m = /^([A-Za-z_]\w*)=(-?\d+)$/.exec(part);
    if (!m) throw new Error(`-D: "${part}" is not NAME=INTEGER`);
    out[m[1]] = Number(m[2]);
  }
  return out;
}

function loadText(text, name = '', format = 'auto', defines = '') {
  fileName = name;
  $('format').value = format;
  $('defines').value = defines;
  editor.setFormat(format === 'auto' ? guessFormat(text, name) : format);
  editor.setText(text); // schedules an analysis; run it now instead
  analyse();
}

async function loadExamples() {
  try {
    const res = await fetch('models/index.json');
    const list = await res.json();
    const sel = $('examples');
    for (const m of list) sel.append(el('option', { value: m.file, text: `${m.file} — ${m.title}` }));
  } catch (e) {
    $('examples').disabled = true;
  }
}

async function openExample(file) {
  if (!file) return;
  const res = await fetch(`models/${encodeURIComponent(file)}`);
  if (!res.ok) { setStatus(`cannot load ${file}: HTTP ${res.status}`, true); return; }
  loadText(await res.text(), file, 'auto', /^(brake|building_\w+|rldc_chain)\.mel$/.test(file) ? 'N=20' : '');
}

function readFile(file) {
  const r = new FileReader();
  r.onload = () => loadText(String(r.result), file.name);
  r.onerror = () => setStatus(`cannot read ${file.name}`, true);
  r.readAsText(file);
}

// The model survives a reload: kept in this tab's sessionStorage (not sent
// anywhere; a new tab starts from the example).
const MODEL_KEY = 'mdae-model';

function saveModel() {
  try {
    sessionStorage.setItem(MODEL_KEY, JSON.stringify({
      text: editor.text(), name: fileName, format: $('format').value, defines: $('defines').value,
    }));
  } catch { /* storage off or full: the model is not kept */ }
}

function savedModel() {
  try {
    const m = JSON.parse(sessionStorage.getItem(MODEL_KEY) || 'null');
    return m && typeof m.text === 'string' ? m : null;
  } catch { return null; }
}

async function share() {
  const model = { text: editor.text(), format: $('format').value, defines: $('defines').value };
  const frag = await encodeModel(model);
  history.replaceState(null, '', `#${frag}`);
  const link = location.href;
  try {
    await navigator.clipboard.writeText(link);
    setStatus(`Link copied (${link.length} characters): the model travels in the fragment, nothing is stored.`);
  } catch {
    setStatus(`Link (${link.length} characters) is in the address bar: the model travels in the fragment.`);
  }
}

// ---- Analysis --------------------------------------------------------------------

function scheduleAnalysis() {
  clearTimeout(state.timer);
  state.timer = setTimeout(() => analyse(), DEBOUNCE_MS);
  delete document.body.dataset.settled;
  stats.lastEditAt = performance.now();
  simCode.stale('the model is being edited');
}

function keyOf(format, defines) { return `${format}|${JSON.stringify(defines)}`; }

async function openOrEdit(text, format, defines, signal) {
  const key = keyOf(format, defines);
  if (state.session && state.sessionKey === key) {
    try {
      return await call('session/edit', { session: state.session, text }, { signal });
    } catch (e) {
      if (!(e instanceof RpcError && /no such session/.test(e.message))) throw e;
      state.session = null; // expired or its worker gone: open anew
    }
  }
  if (state.session) {
    call('session/close', { session: state.session }).catch(() => {});
    state.session = null;
  }
  const params = { text, format };
  if (Object.keys(defines).length) params.defines = defines;
  // Not aborted with the run: a session/open cut short would still open a
  // session on mdaed that nobody knows of. A superseded one is closed.
  const r = await call('session/open', params);
  if (signal.aborted) {
    call('session/close', { session: r.session }).catch(() => {});
    throw new DOMException('superseded', 'AbortError');
  }
  state.session = r.session;
  state.sessionKey = key;
  return r;
}

// changed: called for a changed input (-D, Language), which analyses only
// if that changes what is analysed.
async function analyse({ changed = false } = {}) {
  clearTimeout(state.timer);
  let defines;
  try { defines = parseDefines(); } catch (e) { setStatus(e.message, true); return; }
  const format = currentFormat();
  const text = editor.text();
  // The same text, language and -D as the analysis running now: nothing to
  // start (editing -D then clicking Analyse fires both "change" and "click").
  const what = `${keyOf(format, defines)}|${text}`;
  if (state.inflight === what && document.body.dataset.busy) return;
  if (changed && state.analysed === what) return;
  state.inflight = what;
  const run = ++state.run;
  if (state.abort) state.abort.abort();
  const ctl = new AbortController();
  state.abort = ctl;
  const signal = ctl.signal;
  const t0 = performance.now();
  editor.setFormat(format);
  saveModel();
  document.body.dataset.busy = '1';
  delete document.body.dataset.settled;
  setStatus('Analysing…');
  setProgress(null);
  try {
    const opened = await openOrEdit(text, format, defines, signal);
    if (run !== state.run) return;
    const modelDiags = opened.summary.diagnostics || [];
    const structure = await call('session/structure', { session: state.session, incidences: false }, { signal });
    state.structure = indexStructure(structure);
    if (run !== state.run) return;
    const streamed = [];
    // Diagnostics and progress drawn once per frame, not once per
    // notification: a model of many components brings thousands.
    let frame = 0, progress = null;
    const draw = () => {
      frame = 0;
      if (run !== state.run) return;
      if (progress) setProgress(progress);
      if (streamed.length) renderDiagnostics(modelDiags, streamed);
    };
    const result = await call('session/analyze', { session: state.session, stream: 'progress' }, {
      signal,
      onNotify: (method, p) => {
        if (run !== state.run) return;
        if (method === 'analysis/progress') progress = p;
        else if (method === 'analysis/diagnostic') streamed.push(p);
        else return;
        if (!frame) frame = requestAnimationFrame(draw);
      },
    });
    if (frame) cancelAnimationFrame(frame);
    if (run !== state.run) return;
    state.analysis = result;
    state.analysed = what;
    state.invariants = new Invariants(result.modeVariables, (structure.invariants || []).map((i) => i.guard));
    $('token-form').hidden = true;
    if ($('version').textContent === '') showVersion();
    state.selected = null; // block ids are the new analysis'
    $('neighbourhood').replaceChildren();
    stats.analysisMs = performance.now() - t0;
    if (stats.lastEditAt !== undefined) stats.editRoundTripMs = performance.now() - stats.lastEditAt;
    setProgress({ done: 1, total: 1, phase: 'done' });
    renderSummary(opened.summary.counts, result);
    renderDiagnostics(modelDiags, result.diagnostics);
    buildModeControls(result.modeVariables);
    changes.setModel(result.modeVariables);
    setStatus(`Analysed in ${(stats.analysisMs / 1000).toFixed(2)} s (${result.blocks.length} blocks, ${result.edges.length} edges).`);
    bump('analyses');
    delete document.body.dataset.busy;
    state.inflight = null;
    // All at once: session/mode is quick and the server may answer it
    // before the layout; the drawing, when it comes, takes the highlight;
    // session/approx reads the analysis the worker just kept.
    await Promise.all([drawGraph(run), updateMode(), singleMode.update(state.session), simCode.update(state.session)]);
    // data-settled: this run is wholly on the page (analysis, mode, drawing);
    // what the browser test waits for.
    if (run === state.run) document.body.dataset.settled = String(run);
  } catch (e) {
    if (e.name === 'AbortError' || run !== state.run) return;
    delete document.body.dataset.busy;
    state.inflight = null;
    state.analysed = null;
    showFailure(e);
    bump('analyses');
    document.body.dataset.settled = String(run);
  }
}

// A failure keeps the page usable: located model errors in the list, the
// server's reason (node limit, time budget, ...) in the status line.
function showFailure(e) {
  setProgress({ done: 0, total: 1, phase: 'failed' });
  state.analysis = null;
  state.modeResult = null;
  $('token-form').hidden = !(e instanceof RpcError && e.code === UNAUTHORIZED);
  if (!$('token-form').hidden) $('token').focus();
  if (e instanceof RpcError) {
    const name = e.data && e.data.name ? ` (${e.data.name})` : '';
    setStatus(`${e.message}${name}`, true);
    if (e.data && Array.isArray(e.data.diagnostics)) renderDiagnostics(e.data.diagnostics, []);
    else renderDiagnostics([{ severity: 'error', message: e.message + name }], []);
  } else {
    setStatus(`mdaed is not reachable: ${e.message}`, true);
  }
  $('summary').replaceChildren();
  $('singular').replaceChildren();
  // Nothing of the last model stays: no mode controls, verdict, "one mode".
  state.invariants = null;
  state.activeBlocks = null;
  state.activeEdges = null;
  state.selected = null;
  $('mode-controls').replaceChildren(el('p', { class: 'muted', text: 'No mode controls: the model was not analysed.' }));
  $('mode-verdict').replaceChildren();
  $('mode-view').replaceChildren();
  changes.clear('No mode changes: the model was not analysed.');
  singleMode.clear('No single-mode analysis: the model was not analysed.');
  simCode.stale('the model was not analysed');
  graph.clear();
  $('graph-note').textContent = '';
  $('neighbourhood').replaceChildren();
}

function setProgress(p) {
  const bar = $('progress');
  if (p === null) { bar.removeAttribute('value'); $('phase').textContent = 'starting'; return; }
  bar.max = Math.max(1, p.total);
  bar.value = Math.min(p.done, p.total);
  $('phase').textContent = p.phase === 'done' ? '' : `${p.phase} ${p.done}/${p.total}`;
}

function indexStructure(s) {
  return {
    equations: new Map(s.equations.map((e) => [e.name, e.range])),
    variables: new Map(s.variables.map((v) => [v.name, v])),
    modes: new Map(s.modeVariables.map((v) => [v.name, v])),
  };
}

function renderSummary(counts, r) {
  const dl = $('summary');
  const row = (k, v) => [el('dt', { text: k }), el('dd', {}, v)];
  const status = el('span', { class: `status-${r.status}`, text: r.status });
  dl.replaceChildren(
    ...row('status', status),
    ...row('equations', String(counts.equations)),
    ...row('unknowns', String(counts.variables)),
    ...row('mode variables', String(r.modeVariables.length)),
    ...row('valid modes', countOf(r, 'validModes')),
    ...row('blocks / edges', `${r.blocks.length} / ${r.edges.length}`),
  );
  const sing = $('singular');
  if (r.status !== 'singular') { sing.replaceChildren(); return; }
  sing.replaceChildren(
    el('p', {}, 'Singular in the modes ', el('code', { class: 'formula', text: r.singular.guard }),
      ' — as cubes (click one to explore it):'),
    cubeList(r.singular.cubes),
  );
}

function cubeText(c) {
  const ks = Object.keys(c);
  return ks.length === 0 ? 'any mode' : ks.map((k) => (c[k] ? k : `!${k}`)).join(' & ');
}

function cubeList(cubes, max = 40) {
  const ul = el('ul', { class: 'cubes' });
  for (const c of cubes.slice(0, max)) {
    ul.append(el('li', {}, el('button', { type: 'button', title: 'choose this mode (don\'t-cares false)', onclick: () => chooseCube(c) }, cubeText(c))));
  }
  if (cubes.length > max) ul.append(el('li', { class: 'muted', text: `… ${cubes.length - max} more` }));
  return ul;
}

// ---- Diagnostics -------------------------------------------------------------------

function rangeOf(r) {
  return { from: editor.offset(r.start.line, r.start.col), to: editor.offset(r.end.line, r.end.col) };
}

function locate(d) {
  if (d.range) return rangeOf(d.range);
  const s = state.structure;
  if (!s) return null;
  if (d.equation && s.equations.has(d.equation)) return rangeOf(s.equations.get(d.equation));
  if (d.variable && s.variables.has(d.variable)) {
    const v = s.variables.get(d.variable);
    const from = editor.offset(v.line, v.col);
    return { from, to: from + d.variable.replace(/\[.*$/, '').length };
  }
  return null;
}

function diagText(d) {
  if (d.kind === 'overdetermined') return `equation ${d.equation} is overdetermined`;
  if (d.kind === 'underdetermined') return `variable ${d.variable} is underdetermined`;
  return d.message || d.kind || 'diagnostic';
}

function renderDiagnostics(modelDiags, analysisDiags) {
  const ul = $('diagnostics');
  ul.replaceChildren();
  const all = [...modelDiags, ...analysisDiags];
  const marks = [];
  for (const d of all) {
    const at = locate(d);
    const where = at && editor.widen(at);
    if (where) marks.push({ from: where.from, severity: d.severity || 'error', message: diagText(d) });
    const sev = d.severity || 'error';
    const line = where ? editor.view.state.doc.lineAt(where.from).number : null;
    const btn = el('button', { type: 'button', class: `sev-${sev}` },
      el('span', { text: `${sev}: ${diagText(d)}` }),
      d.guard ? el('span', {}, ' in modes ', el('code', { text: d.guard })) : null,
      el('span', { class: 'where', text: line ? `  line ${line}` : '  (no location)' }));
    if (where) {
      btn.dataset.from = String(where.from);
      btn.dataset.to = String(where.to);
      btn.addEventListener('click', () => editor.select([where]));
    }
    ul.append(el('li', {}, btn));
  }
  if (all.length === 0) ul.append(el('li', { class: 'muted', text: 'none' }));
  editor.setDiagnostics(marks);
}

// ---- Modes ---------------------------------------------------------------------------

function buildModeControls(vars) {
  const box = $('mode-controls');
  const keep = state.choice;
  state.choice = new Map(vars.map((v) => [v, keep.get(v) || 'false']));
  box.replaceChildren();
  vars.forEach((v, i) => {
    const fs = el('fieldset', { 'data-var': v });
    fs.append(el('legend', { title: v, text: v }));
    for (const [val, label] of [['true', 'T'], ['false', 'F'], ['either', '∗']]) {
      const id = `mv${i}-${val}`;
      const input = el('input', { type: 'radio', name: `mv${i}`, id, value: val, 'aria-label': `${v} ${val}` });
      input.checked = state.choice.get(v) === val;
      input.addEventListener('change', () => { state.choice.set(v, val); stats.modeChangeAt = performance.now(); updateMode(); });
      fs.append(input, el('label', { for: id, text: label }));
    }
    box.append(fs);
  });
  if (vars.length === 0) box.append(el('p', { class: 'muted', text: 'No mode variables: one mode.' }));
  filterModeControls();
  $('mode-valid').disabled = vars.length === 0;
  // Open in a valid mode: the choice kept by name if the invariants allow
  // it, else the valid mode nearest to it.
  const mode = chosenMode();
  if (mode !== null && state.invariants && state.invariants.valid(mode) === false) {
    const near = state.invariants.nearest(mode);
    if (near) {
      for (const [k, v] of Object.entries(near)) state.choice.set(k, String(v));
      syncControls();
    }
  }
}

// "valid mode": the valid mode nearest to the choice (free variables
// prefer false), found from the invariants (modes.js).
function pickValidMode() {
  if (!state.analysis || !state.invariants) return;
  const prefer = {};
  for (const [k, v] of state.choice) prefer[k] = v === 'true';
  const near = state.invariants.nearest(prefer);
  if (near === null) {
    setStatus(state.invariants.readable ? 'No valid mode: the invariants exclude every mode.'
      : 'The invariants could not be read here: choose a mode by hand (session/mode says whether it is valid).', true);
    return;
  }
  chooseCube(near);
}

function filterModeControls() {
  const f = $('mode-filter').value.trim().toLowerCase();
  for (const fs of $('mode-controls').querySelectorAll('fieldset')) fs.hidden = f !== '' && !fs.dataset.var.toLowerCase().includes(f);
}

function setAll(val) {
  for (const v of state.choice.keys()) state.choice.set(v, val);
  syncControls();
  stats.modeChangeAt = performance.now();
  updateMode();
}

function chooseCube(c) {
  for (const v of state.choice.keys()) state.choice.set(v, v in c ? String(c[v]) : 'false');
  syncControls();
  stats.modeChangeAt = performance.now();
  updateMode();
}

function syncControls() {
  for (const fs of $('mode-controls').querySelectorAll('fieldset')) {
    const val = state.choice.get(fs.dataset.var);
    for (const input of fs.querySelectorAll('input')) input.checked = input.value === val;
  }
}

// The chosen mode as {var: bool}, or null while a variable is left free.
function chosenMode() {
  const mode = {};
  for (const [k, v] of state.choice) {
    if (v === 'either') return null;
    mode[k] = v === 'true';
  }
  return mode;
}

// A cube is compatible with a partial choice if no fixed variable contradicts it.
function compatible(cubes) {
  return cubes.some((c) => Object.entries(c).every(([k, b]) => {
    const ch = state.choice.get(k);
    return ch === undefined || ch === 'either' || ch === String(b);
  }));
}

let modeSeq = 0;
let offsetsOpen = false;
async function updateMode() {
  const a = state.analysis;
  if (!a) return;
  const seq = ++modeSeq;
  changes.fromChanged();
  const free = [...state.choice.values()].filter((v) => v === 'either').length;
  let blocks, edges;
  // The guards of the analysis give the highlight at once (a block is active
  // in a mode iff its guard holds there); session/mode then brings the
  // verdict, offsets and solving order, and its blocks replace the guess
  // (a disagreement is counted in data-mismatches: the browser test fails on it).
  // The cubes are exact on the valid modes only: in a mode the invariants
  // exclude, nothing is active.
  const excluded = free === 0 && state.invariants && state.invariants.valid(chosenMode()) === false;
  const guess = excluded ? [] : a.blocks.filter((b) => compatible(b.cubes));
  const guessIds = new Set(guess.map((b) => b.id));
  const guessEdges = new Set(a.edges.filter((e) => guessIds.has(e.from) && guessIds.has(e.to) && compatible(e.cubes))
    .map((e) => `${e.from}->${e.to}`));
  graph.highlight(guessIds, guessEdges);
  if (stats.modeChangeAt !== undefined) stats.modeHighlightMs = performance.now() - stats.modeChangeAt;
  if (free === 0) {
    const mode = chosenMode();
    let r;
    const t0 = performance.now();
    try {
      r = await call('session/mode', { session: state.session, mode });
      stats.modeRpcMs = performance.now() - t0;
    } catch (e) {
      if (seq === modeSeq) setStatus(`session/mode: ${e.message}`, true);
      return;
    }
    if (seq !== modeSeq || a !== state.analysis) return;
    state.modeResult = r;
    blocks = new Set(r.blocks.map((b) => b.id));
    edges = modeEdges(r);
    if (blocks.size !== guessIds.size || [...blocks].some((id) => !guessIds.has(id))) {
      console.warn('session/mode and the guards disagree on the active blocks');
      bump('mismatches');
    }
    renderModeView(r);
    graph.highlight(blocks, edges);
  } else {
    state.modeResult = null;
    blocks = guessIds;
    edges = guessEdges;
    renderPartialView(free, guess);
  }
  state.activeBlocks = blocks;
  state.activeEdges = edges;
  if (stats.modeChangeAt !== undefined) stats.modeSwitchMs = performance.now() - stats.modeChangeAt;
  stats.modeChangeAt = undefined;
  if (state.selected !== null) renderNeighbourhood(state.selected);
  bump('modes');
}

// session/mode's edges as "from->to" of block ids: each edge [i, j] gives
// POSITIONS in its solving-order "blocks" (protocol/rpc_json.h), not ids.
function modeEdges(r) {
  return new Set(r.edges.map(([f, t]) => `${r.blocks[f].id}->${r.blocks[t].id}`));
}

function renderModeView(r) {
  const box = $('mode-view');
  const verdict = !r.valid ? el('span', { class: 'status-singular', text: 'not a valid mode (an invariant excludes it)' })
    : r.singular ? el('span', { class: 'status-singular', text: 'structurally singular' })
      : el('span', { class: 'status-nonsingular', text: 'valid, nonsingular' });
  const head = [el('p', {}, 'This mode: ', verdict)];
  const kids = [];
  if (r.singular) {
    const nameButtons = (list, kind) => list.map((n) => el('button', {
      type: 'button', onclick: () => { const w = locate({ [kind]: n }); if (w) editor.select([w]); },
    }, n));
    head.push(el('p', {}, 'overdetermined equations: ', ...nameButtons(r.overdetermined, 'equation')));
    head.push(el('p', {}, 'underdetermined variables: ', ...nameButtons(r.underdetermined, 'variable')));
    kids.push(el('p', { class: 'muted', text: 'No block triangular form: the mode is singular.' }));
  }
  if (!r.valid) kids.push(el('p', { class: 'muted', text: 'No blocks: the mode is not valid.' }));
  if (r.valid && !r.singular) {
    const eqs = r.equations.filter((e) => e.active);
    const vars = r.variables.filter((v) => v.active);
    const table = (rows, head) => el('table', { class: 'offsets' },
      el('tr', {}, el('th', { text: head[0] }), el('th', { text: head[1] })),
      ...rows.map((x) => el('tr', {}, el('td', { text: x.name }), el('td', { text: String(x.offset) }))));
    // Built when opened: a thousand rows each would slow every mode switch.
    const det = el('details', {}, el('summary', { text: `Offsets: c of ${eqs.length} equations, d of ${vars.length} variables` }));
    det.addEventListener('toggle', () => {
      if (det.open && det.children.length === 1) {
        det.append(el('div', { style: 'display:flex;gap:16px;align-items:flex-start' }, table(eqs, ['equation', 'c']), table(vars, ['variable', 'd'])));
      }
    });
    det.open = offsetsOpen;
    det.addEventListener('toggle', () => { offsetsOpen = det.open; });
    kids.push(det);
    kids.push(el('p', { text: `Blocks in solving order (${r.blocks.length}; click one to select its equations):` }));
    kids.push(blockList(r.blocks));
  }
  $('mode-verdict').replaceChildren(...head);
  box.replaceChildren(...kids);
}

function renderPartialView(free, on) {
  const n = state.choice.size;
  $('mode-verdict').replaceChildren(
    el('p', { text: `${free} of ${n} mode variables left free (2^${free} modes). Fix every one (T or F) for the per-mode view: validity, singular parts, offsets, blocks in solving order. The graph highlights the ${on.length} blocks that exist in at least one of these modes.` }));
  $('mode-view').replaceChildren(
    el('p', { text: `The ${on.length} blocks that exist in some of the chosen modes (in the analysis' order):` }),
    blockList(on),
  );
}

// The blocks as a list of buttons; one of them takes the Tab key (the
// selected block's, else the first), the arrow keys move between them.
function blockList(blocks) {
  const ol = el('ol', { class: 'blocks', start: '0' });
  for (const b of blocks) {
    const li = el('li', { 'data-block': String(b.id) }, el('button', { type: 'button', onclick: () => selectBlock(b.id) },
      `${names(b.equations)} → ${names(b.unknowns)}`, b.reads.length ? `  reads ${names(b.reads)}` : '', `  [b${b.id}]`));
    if (b.id === state.selected) li.classList.add('selected');
    ol.append(li);
  }
  roving(ol, 'button', ol.querySelector('li.selected button'));
  return ol;
}

// ---- Blocks: selection and neighbourhood -----------------------------------------------

function selectBlock(id) {
  const a = state.analysis;
  if (!a) return;
  const b = a.blocks.find((x) => x.id === id);
  if (!b) return;
  state.selected = id;
  const ranges = b.equations.map((e) => state.structure && state.structure.equations.get(e.name)).filter(Boolean).map(rangeOf);
  editor.select(ranges, { keepFocus: true });
  for (const li of document.querySelectorAll('.blocks li')) li.classList.toggle('selected', Number(li.dataset.block) === id);
  renderNeighbourhood(id);
}

function renderNeighbourhood(id) {
  const a = state.analysis;
  const b = a && a.blocks.find((x) => x.id === id);
  if (!b) { $('neighbourhood').replaceChildren(); return; }
  const into = a.edges.filter((e) => e.to === id);
  const out = a.edges.filter((e) => e.from === id);
  const near = new Set([...into.map((e) => e.from), ...out.map((e) => e.to)]);
  graph.select(id, near);
  const active = (e) => !state.activeEdges || state.activeEdges.has(`${e.from}->${e.to}`);
  const link = (k, e) => el('li', {}, el('button', { type: 'button', onclick: () => selectBlock(k) }, `b${k}`),
    ' when ', el('code', { text: e.guard }), active(e) ? ' (active in the chosen modes)' : '');
  $('neighbourhood').replaceChildren(
    el('h3', { text: `Block b${id}` }),
    el('p', {}, 'exists when ', el('code', { text: b.guard }), '; solves ', el('code', { text: names(b.equations) }),
      ' for ', el('code', { text: names(b.unknowns) }), b.reads.length ? ', reads ' : '', b.reads.length ? el('code', { text: names(b.reads) }) : null),
    bodiesOf(b),
    el('div', { class: 'hood-wrap' }, drawNeighbourhood(a, id, active, (k) => selectBlock(k))),
    el('details', {}, el('summary', { text: `needs ${into.length}, feeds ${out.length} (as a list)` }),
      el('p', { text: `needs (${into.length}):` }), el('ul', {}, ...into.map((e) => link(e.from, e))),
      el('p', { text: `feeds (${out.length}):` }), el('ul', {}, ...out.map((e) => link(e.to, e)))),
  );
}

// The block's differentiated equations (order > 0) with their bodies as the
// analysis gives them ("body", issue 38), or null when it has none.
function bodiesOf(b) {
  const diff = b.equations.filter((e) => e.body);
  if (diff.length === 0) return null;
  return el('div', { class: 'bodies' },
    el('p', { text: diff.length === 1 ? 'differentiated equation:' : 'differentiated equations:' }),
    el('ul', {}, ...diff.map((e) => el('li', {}, el('code', { text: `${names([e])}:  ${e.body}` })))));
}

// ---- The graph -----------------------------------------------------------------------

async function drawGraph(run) {
  const a = state.analysis;
  const gr = ++state.graphRun;
  const note = $('graph-note');
  if (!$('show-graph').checked) { graph.clear('Drawing is off.'); note.textContent = ''; return; }
  if (a.blocks.length === 0) { graph.clear('No blocks (the model is singular in every mode, or empty).'); note.textContent = ''; return; }
  if (a.blocks.length > GRAPH_MAX_BLOCKS && !state.forceGraph) {
    graph.clear();
    $('graph').append(el('p', {},
      `${a.blocks.length} blocks and ${a.edges.length} edges are too many to draw legibly: the mode panel lists the blocks of the chosen mode, and a click on one shows its neighbourhood below. `,
      el('button', { type: 'button', onclick: () => { state.forceGraph = true; drawGraph(state.run).then(() => updateMode()); } }, 'Draw it anyway')));
    note.textContent = '';
    return;
  }
  note.textContent = 'laying out…';
  delete stats.graphLayoutMs; delete stats.graphDrawMs; delete stats.graphMs;
  const t0 = performance.now();
  let svg;
  try {
    svg = await call('session/svg', { session: state.session }, { signal: state.abort.signal });
  } catch (e) {
    if (e.name === 'AbortError' || gr !== state.graphRun) return;
    graph.clear(`No drawing: ${e.message}`);
    note.textContent = '';
    return;
  }
  if (run !== state.run || gr !== state.graphRun) return;
  const t1 = performance.now();
  graph.set(svg, a);
  if (state.activeBlocks) graph.highlight(state.activeBlocks, state.activeEdges);
  // Layout time is the server's; drawing is the browser parsing and painting.
  await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  stats.graphLayoutMs = t1 - t0;
  stats.graphDrawMs = performance.now() - t1;
  stats.graphMs = performance.now() - t0;
  note.textContent = `${a.blocks.length} blocks, ${a.edges.length} edges; laid out by Graphviz in ${(stats.graphLayoutMs / 1000).toFixed(2)} s, drawn in ${(stats.graphDrawMs / 1000).toFixed(2)} s`;
  bump('graphs');
}

// Search by name: mark the blocks found; Enter brings the next into view
// and selects it.
function findBlocks(step) {
  const q = $('graph-search').value;
  const found = graph.find(q, state.analysis);
  if (q.trim() !== '') $('graph-note').textContent = `${found.length} block${found.length === 1 ? '' : 's'} contain "${q.trim()}"`;
  if (step) {
    const id = graph.next();
    if (id !== null) { selectBlock(id); graph.focusBlock(id); $('graph-search').focus(); }
  }
}

function modelName() {
  const base = fileName.replace(/\.[^.]*$/, '');
  return base || 'model';
}

function download(blob, name) {
  const a = el('a', { href: URL.createObjectURL(blob), download: name });
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}

async function exportGraph(kind) {
  if (!graph.svg) { setStatus('No drawing to export.', true); return; }
  const name = `${modelName()}-graph.${kind}`;
  try {
    const blob = kind === 'svg' ? new Blob([graph.svgText()], { type: 'image/svg+xml' }) : await graph.pngBlob();
    if (!blob) throw new Error('the browser made no image');
    download(blob, name);
    setStatus(`Exported ${name}.`);
  } catch (e) {
    setStatus(`Export failed: ${e.message}`, true);
  }
}

// ---- Start -------------------------------------------------------------------------------

function wire() {
  $('examples').addEventListener('change', (e) => openExample(e.target.value));
  $('open').addEventListener('click', () => $('file').click());
  $('file').addEventListener('change', (e) => { if (e.target.files[0]) readFile(e.target.files[0]); e.target.value = ''; });
  $('format').addEventListener('change', () => analyse({ changed: true }));
  $('defines').addEventListener('change', () => analyse({ changed: true }));
  $('analyze').addEventListener('click', () => analyse());
  $('share').addEventListener('click', () => share());
  $('token-form').addEventListener('submit', (e) => {
    e.preventDefault();
    setToken($('token').value.trim());
    $('token').value = '';
    state.session = null; // opened under no token, if at all
    analyse();
  });
  $('mode-false').addEventListener('click', () => setAll('false'));
  $('mode-valid').addEventListener('click', () => pickValidMode());
  $('mode-either').addEventListener('click', () => setAll('either'));
  $('mode-filter').addEventListener('input', filterModeControls);
  $('zoom-in').addEventListener('click', () => graph.zoom(1.25));
  $('zoom-out').addEventListener('click', () => graph.zoom(0.8));
  $('zoom-fit').addEventListener('click', () => graph.fit());
  $('graph-search').addEventListener('input', () => findBlocks(false));
  $('graph-search').addEventListener('keydown', (e) => { if (e.key === 'Enter') { e.preventDefault(); findBlocks(true); } });
  $('export-svg').addEventListener('click', () => exportGraph('svg'));
  $('export-png').addEventListener('click', () => exportGraph('png'));
  $('rimis-guard').addEventListener('change', () => { if (state.analysis) simCode.update(state.session); });
  $('show-graph').addEventListener('change', () => { if (state.analysis) drawGraph(state.run).then(() => updateMode()); });
  const pane = $('editor');
  pane.addEventListener('dragover', (e) => { e.preventDefault(); pane.classList.add('drop'); });
  pane.addEventListener('dragleave', () => pane.classList.remove('drop'));
  pane.addEventListener('drop', (e) => {
    e.preventDefault();
    pane.classList.remove('drop');
    const f = e.dataTransfer.files[0];
    if (f) readFile(f);
  });
  // The test and curious users: the state behind the page.
  window.mdae = { state, graph, editor, changes, singleMode, simCode, analyse, selectBlock, stats, loadText, modeEdges };
}

function showVersion() {
  call('server/status', {}).then((s) => { $('version').textContent = s.version; }).catch(() => {});
}

// Sessions opened over HTTP outlive the page (they expire when idle): close
// ours when the page goes away.
function closeOnLeave() {
  addEventListener('pagehide', () => {
    saveModel();
    if (state.session) {
      // keepalive: the request outlives the page, with the token's header
      // (a beacon cannot carry one).
      fetch('rpc', {
        method: 'POST', keepalive: true, headers: rpcHeaders(state.session),
        body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'session/close', params: { session: state.session } }),
      }).catch(() => {});
    }
  });
}

async function start() {
  wire();
  closeOnLeave();
  // Interactive: the editor and every control answer from here on (the
  // first model is still on its way).
  stats.interactiveMs = performance.now(); // since navigation started
  showVersion();
  loadExamples();
  let model = null;
  if (location.hash.length > 1) {
    try { model = await decodeModel(location.hash.slice(1)); } catch { setStatus('The link\'s model could not be read.', true); }
  }
  const kept = model ? null : savedModel();
  if (model) {
    loadText(model.text, '', model.format, model.defines);
  } else if (kept) {
    loadText(kept.text, kept.name || '', kept.format || 'auto', kept.defines || '');
  } else {
    const res = await fetch('models/rldc2.mel').catch(() => null);
    loadText(res && res.ok ? await res.text() : 'x : real;\ne : equation der(x) = x;\n', 'rldc2.mel');
  }
  stats.modelLoadedMs = performance.now();
  document.body.dataset.ready = '1';
}

start();
