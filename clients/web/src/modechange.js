// mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
// clients/web/src/modechange.js -- the page's "Mode changes" panel (issue 14,
// item 5; the analysis is issue 13's session/modechange and
// session/modechanges).
//
// The change starts from the mode chosen in the Mode panel (every mode
// variable fixed) and goes to the mode set here, one checkbox per mode
// variable (checked: true), which starts as the first one flipped. The
// result shows the status, each restart instant (erased equations, the
// restart system, what is known, the context, the over- and underdetermined
// parts), the impulsive values with their orders, the restart relations and
// the located notes; a click on an equation or a note selects it in the
// editor. "Every change" lists all ordered pairs of valid modes of a small
// model (the server enumerates them and refuses large models, saying so);
// a click on a row analyses that change.
//
// The panel owns nothing of the analysis: the page gives it the session,
// the chosen mode and a way to locate a name (ModeChanges constructor).
// data-changes on <body> counts the results shown (the browser test waits
// on it); results of a superseded request are dropped (the seq counter).

import { call, RpcError } from './rpc.js';
import { el, roving } from './dom.js';
import { countOf, plural } from './counts.js';

const MAX_ROWS = 200; // rows of "Every change" drawn; the rest are counted
const FOLD_CHARS = 300; // a longer formula is folded (its cubes are the table)
const MAX_CUBES = 100; // rows of a cube table drawn

// A formula, folded behind its first FOLD_CHARS characters when longer.
export function folded(text) {
  if (text === null || text === undefined) return el('code', { class: 'formula', text: '(a set too large to print)' });
  if (text.length <= FOLD_CHARS) return el('code', { class: 'formula', text });
  return el('details', { class: 'fold' },
    el('summary', {}, el('code', { class: 'formula', text: `${text.slice(0, 80)}…` }), ` (${text.length} characters)`),
    el('code', { class: 'formula', text }));
}

// A cube over the mode variables before (x) and after (x') the change.
function cubeText(c) {
  const ks = Object.keys(c);
  return ks.length === 0 ? 'any' : ks.map((k) => (c[k] ? k : `!${k}`)).join(' & ');
}

// The changes a cube of `vars` (before and after: 2 n variables) covers,
// as an exact decimal string: 2^(free variables).
function cubeCount(c, nVars) {
  return (2n ** BigInt(Math.max(0, 2 * nVars - Object.keys(c).length))).toString();
}

// x with k shifts: x, x•, x••, x•••, then x•^k (docs/mode_changes.md's notation).
export function shifted(v) {
  const k = v.shift || 0;
  return v.name + (k <= 3 ? '•'.repeat(k) : `•^${k}`);
}

function modeText(m) {
  const ks = Object.keys(m);
  return ks.length === 0 ? '(one mode)' : ks.map((k) => `${k}=${m[k] ? 'T' : 'F'}`).join(' ');
}

function bump(name) {
  const d = document.body.dataset;
  d[name] = String(Number(d[name] || 0) + 1);
}

// An impulsive value's order: exact, a range, or (orderMin null: no lower
// bound known) at most `order`.
function orderText(v) {
  if (v.orderMin === null || v.orderMin === undefined) return `order at most ${v.order}`;
  return v.orderMin === v.order ? `order ${v.order}` : `order ${v.orderMin}–${v.order}`;
}

export class ModeChanges {
  // box: the panel's container. opts.getSession() -> the session id or null;
  // opts.getFrom() -> {var: bool} when every mode variable is fixed, else
  // null; opts.select(kind, name) selects an equation or variable in the
  // editor; opts.selectRange(range) a diagnostic's range; opts.chooseFrom(mode)
  // makes a mode the Mode panel's choice.
  constructor(box, opts) {
    this.box = box;
    this.opts = opts;
    this.vars = [];
    this.to = new Map();
    this.seq = 0;
    this.last = null; // {from, to} of the result shown, refreshed on a new analysis
    this.toBox = el('div', { class: 'mode-controls change-to', role: 'group', 'aria-label': 'mode after the change' });
    this.fromLine = el('p', { class: 'muted' });
    this.runBtn = el('button', { type: 'button', id: 'change-run', onclick: () => this.run() }, 'Analyse the change');
    this.allBtn = el('button', { type: 'button', id: 'change-all', onclick: () => this.runAll() }, 'Every change');
    this.view = el('div', { id: 'change-view', 'aria-live': 'polite' });
    this.allView = el('div', { id: 'change-all-view' });
    box.replaceChildren(this.fromLine, el('p', { text: 'to the mode:' }), this.toBox,
      el('div', { class: 'mode-tools' }, this.runBtn, this.allBtn), this.view, this.allView);
    this.setModel([]);
  }

