// mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
// clients/web/src/editor.js -- the model editor: CodeMirror 6 with line
// numbers, MEL and Modelica colouring, and selection of source ranges.
//
// MEL has no CodeMirror mode of its own: melLanguage below is a small
// stream tokenizer over the grammar of docs/languages.md (keywords, comments, numbers,
// der/last/pre). Modelica uses @codemirror/legacy-modes' modelica mode.

import { EditorState, EditorSelection, Compartment, StateField, StateEffect, RangeSet } from '@codemirror/state';
import {
  EditorView, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter,
  drawSelection, highlightSpecialChars, gutter, GutterMarker,
} from '@codemirror/view';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import {
  StreamLanguage, syntaxHighlighting, defaultHighlightStyle, bracketMatching,
} from '@codemirror/language';
import { searchKeymap, highlightSelectionMatches } from '@codemirror/search';
import { modelica } from '@codemirror/legacy-modes/mode/modelica';

const MEL_KEYWORDS = new Set([
  'real', 'boolean', 'integer', 'equation', 'invariant', 'if', 'then', 'else', 'end',
  'foreach', 'in', 'do', 'done', 'when',
]);
const MEL_BUILTINS = new Set(['der', 'last', 'pre', 'next']);
const MEL_ATOMS = new Set(['true', 'false']);

const melLanguage = StreamLanguage.define({
  name: 'mel',
  startState: () => ({ comment: false }),
  token(stream, state) {
    if (state.comment) {
      if (stream.skipTo('*/')) { stream.match('*/'); state.comment = false; } else stream.skipToEnd();
      return 'comment';
    }
    if (stream.eatSpace()) return null;
    if (stream.match('//')) { stream.skipToEnd(); return 'comment'; }
    if (stream.match('/*')) { state.comment = true; return 'comment'; }
    if (stream.match(/^\d+(\.\d*)?([eE][+-]?\d+)?/)) return 'number';
    const w = stream.match(/^[A-Za-z_][A-Za-z0-9_]*/);
    if (w) {
      const s = w[0];
      if (MEL_KEYWORDS.has(s)) return 'keyword';
      if (MEL_BUILTINS.has(s)) return 'builtin';
      if (MEL_ATOMS.has(s)) return 'atom';
      if (stream.match(/^\s*:/, false)) return 'def';
      return 'variableName';
    }
    if (stream.match(/^(<=|>=|==|<>|\.\.|[-+*/^<>=!&|])/)) return 'operator';
    stream.next();
    return null;
  },
  languageData: { commentTokens: { line: '//', block: { open: '/*', close: '*/' } } },
});
const modelicaLanguage = StreamLanguage.define(modelica);

// The language of a text (issue 42: the text first, so that a model pasted
// after an example of the other language is read as what it is): the Base
// Modelica header or Modelica's `model X ... end X;` shape is Modelica; MEL's
// `name : real;` / `name : equation` declarations are MEL; a text that
// shows neither goes by the file name it came from, else MEL.
export function textFormat(text) {
  const head = text.replace(/^\s+/, '');
  if (head.startsWith('//! base')) return 'modelica';
  if (/^\s*(?:(?:partial|encapsulated|operator)\s+)*(model|package|class|block|record|connector|function)\s+[A-Za-z_]/m.test(text) &&
      /^\s*end\s+[A-Za-z_][\w.]*\s*;/m.test(text)) return 'modelica';
  if (/^\s*[A-Za-z_][\w.]*(\[[^\]]*\])?\s*:\s*(real|boolean|integer|equation|invariant)\b/m.test(text)) return 'mel';
  return null;
}

export function guessFormat(text, fileName = '') {
  const t = textFormat(text);
  if (t) return t;
  if (/\.(mo|bmo)$/i.test(fileName)) return 'modelica';
  return 'mel';
}

// Gutter markers (issue 42): one per line with a diagnostic, the worst
// severity's; its title lists the line's messages.
class DiagMarker extends GutterMarker {
  constructor(severity, title) { super(); this.severity = severity; this.title = title; }
  eq(o) { return o.severity === this.severity && o.title === this.title; }
  toDOM() {
    const s = document.createElement('span');
    s.className = `cm-diag-marker sev-${this.severity}`;
    s.textContent = this.severity === 'error' ? '●' : '▲';
    s.title = this.title;
    return s;
  }
}
const setMarkers = StateEffect.define();
const markerField = StateField.define({
  create: () => RangeSet.empty,
  update(set, tr) {
    for (const e of tr.effects) if (e.is(setMarkers)) return e.value;
    return tr.docChanged ? set.map(tr.changes) : set;
  },
});
const diagGutter = gutter({ class: 'cm-diag-gutter', markers: (v) => v.state.field(markerField) });

