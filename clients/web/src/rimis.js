// mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
// clients/web/src/rimis.js -- the page's "Simulation code" panel (issue 39,
// item 5): the Reduced-Index Mode-Independent Structure of the model
// (RR-9459 section 4), flat Modelica that OpenModelica and Dymola simulate
// correctly in every mode, as session/rimis generates it.
//
// Shows the counts (blocks, replicates, multiplexers, reinits, lines), a
// Download button (NAME.mo, NAME the generated model's), the warnings, and
// the text, read-only and monospace, with each block's header comment
// (`// Block cond: reads -- equations -> unknowns`) and the section
// comments set off. A refusal (singular modes, an impulsive mode change,
// ...) is listed as the Diagnostics panel lists errors: a click selects
// the located source in the editor.
//
// Never blank while the model is edited: an edit, a failed analysis or a
// refusal keeps the last text generated, marked stale (class "stale", a
// note saying why), until a new one replaces it. The panel owns nothing of
// the analysis: the page calls update(session) after each analysis,
// stale(why) when the text it showed no longer matches the editor's.
// data-rimis on <body> counts the answers shown (the browser test waits on
// it); a superseded answer is dropped (the seq counter).

import { call } from './rpc.js';
import { el } from './dom.js';

const HIGHLIGHT_MAX_LINES = 20000; // above: one text node, no per-line spans

function bump(name) {
  const d = document.body.dataset;
  d[name] = String(Number(d[name] || 0) + 1);
}

function plural(n, word) { return `${n} ${word}${n === 1 ? '' : 's'}`; }

// The text as lines, comments in spans: block headers (class rimis-block)
// and other comments (rimis-comment) stand out from the equations.
function codeOf(text) {
  const pre = el('pre', { class: 'rimis-code', id: 'rimis-code', tabindex: '0', 'aria-label': 'generated Modelica (read-only)' });
  const lines = text.split('\n');
  if (lines.length > HIGHLIGHT_MAX_LINES) { pre.textContent = text; return pre; }
  let plain = [];
  const flush = () => { if (plain.length) { pre.append(plain.join('\n') + '\n'); plain = []; } };
  lines.forEach((l, i) => {
    const m = /^\s*\/\//.test(l);
    if (!m) { plain.push(l); return; }
    flush();
    const cls = /^\s*\/\/ Block\b/.test(l) ? 'rimis-block' : 'rimis-comment';
    pre.append(el('span', { class: cls, text: l }), i + 1 < lines.length ? '\n' : '');
  });
  if (plain.length) pre.append(plain.join('\n'));
  return pre;
}

export class SimulationCode {
  // box: the panel's container. opts.locate(diagnostic) -> an editor range
  // {from, to, line} or null; opts.select(range) selects it; opts.guard() -> whether
  // section 4.7's guards are on (the panel's checkbox, default on).
  constructor(box, opts) {
    this.box = box;
    this.opts = opts;
    this.seq = 0;
    this.result = null;     // the last text generated (kept while stale)
    this.refusal = null;    // the last refusal's diagnostics, or null
    this.staleWhy = '';     // why what is shown is out of date ('' : it is not)
    this.refusalStale = false; // the refusal is an older text's too
    this.render();
  }

  // After an analysis of `session`: ask session/rimis and show it.
  async update(session) {
    const seq = ++this.seq;
    let r;
    try {
      r = await call('session/rimis', { session, guard: this.opts.guard() });
    } catch (e) {
      if (seq !== this.seq) return;
      const diags = e.data && Array.isArray(e.data.diagnostics) && e.data.diagnostics.length
        ? e.data.diagnostics : [{ severity: 'error', message: e.message }];
      this.refusal = { message: e.message, diags };
      this.refusalStale = false;
      // the last code generated stays below the refusal, marked stale
      this.staleWhy = this.result ? 'the current text is refused' : '';
      this.render();
      bump('rimis');
      return;
    }
    if (seq !== this.seq) return;
    this.result = r;
    this.refusal = null;
    this.staleWhy = '';
    this.render();
    bump('rimis');
  }