  // No analysis (a failure): nothing of the last model stays.
  clear(note) {
    this.vars = [];
    this.to = new Map();
    this.last = null;
    this.seq++;
    this.runBtn.disabled = true;
    this.allBtn.disabled = true;
    this.fromLine.textContent = note;
    this.toBox.replaceChildren();
    this.view.replaceChildren();
    this.allView.replaceChildren();
    this.from = null;
  }

  // A new analysis: its mode variables (the "to" choices are kept by name).
  setModel(vars) {
    const keep = this.to;
    this.vars = vars;
    this.to = new Map(vars.map((v) => [v, keep.has(v) ? keep.get(v) : null]));
    this.allView.replaceChildren();
    this.view.replaceChildren();
    this.fromChanged();
    if (this.last && vars.length) this.run(this.last.from, this.last.to);
  }

  // The Mode panel's choice changed: default "to" = that mode, first variable flipped.
  fromChanged() {
    const from = this.opts.getFrom();
    // A result about another starting mode is not this one's: cleared.
    const key = from === null ? null : JSON.stringify(from);
    if (key !== this.from) {
      if (this.last && JSON.stringify(this.last.from) !== key) {
        this.seq++;
        this.last = null;
        this.view.replaceChildren();
      }
      this.from = key;
    }
    const usable = this.vars.length > 0 && this.opts.getSession() !== null;
    this.runBtn.disabled = !usable || from === null;
    this.allBtn.disabled = !usable;
    if (this.vars.length === 0) {
      this.fromLine.textContent = 'No mode variables: the model has one mode and no mode changes.';
      this.toBox.replaceChildren();
      return;
    }
    if (from === null) {
      this.fromLine.textContent = 'From the mode chosen above: fix every mode variable (T or F) there to choose where the change starts.';
    } else {
      this.fromLine.replaceChildren('From the mode chosen above: ', el('code', { text: modeText(from) }));
      if ([...this.to.values()].some((v) => v === null)) {
        this.vars.forEach((v, i) => this.to.set(v, i === 0 ? !from[v] : from[v]));
      }
    }
    this.drawTo();
  }

  drawTo() {
    this.toBox.replaceChildren(...this.vars.map((v, i) => {
      const id = `to${i}`;
      const input = el('input', { type: 'checkbox', id, 'data-var': v });
      input.checked = this.to.get(v) === true;
      input.addEventListener('change', () => { this.to.set(v, input.checked); });
      return el('fieldset', { 'data-var': v }, el('legend', { title: v, text: v }), input,
        el('label', { for: id, text: 'true' }));
    }));
    roving(this.toBox, 'input'); // one tab stop; the arrow keys move, Space toggles
  }

  toMode() {
    const m = {};
    for (const [k, v] of this.to) m[k] = v === true;
    return m;
  }

  // One change (from and to default to the panel's choice).
  async run(from = this.opts.getFrom(), to = this.toMode()) {
    const session = this.opts.getSession();
    if (session === null || from === null) return;
    const seq = ++this.seq;
    this.view.replaceChildren(el('p', { class: 'muted', text: `Analysing ${modeText(from)} → ${modeText(to)}…` }));
    let r;
    try {
      r = await call('session/modechange', { session, from, to });
    } catch (e) {
      if (seq !== this.seq) return;
      this.last = null;
      this.view.replaceChildren(el('p', { class: 'error', text: e instanceof RpcError ? e.message : `mdaed: ${e.message}` }));
      bump('changes');
      return;
    }
    if (seq !== this.seq) return;
    this.last = { from, to };
    this.view.replaceChildren(...this.render(r));
    bump('changes');
  }

