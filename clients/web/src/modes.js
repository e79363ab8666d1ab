// mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
// clients/web/src/modes.js -- which modes are valid, on the page (issue 42).
//
// The analysis gives every set exact ON THE VALID MODES only (invalid modes
// are don't-cares, engine/sa.h sa_result_report): a block whose cubes say
// `true` is not active in an invalid mode. Validity itself is the model's
// invariants, which session/structure gives as formulas
// (mel_guard_format: !, &, |, parentheses, true, false and mode-variable
// names, a name with spaces in parentheses). This module reads those
// formulas (Invariants), says whether a mode satisfies them (valid), and
// finds a valid mode near a chosen one (nearest): a depth-first search over
// the mode variables that tries each variable's current value first and
// prunes with a three-valued evaluation, bounded by a step budget.
//
// Nothing here talks to mdaed; session/mode stays the authority (the page
// checks what it says).

// A formula's parse tree: {k:'var', i} | {k:'const', v} | {k:'not', a} |
// {k:'and'|'or', a, b}. names: the mode variables, in the analysis' order.
function parse(text, names) {
  // Longest name first, so "a.b" is not read as "a" followed by ".b".
  const byLength = names.map((n, i) => [n, i]).sort((x, y) => y[0].length - x[0].length);
  let pos = 0;
  const ws = () => { while (pos < text.length && /\s/.test(text[pos])) pos++; };
  const word = (w) => text.startsWith(w, pos) && !/[\w.[\]]/.test(text[pos + w.length] || '');
  function atom() {
    ws();
    for (const [n, i] of byLength) {
      if (word(n)) { pos += n.length; return { k: 'var', i }; }
    }
    if (text[pos] === '!') { pos++; return { k: 'not', a: atom() }; }
    if (text[pos] === '(') {
      pos++;
      const e = or();
      ws();
      if (text[pos] !== ')') throw new Error(`')' expected at ${pos}`);
      pos++;
      return e;
    }
    if (word('true')) { pos += 4; return { k: 'const', v: true }; }
    if (word('false')) { pos += 5; return { k: 'const', v: false }; }
    throw new Error(`cannot read "${text.slice(pos, pos + 20)}"`);
  }
  function and() {
    let e = atom();
    for (;;) { ws(); if (text[pos] !== '&') return e; pos++; e = { k: 'and', a: e, b: atom() }; }
  }
  function or() {
    let e = and();
    for (;;) { ws(); if (text[pos] !== '|') return e; pos++; e = { k: 'or', a: e, b: and() }; }
  }
  const e = or();
  ws();
  if (pos !== text.length) throw new Error(`unexpected "${text.slice(pos, pos + 20)}"`);
  return e;
}

// Three-valued evaluation: values[i] is true, false or undefined (free).
function ev(e, values) {
  switch (e.k) {
    case 'var': return values[e.i];
    case 'const': return e.v;
    case 'not': { const a = ev(e.a, values); return a === undefined ? undefined : !a; }
    case 'and': {
      const a = ev(e.a, values);
      if (a === false) return false;
      const b = ev(e.b, values);
      if (b === false) return false;
      return a === true && b === true ? true : undefined;
    }
    default: { // or
      const a = ev(e.a, values);
      if (a === true) return true;
      const b = ev(e.b, values);
      if (b === true) return true;
      return a === false && b === false ? false : undefined;
    }
  }
}

const SEARCH_STEPS = 200000;

export class Invariants {
  // names: the mode variables; formulas: the invariants' guard strings.
  // A formula that cannot be read makes `readable` false (validity is then
  // unknown here, and the page asks session/mode).
  constructor(names, formulas) {
    this.names = names;
    this.trees = [];
    this.readable = true;
    for (const f of formulas) {
      try { this.trees.push(parse(f, names)); } catch { this.readable = false; }
    }
  }

  // mode: {name: bool}. true / false, or null when an invariant could not be read.
  valid(mode) {
    if (!this.readable) return null;
    const values = this.names.map((n) => mode[n] === true);
    return this.trees.every((t) => ev(t, values) === true);
  }

  // A valid mode near `prefer` ({name: bool}; missing names prefer false),
  // or null if there is none (or none within the step budget, or an
  // invariant could not be read).
  nearest(prefer) {
    if (!this.readable) return null;
    const n = this.names.length;
    const want = this.names.map((v) => prefer[v] === true);
    const values = new Array(n).fill(undefined);
    let steps = 0;
    const ok = () => this.trees.every((t) => ev(t, values) !== false);
    const dfs = (k) => {
      if (++steps > SEARCH_STEPS) return false;
      if (!ok()) return false;
      if (k === n) return true;
      for (const v of [want[k], !want[k]]) {
        values[k] = v;
        if (dfs(k + 1)) return true;
      }
      values[k] = undefined;
      return false;
    };
    if (!dfs(0)) return null;
    return Object.fromEntries(this.names.map((v, i) => [v, values[i]]));
  }
}
