// mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
//
// clients/vscode/extension.js -- the VS Code side of mdae (issue 15): starts
// `mdaed --stdio` (the binary named by the mdae.serverPath setting) as the
// language server of MEL and Modelica documents. Everything else (hover,
// outline, definition, references, code lenses, diagnostics, the
// mdae.showMode command behind the lenses, the code action "Generate a
// mode-independent model" and its command mdae.rimis) is the server's; the
// language client announces it from the server's capabilities. The additions
// here: what mdae.showMode answers (a mode's projection) opens beside the
// model; the palette command "mdae: Generate a mode-independent model
// (RIMIS)" runs mdae.rimis on the active document (the server creates
// NAME.mo beside it and opens it; a document that is not a file gets the
// Modelica text in a new untitled editor).
"use strict";
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const config = vscode.workspace.getConfiguration("mdae");
  const command = config.get("serverPath", "mdaed");
  const serverOptions = { command, args: ["--stdio"] };
  const clientOptions = {
    documentSelector: [
      { scheme: "file", language: "mel" },
      { scheme: "file", language: "modelica" },
    ],
    // workspace/didChangeConfiguration {settings: {mdae: {debounceMs, modeChanges}}}
    synchronize: { configurationSection: "mdae" },
    middleware: {
      // mdae.showMode (a code lens's command) answers the per-mode
      // projection; VS Code would drop it: show it as a JSON document.
      executeCommand: async (command, args, next) => {
        const result = await next(command, args);
        if (command === "mdae.rimis" && result && typeof result.text === "string") {
          const doc = await vscode.workspace.openTextDocument({ language: "modelica", content: result.text });
          await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside });
        }
        if (command === "mdae.showMode" && result) {
          const doc = await vscode.workspace.openTextDocument({
            language: "json",
            content: JSON.stringify(result, null, 2),
          });
          await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
        }
        return result;
      },
    },
  };
  client = new LanguageClient("mdae", "mdae (mdaed)", serverOptions, clientOptions);
  context.subscriptions.push(client);
  context.subscriptions.push(
    vscode.commands.registerCommand("mdae.generateModeIndependentModel", async () => {
      const editor = vscode.window.activeTextEditor;
      if (!editor) {
        vscode.window.showErrorMessage("mdae: open a MEL or Modelica model first.");
        return;
      }
      // the server's command (registered by the client from its
      // executeCommandProvider); the middleware above shows a text result
      await vscode.commands.executeCommand("mdae.rimis", editor.document.uri.toString());
    }),
  );
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