  render(r) {
    const out = [];
    const n = r.instants.length;
    const what = r.status === 'continuous' ? 'nothing erased: the new mode starts from the old state'
      : r.status === 'reset' ? `${n} restart instant${n === 1 ? '' : 's'}`
        : 'no consistent restart';
    out.push(el('p', { class: 'change-head' }, el('code', { text: `${modeText(r.from)} → ${modeText(r.to)}` }), ': ',
      el('span', { class: `change-${r.status}`, text: r.status }), ` (${what})`,
      r.ambiguous ? el('span', { class: 'muted', text: '; ambiguous: several erasures are equally preferred, one is shown' }) : null));
    if (r.transient) out.push(this.transient(r));
    for (const it of r.instants) out.push(this.instant(it));
    if (r.transient && r.status !== 'rejected') {
      out.push(el('p', { class: 'muted', text: 'No impulse analysis of the event (next(x) is recorded like der(x)).' }));
    } else if (r.impulsive.length) {
      out.push(el('p', {}, 'Impulsive: ', ...r.impulsive.map((v, i) => el('span', {}, i ? ', ' : '',
        this.nameButton('variable', v), ` (${orderText(v)}, instant ${v.instant}${v.certain ? '' : ', at most'})`))));
    } else if (r.status !== 'rejected') {
      out.push(el('p', { class: 'muted', text: 'No impulsive value.' }));
    }
    for (const s of r.resets) {
      if (s.eliminated && s.eliminated.length && !s.why) { // issue 41 item 8: the elimination done
        out.push(el('p', { class: 'reset' }, `Restart relation at instant ${s.instant}: `,
          `${s.eliminate.map(shifted).join(', ')} eliminated from `, ...this.list('equation', s.from),
          ...s.eliminated.map((e) => el('span', {}, el('br'), e.equation, e.standard ? ` (as dt → 0: ${e.standard})` : '')),
          s.conditions ? el('span', {}, el('br'), `where ${s.conditions}`) : ''));
        continue;
      }
      out.push(el('p', { class: 'reset' }, `Restart relation at instant ${s.instant}: `,
        s.eliminate.length ? `eliminate ${s.eliminate.map(shifted).join(', ')} from ` : 'from ',
        ...this.list('equation', s.from), ` (${s.relations} relation${s.relations === 1 ? '' : 's'} among ${s.among.map(shifted).join(', ')}${s.why ? `; not eliminated: ${s.why}` : ''})`));
    }
    if (r.diagnostics.length) {
      out.push(el('ul', { class: 'diags' }, ...r.diagnostics.map((d) => {
        const b = el('button', { type: 'button', class: `sev-${d.severity}` }, `${d.severity}: ${d.message}`);
        if (d.range) b.addEventListener('click', () => this.opts.selectRange(d.range));
        return el('li', {}, b);
      })));
    }
    return out;
  }

  // A change into a transient mode (a when-clause): the cascade through the event.
  transient(r) {
    const t = r.transient;
    const whens = t.whens.map((w) => `when ${w.condition}, line ${w.range.start.line}`).join('; ');
    const arr = t.maxDepth === null ? 'not analysed (the change is refused before the event)'
      : t.arrayDepth === null ? `no A_n, n ≤ ${t.maxDepth}, determines the event (underdetermined)`
        : `A_${t.arrayDepth} determines the event (${t.array.equations} equations, ${t.array.values} values)`;
    return el('p', { class: 'transient' }, `Transient mode (${whens}): one instant, then `,
      el('code', { text: modeText(t.back) }), `; difference array: ${arr}.`);
  }

  instant(it) {
    const box = el('div', { class: 'instant', 'data-instant': String(it.r) });
    const names = (kind, list) => (list.length ? this.list(kind, list) : [el('span', { class: 'muted', text: '(none)' })]);
    box.append(el('h3', { text: `Instant ${it.r}` }));
    box.append(el('p', {}, 'erased: ', ...names('equation', it.erased)));
    const sys = el('p', {}, `restart system (${it.equations.length} equations, `,
      el('span', { class: it.status === 'nonsingular' ? 'status-nonsingular' : 'status-singular', text: it.status }), '): ',
      ...names('equation', it.equations), ' → ', it.unknowns.map(shifted).join(', ') || '(none)');
    box.append(sys);
    box.append(el('p', { class: 'muted' }, `known: ${it.known.map(shifted).join(', ') || '(none)'}; context: ${it.context.map(shifted).join(', ') || '(none)'}`));
    if (it.overdetermined.length) box.append(el('p', {}, 'overdetermined: ', ...this.list('equation', it.overdetermined)));
    if (it.underdetermined.length) box.append(el('p', {}, `underdetermined: ${it.underdetermined.map(shifted).join(', ')}`));
    if (it.alternatives && it.alternatives.length) {
      box.append(el('p', { class: 'muted', text: `equally preferred erasures: ${it.alternatives.map((a) => a.map(shifted).join(', ')).join(' | ')}${it.alternativesTruncated ? ' | …' : ''}` }));
    }
    return box;
  }

