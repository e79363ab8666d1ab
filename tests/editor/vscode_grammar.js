// mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
//
// tests/editor/vscode_grammar.js -- the VS Code extension's colouring
// (issue 42): every keyword of MEL's lexer (engine/mel_lex.c, its KW list)
// is coloured by clients/vscode/syntaxes/mel.tmLanguage.json (`when` and
// `next` were missing), and Modelica files (.mo, .bmo) get a grammar of
// their own, registered in package.json, that colours a Base Modelica
// export's words. Each pattern's regular expression is tried as JavaScript
// reads it (the grammars keep to what Oniguruma and JavaScript share).
// Run: node tests/editor/vscode_grammar.js (exit 0 when all hold).
"use strict";
const fs = require("fs");
const path = require("path");

const root = path.resolve(__dirname, "..", "..");
const ext = path.join(root, "clients", "vscode");
let failures = 0;
function check(ok, what) {
  if (!ok) {
    failures++;
    console.error("FAIL: " + what);
  }
}

// Every regular expression of a grammar, with its scope name.
function rules(grammar) {
  const out = [];
  const walk = (node, name) => {
    if (Array.isArray(node)) return node.forEach((n) => walk(n, name));
    if (node === null || typeof node !== "object") return;
    const scope = node.name || name;
    for (const key of ["match", "begin"])
      if (typeof node[key] === "string")
        out.push({ re: new RegExp(node[key]), scope, begin: key === "begin" });
    for (const [k, v] of Object.entries(node)) if (k !== "captures") walk(v, scope);
  };
  walk(grammar.patterns, undefined);
  walk(grammar.repository, undefined);
  return out;
}

// The scope that colours `word` inside `line`, if any rule matches it there.
function scopeOf(rs, line, word) {
  const at = line.indexOf(word);
  for (const r of rs) {
    const g = new RegExp(r.re.source, "g");
    let m;
    while ((m = g.exec(line)) !== null) {
      // a begin/end rule covers the rest of the line from its beginning
      const end = r.begin ? line.length : m.index + m[0].length;
      if (m.index <= at && at + word.length <= end && r.scope) return r.scope;
      if (m[0].length === 0) g.lastIndex++;
    }
  }
  return null;
}

const pkg = JSON.parse(fs.readFileSync(path.join(ext, "package.json"), "utf8"));
const grammarOf = (lang) => {
  const g = pkg.contributes.grammars.find((x) => x.language === lang);
  check(g !== undefined, `package.json registers a grammar for ${lang}`);
  return g ? JSON.parse(fs.readFileSync(path.join(ext, g.path), "utf8")) : { patterns: [] };
};

// MEL: the lexer's keywords, each in a line where it stands as MEL writes it.
const lex = fs.readFileSync(path.join(root, "engine", "mel_lex.c"), "utf8");
const kws = [...lex.matchAll(/KW\("([a-z]+)"\)/g)].map((m) => m[1]);
check(kws.includes("when") && kws.includes("next"), "mel_lex.c's keywords are read");
const mel = rules(grammarOf("mel"));
for (const kw of kws) {
  const line = ["der", "last", "pre", "next"].includes(kw) ? `  e : equation ${kw}(v) = 0;` : ` ${kw} `;
  check(scopeOf(mel, line, kw) !== null, `MEL keyword '${kw}' is coloured`);
}
check(scopeOf(mel, "x : real; // a comment", "// a comment") === "comment.line.double-slash.mel",
      "MEL comments");
check(/variable|string/.test(scopeOf(mel, "'stop1.v' : real;", "'stop1.v'") || ""),
      "MEL quoted identifiers");

// Modelica: the words of a Base Modelica export.
const mo = rules(grammarOf("modelica"));
const sample = {
  "//! base 0.1.0": "comment",
  "model M": "storage.type",
  "parameter Real k = 2;": "storage.modifier",
  "Real x": "support.type",
  "der(x)": "support.function",
  "when x > 1 then": "keyword.control",
  "equation": "keyword.other",
  "reinit(v, 0);": "support.function",
  "\"a string\"": "string",
  "'quoted.name'": "variable",
  "1.5e-3": "constant.numeric",
  "/* block */": "comment.block",
};
for (const [text, want] of Object.entries(sample)) {
  const word = text.split(/[ (;]/)[0] || text;
  const got = scopeOf(mo, text, text.startsWith("//!") || text.startsWith("/*") || text.startsWith("\"") || text.startsWith("'") ? text : word);
  check(got !== null && got.startsWith(want), `Modelica '${text}' is ${want} (got ${got})`);
}
for (const e of [".mo", ".bmo"])
  check(pkg.contributes.languages.some((l) => l.id === "modelica" && l.extensions.includes(e)),
        `${e} files are Modelica`);
check(fs.existsSync(path.join(ext, pkg.icon || "-")), "the icon exists");
check(pkg.main === "./dist/extension.js" && /esbuild/.test(pkg.scripts.bundle || ""),
      "the extension is bundled (esbuild) into dist/");

if (failures > 0) {
  console.error(`${failures} failed`);
  process.exit(1);
}
console.log("vscode grammars: ok");