export class Editor {
  constructor(parent, { onChange, onRun }) {
    this.lang = new Compartment();
    this.format = 'mel';
    this.view = new EditorView({
      parent,
      state: EditorState.create({
        doc: '',
        extensions: [
          lineNumbers(), highlightActiveLineGutter(), highlightSpecialChars(), history(),
          drawSelection(), EditorState.allowMultipleSelections.of(true), bracketMatching(),
          highlightActiveLine(),
          // Whole words of two characters or more: a selected `;` lit every `;`.
          highlightSelectionMatches({ minSelectionLength: 2, wholeWords: true }),
          syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
          keymap.of([
            { key: 'Mod-Enter', run: () => { onRun(); return true; } },
            // No indentWithTab: Tab must leave the editor (a keyboard user
            // would be trapped in it), and MEL needs no tab indentation.
            ...defaultKeymap, ...searchKeymap, ...historyKeymap,
          ]),
          this.lang.of(melLanguage),
          markerField, diagGutter,
          EditorView.updateListener.of((u) => { if (u.docChanged) onChange(); }),
          EditorView.contentAttributes.of({ 'aria-label': 'model text' }),
        ],
      }),
    });
  }

  text() { return this.view.state.doc.toString(); }

  setText(text) {
    this.view.dispatch({ changes: { from: 0, to: this.view.state.doc.length, insert: text } });
  }

  setFormat(format) {
    if (format === this.format) return;
    this.format = format;
    this.view.dispatch({ effects: this.lang.reconfigure(format === 'modelica' ? modelicaLanguage : melLanguage) });
  }

  // Document offset of a 1-based line and column as mdaed reports them
  // (columns count bytes; the same as characters for ASCII text).
  offset(line, col) {
    const doc = this.view.state.doc;
    const l = doc.line(Math.min(Math.max(1, line), doc.lines));
    return Math.min(l.from + Math.max(0, col - 1), l.to);
  }

  // Select ranges [{from, to}] (document offsets), scroll the first into
  // view and focus the editor unless keepFocus.
  select(ranges, { keepFocus = false } = {}) {
    if (ranges.length === 0) return;
    const len = this.view.state.doc.length;
    const sel = EditorSelection.create(ranges.map((r) =>
      EditorSelection.range(Math.min(r.from, len), Math.min(Math.max(r.to, r.from), len))));
    this.view.dispatch({ selection: sel, effects: EditorView.scrollIntoView(sel.ranges[0].from, { y: 'center' }) });
    if (!keepFocus) this.view.focus();
  }

  // Markers for diagnostics [{from, severity, message}] (document offsets).
  setDiagnostics(list) {
    const byLine = new Map();
    const doc = this.view.state.doc;
    for (const d of list) {
      const line = doc.lineAt(Math.min(d.from, doc.length));
      const cur = byLine.get(line.from) || { severity: 'note', messages: [] };
      if (d.severity === 'error' || (d.severity === 'warning' && cur.severity !== 'error')) cur.severity = d.severity;
      cur.messages.push(`${d.severity}: ${d.message}`);
      byLine.set(line.from, cur);
    }
    const marks = [...byLine].sort((a, b) => a[0] - b[0])
      .map(([from, m]) => new DiagMarker(m.severity, m.messages.join('\n')).range(from));
    this.view.dispatch({ effects: setMarkers.of(RangeSet.of(marks)) });
  }

  // Lines with a marker (for tests): 1-based numbers.
  markedLines() {
    const out = [];
    const it = this.view.state.field(markerField).iter();
    for (; it.value; it.next()) out.push(this.view.state.doc.lineAt(it.from).number);
    return out;
  }

  // A range worth selecting: one that covers no word (a `;`, or nothing)
  // grows to its line's text.
  widen(r) {
    const doc = this.view.state.doc;
    const from = Math.min(r.from, doc.length), to = Math.min(Math.max(r.to, r.from), doc.length);
    if (/\w/.test(doc.sliceString(from, to))) return { from, to };
    const line = doc.lineAt(from);
    const text = line.text;
    const lead = text.length - text.trimStart().length;
    const body = text.trimEnd().length;
    return lead < body ? { from: line.from + lead, to: line.from + body } : { from, to };
  }

  selectionText() {
    const r = this.view.state.selection.main;
    return this.view.state.sliceDoc(r.from, r.to);
  }
}