  nameButton(kind, v) {
    return el('button', { type: 'button', class: 'name', title: `select ${v.name} in the editor`, onclick: () => this.opts.select(kind, v.name) }, shifted(v));
  }

  list(kind, vs) {
    const out = [];
    vs.forEach((v, i) => { if (i) out.push(', '); out.push(this.nameButton(kind, v)); });
    return out;
  }

  // Every ordered pair of valid modes (small models).
  async runAll() {
    const session = this.opts.getSession();
    if (session === null) return;
    const seq = ++this.seq;
    this.allView.replaceChildren(el('p', { class: 'muted', text: 'Analysing every change…' }));
    let r;
    try {
      r = await call('session/modechanges', { session });
    } catch (e) {
      if (seq !== this.seq) return;
      // Past the enumeration's limits: the first instant of every change, on BDDs.
      const first = e instanceof RpcError ? await call('session/modechanges', { session, first: true, erasures: true, instants: true }).catch(() => null) : null;
      if (seq !== this.seq) return;
      if (first !== null) this.showFirst(first, e.message);
      else this.allView.replaceChildren(el('p', { class: 'error', text: e instanceof RpcError ? e.message : `mdaed: ${e.message}` }));
      bump('changes');
      return;
    }
    if (seq !== this.seq) return;
    if (r.method === 'bdd') { // past the enumeration's limits, mdaed went on BDDs itself
      this.showFirst(r, r.enumerationSkipped);
      bump('changes');
      return;
    }
    const c = r.counts;
    const rows = r.changes.slice(0, MAX_ROWS).map((ch) => el('tr', { class: `change-${ch.status}` },
      el('td', {}, el('button', { type: 'button', title: 'analyse this change', onclick: () => this.pick(ch) }, `${modeText(ch.from)} → ${modeText(ch.to)}`)),
      el('td', { text: ch.status + (ch.ambiguous ? ' (ambiguous)' : '') }),
      el('td', { text: String(ch.instants) }),
      el('td', { text: ch.erased.map(shifted).join(', ') })));
    const classes = Object.entries(r.classes).filter(([, v]) => v.cubes.length)
      .map(([k, v]) => this.cubeTable(k, v, countOf(c, k)));
    const eqs = r.equations.map((e) => el('li', {}, this.nameButton('equation', e), ' is erased at the first instant when ',
      folded(e.erasedWhen.guard)));
    this.allView.replaceChildren(
      el('p', { class: 'all-head', text: `${plural(countOf(r, 'pairs'), 'change')} between ${plural(countOf(r, 'validModes'), 'valid mode')} (${r.method}): ${countOf(c, 'continuous')} continuous, ${countOf(c, 'reset')} reset, ${countOf(c, 'rejected')} rejected. Variables marked ⁺ are after the change (g⁺: g in the new mode).` }),
      ...classes, eqs.length ? el('ul', {}, ...eqs) : '',
      el('table', { class: 'offsets changes' },
        el('tr', {}, el('th', { text: 'change' }), el('th', { text: 'status' }), el('th', { text: 'instants' }), el('th', { text: 'erased at instant 0' })),
        ...rows),
      r.changes.length > MAX_ROWS ? el('p', { class: 'muted', text: `… ${r.changes.length - MAX_ROWS} more changes not listed` }) : '');
    bump('changes');
  }

