-- mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
--
-- tests/editor/nvim_lsp.lua -- a real editor (issue 15): headless Neovim
-- drives `mdaed --stdio` through its built-in LSP client, as a user's
-- configuration would (vim.lsp.start_client + buf_attach_client, which
-- Debian 12's Neovim 0.7 has; vim.lsp.start is 0.8+), and checks what the
-- user sees: hover text, document symbols, go-to-definition moving the
-- cursor, code lens titles, on MEL and Modelica, with multi-byte text.
-- Run by tests/editor/nvim_lsp.sh; prints one "ok"/"not ok" line per check
-- and exits non-zero (:cquit) if any failed.
local mdaed = assert(os.getenv("MDAED"), "MDAED: the mdaed binary")
local src = assert(os.getenv("MDAE_SOURCE_DIR"), "MDAE_SOURCE_DIR")
local tmp = assert(os.getenv("MDAE_TMP"), "MDAE_TMP: a scratch folder")
local failures, checks = 0, 0

local function out(s)
  io.stdout:write(s .. "\n")
  io.stdout:flush()
end

local function check(cond, what, got)
  checks = checks + 1
  if cond then
    out("ok - " .. what)
  else
    failures = failures + 1
    out("not ok - " .. what .. (got and (": got " .. vim.inspect(got)) or ""))
  end
end

-- Open path in a new buffer, attach a new mdaed client; the client id.
local function open(path, filetype)
  vim.cmd("edit " .. vim.fn.fnameescape(path))
  vim.bo.filetype = filetype
  local id = vim.lsp.start_client({
    name = "mdaed",
    cmd = { mdaed, "--stdio", "--log-level", "warn" },
    root_dir = vim.fn.fnamemodify(path, ":h"),
  })
  check(id ~= nil, "mdaed starts as a language server for " .. vim.fn.fnamemodify(path, ":t"))
  vim.lsp.buf_attach_client(0, id)
  local client = vim.lsp.get_client_by_id(id)
  vim.wait(10000, function()
    return client.server_capabilities ~= nil and client.server_capabilities.hoverProvider
  end, 20)
  check(client.server_capabilities and client.server_capabilities.hoverProvider,
    "initialize announces hover")
  return id
end

-- The result of a request through the attached client (sync, 10 s).
local function ask(method, params)
  local res = vim.lsp.buf_request_sync(0, method, params, 10000)
  if res == nil then return nil end
  for _, r in pairs(res) do
    if r.result ~= nil then return r.result end
  end
  return nil
end

-- Hover text with the cursor at (1-based line, 0-based byte column).
local function hover_at(line, col)
  vim.api.nvim_win_set_cursor(0, { line, col })
  local r = ask("textDocument/hover", vim.lsp.util.make_position_params())
  return r and r.contents and r.contents.value or ""
end

local function has(s, needle) return s ~= nil and string.find(s, needle, 1, true) ~= nil end

local function symbol_names(syms, acc)
  acc = acc or {}
  for _, s in ipairs(syms or {}) do
    acc[s.name] = true
    symbol_names(s.children, acc)
  end
  return acc
end

-- ---- MEL: RLDC2 (file lines 1-based: 44 g1, 47 K1, 57 S1) -------------------------
local id = open(src .. "/tests/models/rldc2.mel", "mel")
local h = hover_at(57, 0)
check(has(h, "**equation** `S1`") and has(h, "when `g1`: S1 → s1"),
  "hover on S1 shows its blocks and guards", h)
h = hover_at(57, 22)
check(has(h, "**mode variable** `g1`") and has(h, "true in 2 of the 4 valid modes"),
  "hover on g1 shows its definition and valid-mode count", h)

local names = symbol_names(ask("textDocument/documentSymbol",
  { textDocument = vim.lsp.util.make_text_document_params() }))
check(names["S1"] and names["g1"] and names["pR1"] and names["i1"],
  "document symbols list equations, mode variables, parameters and unknowns", names)

vim.api.nvim_win_set_cursor(0, { 57, 22 })
vim.lsp.buf.definition()
vim.wait(5000, function() return vim.api.nvim_win_get_cursor(0)[1] == 44 end, 20)
check(vim.api.nvim_win_get_cursor(0)[1] == 44 and vim.api.nvim_win_get_cursor(0)[2] == 0,
  "go to definition of g1 jumps to its declaration", vim.api.nvim_win_get_cursor(0))

vim.lsp.codelens.refresh()
local titles = {}
vim.wait(5000, function()
  titles = {}
  for _, l in ipairs(vim.lsp.codelens.get(0) or {}) do
    if l.command then titles[#titles + 1] = l.command.title end
  end
  return #titles > 0
end, 20)
check(vim.tbl_contains(titles, "differentiated ×1 when !g1 & !g2"),
  "code lens titles say where an equation is differentiated", titles)
vim.lsp.stop_client(id)

-- ---- Multi-byte text: y after e-acute and an emoji on its line ---------------------
local mb = tmp .. "/mb.mel"
local f = assert(io.open(mb, "w"))
f:write("x : real;\n/* \xc3\xa9\xf0\x9f\x98\x80 */ y : real;\ne1 : equation der(x) = y;\n")
f:close()
id = open(mb, "mel")
h = hover_at(2, 13) -- byte column of y; the client sends UTF-16 column 10
check(has(h, "**unknown** `y`"), "hover after multi-byte characters finds y", h)
vim.api.nvim_win_set_cursor(0, { 3, 23 })
vim.lsp.buf.definition()
vim.wait(5000, function() return vim.api.nvim_win_get_cursor(0)[1] == 2 end, 20)
check(vim.api.nvim_win_get_cursor(0)[1] == 2 and vim.api.nvim_win_get_cursor(0)[2] == 13,
  "definition after multi-byte characters lands on y", vim.api.nvim_win_get_cursor(0))
vim.lsp.stop_client(id)

-- ---- Modelica: rldc2_cc.mo (1-based: 24 g1, 37 S1) ----------------------------------
id = open(src .. "/tests/models/rldc2_cc.mo", "modelica")
h = hover_at(37, 18)
check(has(h, "**unknown** `i1`") and has(h, "1 when `!g1 & !g2`"),
  "Modelica: hover on i1 gives its offsets by mode", h)
vim.api.nvim_win_set_cursor(0, { 37, 10 })
vim.lsp.buf.definition()
vim.wait(5000, function() return vim.api.nvim_win_get_cursor(0)[1] == 24 end, 20)
check(vim.api.nvim_win_get_cursor(0)[1] == 24, "Modelica: definition of g1",
  vim.api.nvim_win_get_cursor(0))
names = symbol_names(ask("textDocument/documentSymbol",
  { textDocument = vim.lsp.util.make_text_document_params() }))
check(names["RLDC2_CC"] and names["S1"] and names["R1"], "Modelica: document symbols", names)
vim.lsp.stop_client(id)

out(string.format("%d passed, %d failed", checks - failures, failures))
vim.wait(500, function() return false end, 50) -- let the servers see shutdown
if failures > 0 then vim.cmd("cquit 1") else vim.cmd("qall!") end
