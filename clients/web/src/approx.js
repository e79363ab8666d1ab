// mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
// clients/web/src/approx.js -- the page's "Single-mode tools" panel (issue 38,
// item 6): what a tool that analyses one mode-agnostic structure, as
// OpenModelica and Dymola do (RR-9459 section 3.1), makes of the model,
// compared with the exact all-modes analysis: session/approx's findings.
//
// One row per finding: its kind (a pivot that is zero in some modes, offsets
// that differ from the exact ones, modes the tool accepts though they are
// singular, or a model it refuses though some modes are solvable), the equation and unknown, the pivot as printed from the
// equation, the modes (formula) and how many valid modes that is. A click on
// a row selects the finding's equation (else its unknown) in the editor, as
// the Diagnostics panel does; a click on the modes makes the first of them
// the Mode panel's choice.
//
// The panel owns nothing of the analysis: the page calls update(session)
// after each analysis and clear() after a failure. data-approx on <body>
// counts the results shown (the browser test waits on it); a superseded
// answer is dropped (the seq counter).

import { call } from './rpc.js';
import { el, roving } from './dom.js';
import { countOf, plural as counted } from './counts.js';

const MAX_ROWS = 200; // rows drawn; the rest are counted

const KIND_TEXT = {
  pivot: 'zero pivot',
  offsets: 'wrong offsets',
  singular: 'accepts a singular mode',
  refused: 'refuses a solvable model',
};

function bump(name) {
  const d = document.body.dataset;
  d[name] = String(Number(d[name] || 0) + 1);
}


export class SingleModeTools {
  // box: the panel's container. opts.locate({equation?, variable?, range?})
  // -> an editor range or null; opts.select(range) selects it;
  // opts.chooseMode(cube) makes a mode the Mode panel's choice.
  constructor(box, opts) {
    this.box = box;
    this.opts = opts;
    this.seq = 0;
    this.result = null;
    this.clear();
  }

  clear(note = '') {
    this.seq++;
    this.result = null;
    this.box.replaceChildren(el('p', { class: 'muted', text: note || 'Analyse a model to see what a single-mode tool makes of it.' }));
  }

  // After an analysis of `session`: ask session/approx and show it.
  async update(session) {
    const seq = ++this.seq;
    let r;
    try {
      r = await call('session/approx', { session });
    } catch (e) {
      if (seq !== this.seq) return;
      this.result = null;
      this.box.replaceChildren(el('p', { class: 'muted', text: `No single-mode analysis: ${e.message}` }));
      bump('approx');
      return;
    }
    if (seq !== this.seq) return;
    this.result = r;
    this.render(r);
    bump('approx');
  }

  render(r) {
    const findings = r.findings || [];
    const wrong = r.wrong_modes || { formula: 'false', count: 0 };
    const head = el('p', { id: 'approx-verdict' });
    if (findings.length === 0) {
      head.append(r.accepted
        ? 'A single-mode analysis, as Modelica tools do, is right in every valid mode.'
        : 'A single-mode analysis, as Modelica tools do, rejects the model (as the exact analysis does in every mode).');
    } else {
      head.append(
        el('span', { class: 'status-singular', text: `Wrong in ${counted(countOf(wrong, 'count'), 'valid mode')}` }),
        ` of ${countOf(r, 'valid_modes')}: `, el('code', { class: 'formula', text: wrong.formula }),
        r.accepted ? ' — the tool accepts the model and fails at run time there.' : '.');
    }
    const kids = [head];
    if (findings.length > 0) kids.push(this.table(findings));
    this.box.replaceChildren(...kids);
    roving(this.box, 'table button'); // one tab stop for the table
  }

  table(findings) {
    const rows = findings.slice(0, MAX_ROWS).map((f, i) => this.row(f, i));
    const t = el('table', { class: 'approx', id: 'approx-findings' },
      el('tr', {}, ...['kind', 'equation → unknown', 'pivot', 'modes', 'count'].map((h) => el('th', { text: h }))),
      ...rows);
    if (findings.length > MAX_ROWS) {
      t.append(el('tr', {}, el('td', { colspan: '5', class: 'muted', text: `… ${findings.length - MAX_ROWS} more` })));
    }
    return t;
  }

  row(f, i) {
    const where = this.opts.locate({ range: f.where || null, equation: f.equation, variable: f.variable });
    const who = [f.equation, f.variable].filter(Boolean).join(' → ') || '—';
    const target = el('button', { type: 'button', class: 'name', title: f.message || '' }, who);
    if (where) {
      target.dataset.from = String(where.from);
      target.dataset.to = String(where.to);
      target.addEventListener('click', () => this.opts.select(where));
    }
    const modes = f.modes || { formula: '', cubes: [] };
    const modeBtn = el('button', { type: 'button', class: 'name', title: 'choose the first of these modes' }, modes.formula);
    if (modes.cubes && modes.cubes.length) modeBtn.addEventListener('click', () => this.opts.chooseMode(modes.cubes[0]));
    return el('tr', { class: `approx-${f.kind}`, 'data-finding': String(i) },
      el('td', { text: KIND_TEXT[f.kind] || f.kind }),
      el('td', {}, target),
      el('td', {}, f.pivot ? el('code', { text: f.pivot }) : ''),
      el('td', {}, modeBtn),
      el('td', { text: countOf(f, 'count') }));
  }
}