  // session/modechanges {first: true, erasures: true, instants: true}: the
  // three classes of the first instants, which equations each erases, and
  // how every change ends (the brake at N = 100 in 0.22 s, the building at
  // N = 50 in 3.1 s: tests/bench/README.md).
  showFirst(f, why) {
    const c = f.counts;
    const classes = Object.entries(f.classes).filter(([k]) => c[k] > 0)
      .map(([k, v]) => this.cubeTable(k, v, countOf(c, k)));
    const erased = Array.isArray(f.erasures)
      ? f.erasures.map((e) => el('li', { class: 'first-erasure' }, this.nameButton('equation', e), ' is erased at the first instant when ',
        folded(e.guard), ` (${plural(countOf(e, 'pairs'), 'change')})`))
      : [el('li', { class: 'muted', text: `erased equations not computed: ${f.erasuresNotComputed ?? 'not asked'}` })];
    const ch = f.changes;
    const whole = ch
      ? [el('p', { class: 'whole-changes', text: `Every instant: ${countOf(ch.counts, 'continuous')} continuous, ${countOf(ch.counts, 'reset')} reset, ${countOf(ch.counts, 'rejected')} rejected.` }),
        el('ul', {}, ...ch.outcomes.map((o) => el('li', { class: 'change-outcome' }, `${o.status} after ${o.instants} instant${o.instants === 1 ? '' : 's'} (${plural(countOf(o, 'pairs'), 'change')}) when `,
          folded(o.guard))))]
      : [el('p', { class: 'muted', text: `later instants not computed: ${f.changesNotComputed ?? 'not asked'}` })];
    const ev = f.events;
    const events = ev
      ? [el('p', { class: 'events-enumerated', text: `Through when events (by enumeration, every instant, cascades included): ${ev.pairs} changes: ${ev.counts.continuous} continuous, ${ev.counts.reset} reset, ${ev.counts.rejected} rejected.` }),
        el('ul', {}, ...Object.entries(ev.classes).filter(([k]) => ev.counts[k] > 0)
          .map(([k, v]) => el('li', {}, `${k} when `, el('code', { class: 'formula', text: v.guard }))))]
      : f.whenClausesNotCovered
        ? [el('p', { class: 'muted events-not-covered', text: `Not covered: the changes through the transient modes of ${f.whenClausesNotCovered} when-clause${f.whenClausesNotCovered === 1 ? '' : 's'} (events)${f.eventsWhy ? ` (${f.eventsWhy})` : ''}; pick one change above to analyse it.` })]
        : [];
    this.allView.replaceChildren(
      el('p', { class: 'muted', text: why }),
      el('p', { class: 'first-instants', text: `The first instant of ${plural(countOf(f, 'pairs'), 'change')}, on BDDs: ${countOf(c, 'continuous')} continuous, ${countOf(c, 'restart')} need a restart, ${countOf(c, 'rejected')} rejected there. Variables marked ⁺ are after the change; pick one change above for its restart systems.` }),
      ...classes, el('ul', {}, ...erased), ...whole, ...events);
  }

  // A class of changes ({guard, cubes}) as a table: one row per cube with
  // the changes it covers, the whole formula folded below when long.
  cubeTable(name, v, count) {
    const nVars = this.vars.length;
    const rows = (v.cubes || []).slice(0, MAX_CUBES).map((cube) => el('tr', {},
      el('td', {}, el('code', { text: cubeText(cube) })), el('td', { class: 'num', text: cubeCount(cube, nVars) })));
    const more = v.cubes && v.cubes.length > MAX_CUBES ? el('p', { class: 'muted', text: `… ${v.cubes.length - MAX_CUBES} more cubes` }) : '';
    return el('div', { class: 'change-class', 'data-class': name },
      el('p', {}, el('span', { class: `change-${name === 'restart' ? 'reset' : name}`, text: name }), `: ${plural(count, 'change')}, ${plural(String((v.cubes || []).length), 'cube')}`),
      rows.length ? el('table', { class: 'offsets cubes-table' },
        el('tr', {}, el('th', { text: 'cube (⁺: after)' }), el('th', { text: 'changes in the cube' })), ...rows) : '',
      more, el('p', { class: 'muted' }, 'as a formula: ', folded(v.guard)));
  }

  // A row of "Every change": its modes become the panel's and the Mode panel's.
  pick(ch) {
    this.opts.chooseFrom(ch.from);
    for (const [k, v] of Object.entries(ch.to)) this.to.set(k, v);
    this.drawTo();
    this.run(ch.from, ch.to);
  }
}
