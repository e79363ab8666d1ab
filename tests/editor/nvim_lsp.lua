-- mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
--
-- tests/editor/nvim_lsp.lua -- a real editor (issues 15 and 36): headless
-- Neovim configured by nothing but the Neovim snippet of docs/editors.md (init.lua,
-- written by tests/editor/nvim_lsp.sh), opening files as a user does (:edit,
-- the runtime's filetype detection, the snippet's autocommands attaching
-- mdaed), and checking what the user sees: filetypes of .mel, .mo and .bmo,
-- hover text, document symbols, go-to-definition moving the cursor, code
-- lens titles and the answer of a lens's command (mdae.showMode) in a
-- floating window, multi-byte text, diagnostics within 1 s of opening a
-- model with a syntax error or a singular one, and of the keystroke that
-- makes a model singular, and the code action "Generate a mode-independent
-- model" opening the generated file. Prints one "ok"/"not ok" line per check and exits
-- non-zero (:cquit) if any failed. Written for Debian 12's Neovim 0.7;
-- also runs on 0.10 and 0.12 (NVIM=... tests/editor/nvim_lsp.sh), through
-- the shims marked "later versions".
local src = assert(os.getenv("MDAE_SOURCE_DIR"), "MDAE_SOURCE_DIR")
local tmp = assert(os.getenv("MDAE_TMP"), "MDAE_TMP: a scratch folder")
local failures, checks = 0, 0
-- issue 36: diagnostics within 1 s (MDAE_DIAG_MS: a sanitizer build's bound)
local DIAG_MS = tonumber(os.getenv("MDAE_DIAG_MS") or "") or 1000

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
    out("not ok - " .. what .. (got ~= nil and (": got " .. vim.inspect(got)) or ""))
  end
end

local uv = vim.uv or vim.loop -- later versions: vim.uv
local function now() return uv.hrtime() end
local function ms_since(t0) return math.floor((now() - t0) / 1e6) end

-- The clients attached to buf; later versions: vim.lsp.get_clients.
local function clients_of(buf)
  if vim.lsp.get_clients then return vim.lsp.get_clients({ bufnr = buf }) end
  return vim.tbl_values(vim.lsp.buf_get_clients(buf))
end

local function stop_all()
  local all = vim.lsp.get_clients and vim.lsp.get_clients() or vim.lsp.get_active_clients()
  for _, c in ipairs(all) do
    if vim.lsp.get_clients then c:stop() else c.stop() end -- later versions: a method
  end
end

local function write(path, text)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
end

local function read(path)
  local f = assert(io.open(path, "r"))
  local s = f:read("*a")
  f:close()
  return s
end

-- Open path as a user does (:edit); check its filetype and that the snippet
-- attached an initialized mdaed client. Returns the buffer, the client and
-- the hrtime of the :edit.
local function open(path, filetype)
  local name = vim.fn.fnamemodify(path, ":t")
  local t0 = now()
  vim.cmd("edit " .. vim.fn.fnameescape(path))
  local buf = vim.api.nvim_get_current_buf()
  check(vim.bo[buf].filetype == filetype, name .. " is detected as " .. filetype,
    vim.bo[buf].filetype)
  local client
  vim.wait(10000, function()
    for _, c in ipairs(clients_of(buf)) do
      if c.name == "mdaed" and c.server_capabilities and c.server_capabilities.hoverProvider then
        client = c
      end
    end
    return client ~= nil
  end, 10)
  check(client ~= nil, "mdaed attaches to " .. name .. " and announces hover")
  return buf, client, t0
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
  local enc = clients_of(0)[1].offset_encoding -- later versions require it
  local r = ask("textDocument/hover", vim.lsp.util.make_position_params(0, enc))
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

local function symbols()
  return symbol_names(ask("textDocument/documentSymbol",
    { textDocument = vim.lsp.util.make_text_document_params() }))
end

-- Wait up to DIAG_MS after t0 for a diagnostic of buf whose message has
-- needle; the diagnostics' messages and the milliseconds since t0.
local function diagnostics_within(buf, t0, needle)
  local msgs = {}
  vim.wait(DIAG_MS - ms_since(t0), function()
    msgs = vim.tbl_map(function(d) return d.message end, vim.diagnostic.get(buf))
    for _, m in ipairs(msgs) do
      if has(m, needle) then return true end
    end
    return false
  end, 5)
  return msgs, ms_since(t0)
end

local function check_diagnostics(buf, t0, needle, what)
  local msgs, ms = diagnostics_within(buf, t0, needle)
  local found = vim.tbl_filter(function(m) return has(m, needle) end, msgs)
  check(#found > 0 and ms <= DIAG_MS, string.format("%s (%d ms)", what, ms), msgs)
end

-- The lines of the one floating window open, or nil.
local function float_lines()
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(w).relative ~= "" then
      return vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(w), 0, -1, false), w
    end
  end
  return nil
end

-- Close the current buffer. Unloaded, not wiped: Neovim 0.7 saves lenses
-- that arrive late under the buffer's number, and fails on a wiped one.
local function close() vim.cmd("bdelete!") end

-- Later versions (0.12) take a filter and give {client_id, lens} pairs.
local LENS_FILTER = vim.lsp.codelens.enable ~= nil

local function lens_titles(buf)
  local titles = {}
  local got = vim.lsp.codelens.get(LENS_FILTER and { bufnr = buf } or buf)
  for _, l in ipairs(got or {}) do
    l = l.lens or l
    if l.command then titles[#titles + 1] = l.command.title end
  end
  return titles
end

-- Whether the lens of 0-based line is displayed (virtual text in the
-- codelens namespace of the client; the namespace table is internal to
-- Neovim, 0.7 to 0.11). Running a lens hides it there; 0.12 leaves it, and
-- draws lenses only on a screen, which headless Neovim has not: nil.
local function lens_shown(buf, client, line)
  if not vim.lsp.codelens.__namespaces then return nil end
  local ns = vim.lsp.codelens.__namespaces[client.id]
  return #vim.api.nvim_buf_get_extmarks(buf, ns, { line, 0 }, { line, -1 }, {}) > 0
end

-- ---- MEL: RLDC2 (file lines 1-based: 44 g1, 47 K1, 57 S1) -------------------------
local buf, client = open(src .. "/tests/models/rldc2.mel", "mel")
local h = hover_at(57, 0)
check(has(h, "**equation** `S1`") and has(h, "when `g1`: S1 → s1"),
  "hover on S1 shows its blocks and guards", h)
h = hover_at(57, 22)
check(has(h, "**mode variable** `g1`") and has(h, "true in 2 of the 4 valid modes"),
  "hover on g1 shows its definition and valid-mode count", h)

local names = symbols()
check(names["S1"] and names["g1"] and names["pR1"] and names["i1"],
  "document symbols list equations, mode variables, parameters and unknowns", names)

vim.api.nvim_win_set_cursor(0, { 57, 22 })
vim.lsp.buf.definition()
vim.wait(5000, function() return vim.api.nvim_win_get_cursor(0)[1] == 44 end, 20)
check(vim.api.nvim_win_get_cursor(0)[1] == 44 and vim.api.nvim_win_get_cursor(0)[2] == 0,
  "go to definition of g1 jumps to its declaration", vim.api.nvim_win_get_cursor(0))

-- the snippet asks for the lenses when mdaed attaches
local titles = {}
vim.wait(5000, function()
  titles = lens_titles(buf)
  return #titles > 0
end, 20)
check(vim.tbl_contains(titles, "differentiated ×1 when !g1 & !g2"),
  "code lens titles say where an equation is differentiated", titles)

-- K1's lens (line 47) runs mdae.showMode: the answer is in a float
vim.api.nvim_win_set_cursor(0, { 47, 0 })
vim.lsp.codelens.run()
local lines, win
vim.wait(5000, function()
  lines, win = float_lines()
  return lines ~= nil
end, 20)
lines = lines or {}
check(lines[1] == "mode { g1 = false, g2 = false }: valid, nonsingular"
  and vim.tbl_contains(lines, "6. K1', K2, K3, K4, L1, L2 → j1', j2', u1, u2, w1, w2"),
  "a lens's command shows its mode's verdict and solving order in a float", lines)
if lens_shown(buf, client, 46) ~= nil then
  vim.wait(5000, function() return lens_shown(buf, client, 46) end, 20)
  check(lens_shown(buf, client, 46), "the lens is shown again after it ran")
end
vim.lsp.codelens.run() -- as docs/editors.md says: again, to enter the float
vim.wait(5000, function() return win ~= nil and vim.api.nvim_get_current_win() == win end, 20)
check(win ~= nil and vim.api.nvim_get_current_win() == win,
  "running the lens again enters the float")
if win then vim.api.nvim_win_close(win, true) end
close()

-- ---- Multi-byte text: y after e-acute and an emoji on its line ---------------------
local mb = tmp .. "/mb.mel"
write(mb, "x : real;\n/* \xc3\xa9\xf0\x9f\x98\x80 */ y : real;\ne1 : equation der(x) = y;\n")
open(mb, "mel")
h = hover_at(2, 13) -- byte column of y; the client sends UTF-16 column 10
check(has(h, "**unknown** `y`"), "hover after multi-byte characters finds y", h)
vim.api.nvim_win_set_cursor(0, { 3, 23 })
vim.lsp.buf.definition()
vim.wait(5000, function() return vim.api.nvim_win_get_cursor(0)[1] == 2 end, 20)
check(vim.api.nvim_win_get_cursor(0)[1] == 2 and vim.api.nvim_win_get_cursor(0)[2] == 13,
  "definition after multi-byte characters lands on y", vim.api.nvim_win_get_cursor(0))
close()

-- ---- Models being edited (issue 36): a syntax error, a singular model --------------
-- RLDC2 with a half-typed last line: diagnostics at once, and the outline of
-- the rest (this needs the parser's recovery at the statement).
local half = tmp .. "/rldc2_half.mel"
write(half, read(src .. "/tests/models/rldc2.mel") .. "Z3 : equation 0 = if g1 then\n")
local t0
buf, client, t0 = open(half, "mel")
check_diagnostics(buf, t0, "expected an expression",
  "a half-typed line: diagnostics within 1 s of opening")
names = symbols()
check(names["S1"] and names["g1"] and names["i1"],
  "a half-typed line: document symbols list the rest of the model (the parser's recovery)",
  names)
close()

-- The same line typed at the end of the sound RLDC2 (issue 36: the outline
-- went from 36 symbols to 0): the outline stays.
local edited = tmp .. "/rldc2_edit.mel"
write(edited, read(src .. "/tests/models/rldc2.mel"))
buf = open(edited, "mel")
local before = vim.tbl_count(symbols())
t0 = now()
vim.api.nvim_buf_set_lines(buf, -1, -1, false, { "Z3 : equation 0 = if g1 then" })
check_diagnostics(buf, t0, "expected an expression",
  "a half-typed line typed into RLDC2: diagnostics within 1 s")
names = symbols()
check(before > 30 and vim.tbl_count(names) >= before,
  string.format("a half-typed line typed into RLDC2: the outline keeps its %d symbols"
    .. " (the parser's recovery)", before),
  vim.tbl_count(names))
close()

buf, client, t0 = open(src .. "/tests/models/syntax_error.mel", "mel")
check_diagnostics(buf, t0, "expected ')'", "syntax_error.mel: diagnostics within 1 s of opening")
names = symbols()
check(names["e3"] and names["e5"] and names["x"],
  "syntax_error.mel: document symbols list its correct statements (the parser's recovery)",
  names)
close()

buf, client, t0 = open(src .. "/tests/models/singular_simple.mel", "mel")
check_diagnostics(buf, t0, "overdetermined",
  "singular_simple.mel: the singular modes' diagnostics within 1 s of opening")
names = symbols()
check(names["e1"] and names["e2"] and names["x"] and names["g"],
  "singular_simple.mel: document symbols", names)
-- e2's lens (line 21) says where it is overdetermined; its command shows one
-- such mode
vim.wait(5000, function() return #lens_titles(buf) > 0 end, 20)
vim.api.nvim_win_set_cursor(0, { 21, 0 })
vim.lsp.codelens.run()
lines, win = nil, nil
vim.wait(5000, function()
  lines, win = float_lines()
  return lines ~= nil
end, 20)
lines = lines or {}
check(has(lines[1], ": structurally singular") and has(lines[2], "overdetermined: e2"),
  "a singular mode's lens shows the overdetermined equations", lines)
if win then vim.api.nvim_win_close(win, true) end
close()

-- The brake (N = 3) with one equation too many, opened; then the sound brake
-- made singular by typing that equation after plug2.
local brake = read(src .. "/tests/models/brake.mel")
local extra = "extra : equation t = 1;"
local plug2 = "plug2 : equation fb[N + 1] = 0;\n"
assert(has(brake, plug2), "brake.mel has plug2")
-- (in a folder of its own: a new mdaed, whose start is part of the 1 s)
vim.fn.mkdir(tmp .. "/cold")
local singular_brake = tmp .. "/cold/brake_extra.mel"
write(singular_brake, (brake:gsub(plug2:gsub("%p", "%%%0"), plug2 .. extra .. "\n")))
buf, client, t0 = open(singular_brake, "mel")
check_diagnostics(buf, t0, "overdetermined",
  "the brake with an extra equation: diagnostics within 1 s of opening, mdaed's start included")
names = symbols()
check(names["extra"] and names["plug2"] and names["open"],
  "the brake with an extra equation: document symbols", names)
close()

-- The diagnostics of buf but the warnings of what single-mode tools do
-- (issue 38: the sound brake has them, a valve's pivot being zero when open).
local function structural(b)
  return vim.tbl_filter(function(d)
    return not has(d.message, "a single-mode analysis, as Modelica tools do, ")
  end, vim.diagnostic.get(b))
end
local sound_brake = tmp .. "/brake.mel"
write(sound_brake, brake)
buf = open(sound_brake, "mel")
check(symbols()["plug2"], "the sound brake is analysed before the edit")
check(#structural(buf) == 0, "the sound brake has no diagnostics but single-mode warnings",
  vim.diagnostic.get(buf))
local at = vim.fn.search("^plug2 :", "n") -- 1-based line of plug2
t0 = now()
-- the line as typed in insert mode (no InsertLeave: Neovim's and mdaed's
-- debounces both apply)
vim.api.nvim_buf_set_lines(buf, at, at, false, { extra })
check_diagnostics(buf, t0, "overdetermined",
  "typing an extra equation into the brake: diagnostics within 1 s")
t0 = now()
vim.cmd("normal! " .. (at + 1) .. "Gdd")
vim.wait(DIAG_MS, function() return #structural(buf) == 0 end, 5)
check(#structural(buf) == 0,
  string.format("deleting it clears them within 1 s (%d ms)", ms_since(t0)),
  vim.diagnostic.get(buf))
close()

-- ---- Modelica: rldc2_cc.mo (1-based: 24 g1, 37 S1) and a Base Modelica file ---------
open(src .. "/tests/models/rldc2_cc.mo", "modelica")
h = hover_at(37, 18)
check(has(h, "**unknown** `i1`") and has(h, "1 when `!g1 & !g2`"),
  "Modelica: hover on i1 gives its offsets by mode", h)
vim.api.nvim_win_set_cursor(0, { 37, 10 })
vim.lsp.buf.definition()
vim.wait(5000, function() return vim.api.nvim_win_get_cursor(0)[1] == 24 end, 20)
check(vim.api.nvim_win_get_cursor(0)[1] == 24, "Modelica: definition of g1",
  vim.api.nvim_win_get_cursor(0))
names = symbols()
check(names["RLDC2_CC"] and names["S1"] and names["R1"], "Modelica: document symbols", names)
close()

open(src .. "/tests/models/bm_modes.bmo", "modelica")
names = symbols()
check(names["'x'"] or names["x"], "Base Modelica (.bmo): document symbols", names)
close()

-- ---- The code action "Generate a mode-independent model" (issue 39) ---------------
-- The Water Tank in a folder of its own: vim.lsp.buf.code_action() lists the
-- action (vim.ui.select, answered here as a user would pick it); the
-- snippet's mdae.rimis opens water_tank_rimis.mo, created beside it by
-- mdaed's workspace/applyEdit (Neovim 0.7 announces resourceOperations
-- "create"), with the generated Modelica, not yet written.
vim.fn.mkdir(tmp .. "/rimis")
local tank = tmp .. "/rimis/water_tank.mel"
write(tank, read(src .. "/tests/models/water_tank.mel"))
buf = open(tank, "mel")
local offered = {}
local select = vim.ui.select
vim.ui.select = function(items, opts, on_choice)
  local pick
  for _, it in ipairs(items) do
    local title = (it[2] or it.action or {}).title -- 0.7: {client id, action}
    offered[#offered + 1] = title
    if title == "Generate a mode-independent model" then pick = it end
  end
  on_choice(pick)
end
vim.lsp.buf.code_action()
local generated = tmp .. "/rimis/water_tank_rimis.mo"
vim.wait(10000, function() return vim.api.nvim_buf_get_name(0) == generated end, 20)
vim.ui.select = select
check(vim.tbl_contains(offered, "Generate a mode-independent model"),
  "the code action is offered", offered)
local got = vim.api.nvim_buf_get_lines(0, 0, -1, false)
check(vim.api.nvim_buf_get_name(0) == generated and got[1] == "model water_tank_rimis"
  and vim.tbl_contains(got, "  // Block not bh: eh2 -> yh") and vim.bo.filetype == "modelica",
  "running it opens water_tank_rimis.mo beside the model, with its blocks",
  { vim.api.nvim_buf_get_name(0), got[1] })
check(vim.fn.filereadable(generated) == 1 and vim.bo.modified,
  "the file is created, its text not yet written (:w)")
vim.cmd("bdelete!")
close()

-- what Neovim said to the user meanwhile: no error, no deprecation
local said = vim.split(vim.fn.execute("messages"), "\n")
said = vim.tbl_filter(function(l) return l:find("[Ee]rror") or l:find("deprecated") end, said)
check(#said == 0, "no error or deprecation shown to the user", said)

out(string.format("%d passed, %d failed", checks - failures, failures))
stop_all()
vim.wait(500, function() return false end, 50) -- let the servers see shutdown
if failures > 0 then vim.cmd("cquit 1") else vim.cmd("qall!") end
