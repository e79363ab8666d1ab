// mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
// clients/web/src/editor.js -- the model editor: CodeMirror 6 with line
// numbers, MEL and Modelica colouring, and selection of source ranges.
//
// MEL has no CodeMirror mode of its own: melLanguage below is a small
// stream tokenizer over the grammar of docs/languages.md (keywords, comments, numbers,
// der/last/pre). Modelica uses @codemirror/legacy-modes' modelica mode.

import { EditorState, EditorSelection, Compartment } from '@codemirror/state';
import {
  EditorView, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter,
  drawSelection, highlightSpecialChars,
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

// The language of a text: explicit, or by file name, or by the Base
// Modelica header and Modelica's `model ... equation` shape (as the CLI).
export function guessFormat(text, fileName = '') {
  if (/\.(mo|bmo)$/i.test(fileName)) return 'modelica';
  if (/\.mel$/i.test(fileName)) return 'mel';
  const head = text.replace(/^\s+/, '');
  if (head.startsWith('//! base')) return 'modelica';
  if (/^\s*(model|package|class|block)\s+[A-Za-z_]/m.test(text) && /\bequation\b/.test(text) &&
      /^\s*end\s+[A-Za-z_][\w.]*\s*;/m.test(text)) return 'modelica';
  return 'mel';
}

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
          highlightActiveLine(), highlightSelectionMatches(),
          syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
          keymap.of([
            { key: 'Mod-Enter', run: () => { onRun(); return true; } },
            // No indentWithTab: Tab must leave the editor (a keyboard user
            // would be trapped in it), and MEL needs no tab indentation.
            ...defaultKeymap, ...searchKeymap, ...historyKeymap,
          ]),
          this.lang.of(melLanguage),
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

  selectionText() {
    const r = this.view.state.selection.main;
    return this.view.state.sliceDoc(r.from, r.to);
  }
}