  // The text shown no longer matches the editor's (an edit, a failure).
  stale(why) {
    this.seq++; // an answer on its way is for an older text
    if (!this.result && !this.refusal) return;
    this.staleWhy = why;
    this.refusalStale = Boolean(this.refusal);
    this.render();
  }

  render() {
    const kids = [];
    // the note goes above what it is about: everything when the refusal is
    // old too, else the code under a current refusal
    const note = () => el('p', { class: 'stale-note', id: 'rimis-stale', text: `Out of date (${this.staleWhy}): what follows is for an earlier text.` });
    if (this.staleWhy && (this.refusalStale || !this.refusal)) kids.push(note());
    if (this.refusal) kids.push(this.refusalView(this.refusal));
    if (this.result) kids.push(this.resultView(this.result, this.staleWhy && this.refusal && !this.refusalStale ? note() : null));
    if (kids.length === 0) kids.push(el('p', { class: 'muted', text: 'Analyse a model to generate its simulation code.' }));
    // #rimis.stale: the code shown is not the current text's (the test's
    // and the style's hook); a current refusal above it is not greyed
    this.box.classList.toggle('stale', Boolean(this.staleWhy));
    this.box.replaceChildren(...kids);
  }

  refusalView(ref) {
    const ul = el('ul', { class: 'diags', id: 'rimis-refusal' });
    for (const d of ref.diags) {
      const where = this.opts.locate(d);
      const sev = d.severity || 'error';
      const btn = el('button', { type: 'button', class: `sev-${sev}` },
        el('span', { text: `${sev}: ${d.message || ref.message}` }),
        el('span', { class: 'where', text: where ? `  line ${where.line}` : '  (no location)' }));
      if (where) {
        btn.dataset.from = String(where.from);
        btn.dataset.to = String(where.to);
        btn.addEventListener('click', () => this.opts.select(where));
      }
      ul.append(el('li', {}, btn));
    }
    return el('div', { class: this.refusalStale ? 'rimis-old' : '' },
      el('p', { class: 'error', text: 'No simulation code: RIMIS cannot represent this model.' }), ul);
  }

  resultView(r, note) {
    const name = r.name || 'Model_rimis';
    const blocks = (r.groups || []).length;
    const counts = el('p', { id: 'rimis-counts' },
      el('code', { text: name }), ': ',
      `${plural(blocks, 'block')}, ${plural(r.replicates || 0, 'replicate')}, `,
      `${plural(r.multiplexers || 0, 'multiplexer')}, ${plural(r.reinits || 0, 'reinit')}; `,
      `${plural(r.lines || 0, 'line')} `,
      el('button', { type: 'button', id: 'rimis-download', title: `Save as ${name}.mo`, onclick: () => this.download() }, `Download ${name}.mo`));
    const kids = [note, counts];
    const old = Boolean(this.staleWhy);
    const warnings = r.warnings || [];
    if (warnings.length) {
      kids.push(el('details', {}, el('summary', { text: plural(warnings.length, 'warning') }),
        el('ul', { class: 'diags' }, ...warnings.map((w) => this.warningItem(w)))));
    }
    kids.push(codeOf(r.text || ''));
    return el('div', {}, ...kids.slice(0, 1), el('div', { class: old ? 'rimis-old' : '' }, ...kids.slice(1)));
  }

  warningItem(w) {
    const d = typeof w === 'string' ? { severity: 'warning', message: w } : w;
    const where = this.opts.locate(d);
    const btn = el('button', { type: 'button', class: 'sev-warning' },
      el('span', { text: `warning: ${d.message}` }),
      el('span', { class: 'where', text: where ? `  line ${where.line}` : '' }));
    if (where) btn.addEventListener('click', () => this.opts.select(where));
    return el('li', {}, btn);
  }

  download() {
    const r = this.result;
    if (!r) return;
    const url = URL.createObjectURL(new Blob([r.text], { type: 'text/x-modelica' }));
    const a = el('a', { href: url, download: `${r.name || 'Model_rimis'}.mo` });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  }
}
