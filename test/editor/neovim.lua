-- Drives Neovim's own LSP client (vim.lsp, Neovim 0.7+) against `patchwork lsp`: opens a file
-- with errors, waits for diagnostics, types a fix (incremental didChange), asks hover,
-- definition, references and rename across files, completion and formatting, and writes what it got as JSON to $PW_NVIM_OUT.
local out_path = os.getenv("PW_NVIM_OUT")
local file = os.getenv("PW_NVIM_FILE")
local result = { steps = {} }

local function finish()
  local f = io.open(out_path, "w")
  f:write(vim.fn.json_encode(result))
  f:close()
  vim.cmd("qa!")
end

local ok, err = pcall(function()
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  local client_id = vim.lsp.start_client({
    name = "patchwork",
    cmd = { os.getenv("PW_NODE"), os.getenv("PW_BIN"), "lsp" },
    root_dir = vim.fn.fnamemodify(file, ":h"),
  })
  vim.lsp.buf_attach_client(bufnr, client_id)
  local client = vim.lsp.get_client_by_id(client_id)
  result.client_started = client ~= nil
  table.insert(result.steps, "started")

  local function diagnostics()
    local out = {}
    for _, d in ipairs(vim.diagnostic.get(bufnr)) do
      table.insert(out, { lnum = d.lnum, col = d.col, code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code), message = d.message, severity = d.severity })
    end
    return out
  end

  vim.wait(30000, function() return #vim.diagnostic.get(bufnr) > 0 end, 50)
  result.diagnostics = diagnostics()
  table.insert(result.steps, "diagnostics")

  -- Type a fix: line 5 `print(totl)` becomes `print(total)` (an incremental change).
  vim.api.nvim_buf_set_text(bufnr, 4, 9, 4, 9, { "a" })
  vim.wait(30000, function() return #vim.diagnostic.get(bufnr) < #result.diagnostics end, 50)
  result.diagnostics_after_edit = diagnostics()
  table.insert(result.steps, "edited")

  local uri = vim.uri_from_bufnr(bufnr)
  local function req(method, params)
    local resp, e = client.request_sync(method, params, 20000, bufnr)
    if resp == nil then return { error = tostring(e) } end
    if resp.err then return { error = resp.err.message } end
    return resp.result
  end
  result.hover = req("textDocument/hover", { textDocument = { uri = uri }, position = { line = 4, character = 7 } })
  result.definition = req("textDocument/definition", { textDocument = { uri = uri }, position = { line = 4, character = 7 } })
  local completion = req("textDocument/completion", { textDocument = { uri = uri }, position = { line = 4, character = 6 } })
  local labels = {}
  for _, item in ipairs((completion and completion.items) or completion or {}) do table.insert(labels, item.label) end
  result.completion = labels
  -- Across files: `shout` (line 7) is declared in lib.pw, which Neovim never opened.
  result.references = req("textDocument/references", { textDocument = { uri = uri }, position = { line = 6, character = 7 }, context = { includeDeclaration = true } })
  local rename = req("textDocument/rename", { textDocument = { uri = uri }, position = { line = 6, character = 7 }, newName = "yell" })
  result.renamed_files = {}
  for file_uri, edits in pairs((rename and rename.changes) or {}) do result.renamed_files[vim.fn.fnamemodify(vim.uri_to_fname(file_uri), ":t")] = #edits end
  local edits = req("textDocument/formatting", { textDocument = { uri = uri }, options = { tabSize = 4, insertSpaces = true } })
  if type(edits) == "table" and edits.error == nil then
    vim.lsp.util.apply_text_edits(edits, bufnr, "utf-16")
  end
  result.formatted = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n")
  table.insert(result.steps, "queried")
  vim.lsp.stop_client(client_id)
end)
if not ok then result.error = tostring(err) end
finish()
