--- Buffer-local user commands, created when the fixloop server attaches to a buffer.
local config = require('fixloop.config')
local state = require('fixloop.state')

local M = {}

--- The fixloop client serving `bufnr`, or nil with a message.
---@param bufnr integer
---@return vim.lsp.Client|nil
function M.client_for(bufnr)
  local client = vim.lsp.get_clients({ bufnr = bufnr, name = config.NAME })[1]
  if not client then
    state.notify('the language server is not attached to this buffer (:checkhealth fixloop)', vim.log.levels.WARN)
  end
  return client
end

--- Run one of the server's commands (docs/protocol.md "Commands").
---@param client vim.lsp.Client
---@param command string
---@param arg table
---@param bufnr integer|nil
---@param on_result? fun(result: any)
function M.execute(client, command, arg, bufnr, on_result)
  client:request('workspace/executeCommand', { command = command, arguments = { arg } }, function(err, result)
    if err then
      state.notify(('%s failed: %s'):format(command, err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    if on_result then
      on_result(result)
    end
  end, bufnr)
end

---@param bufnr integer
---@param arg table
local function start_run(bufnr, arg)
  local client = M.client_for(bufnr)
  if not client then
    return
  end
  arg.uri = vim.uri_from_bufnr(bufnr)
  if vim.bo[bufnr].modified then
    state.notify('the buffer has unsaved changes; the run sees the file as it is on disk', vim.log.levels.WARN)
  end
  M.execute(client, 'fixloop.fix', arg, bufnr, function(result)
    if type(result) ~= 'table' then
      return
    end
    state.client(client.id).running = result.run_id
    state.notify(('run %s %s'):format(result.run_id or '?', result.queued and 'queued' or 'started'))
  end)
end

---@param bufnr integer
---@param scope? string 'workspace' | 'file'
function M.fix(bufnr, scope)
  scope = scope or 'workspace'
  if scope ~= 'workspace' and scope ~= 'file' then
    state.notify(("unknown scope %q: use 'workspace' or 'file'"):format(scope), vim.log.levels.ERROR)
    return
  end
  start_run(bufnr, { scope = scope })
end

M.CHECKERS = { 'ruff', 'mypy', 'pyright' }

--- Fix until the tests pass and the checkers named report nothing new (their findings are targets too;
--- each checker runs from the project's own environment, in the sandbox).
---@param bufnr integer
---@param checkers string[]
function M.fix_checks(bufnr, checkers)
  if #checkers == 0 then
    checkers = { 'ruff' }
  end
  for _, name in ipairs(checkers) do
    if not vim.tbl_contains(M.CHECKERS, name) then
      local known = table.concat(M.CHECKERS, ', ', 1, #M.CHECKERS - 1) .. ' or ' .. M.CHECKERS[#M.CHECKERS]
      state.notify(('unknown checker %q: use %s'):format(name, known), vim.log.levels.ERROR)
      return
    end
  end
  start_run(bufnr, { scope = 'workspace', checks = checkers, check_scope = 'file' })
end

--- Fix until the test at the cursor passes (the server finds the test at this position).
---@param bufnr integer
function M.fix_test(bufnr)
  local client = M.client_for(bufnr)
  if not client then
    return
  end
  local win = vim.fn.bufwinid(bufnr)
  local params = vim.lsp.util.make_position_params(win ~= -1 and win or 0, client.offset_encoding)
  start_run(bufnr, { scope = 'position', position = params.position })
end

--- Why `text` cannot be sent as a goal, or nil when it can (the server checks it again).
---@param text string
---@return string|nil
function M.goal_problem(text)
  local goal = vim.trim(text or '')
  if goal == '' then
    return 'describe the problem in a few words, e.g. :FixloopFix! make line_total match its docstring'
  end
  if not goal:find('%a%a') then
    return 'the description needs words, e.g. :FixloopFix! line_total(1.0, 10) should be 9.0'
  end
  if #goal > 2000 then
    return ('the description is %d characters; keep it under 2000'):format(#goal)
  end
end

--- Fix a problem described in words (goal mode): the server writes a spec and a failing reproduction test,
--- may ask clarifying questions (window/showMessageRequest, shown with vim.ui.select), then fixes.
--- With no text, asks for it with vim.ui.input.
---@param bufnr integer
---@param text? string
function M.fix_goal(bufnr, text)
  local client = M.client_for(bufnr)
  if not client then
    return
  end
  local function send(goal)
    local problem = M.goal_problem(goal)
    if problem then
      state.notify(problem, vim.log.levels.WARN)
      return
    end
    local arg = { goal = vim.trim(goal) }
    -- The cursor says which function the words are most likely about.
    local win = vim.fn.bufwinid(bufnr)
    if win ~= -1 then
      arg.position = vim.lsp.util.make_position_params(win, client.offset_encoding).position
    end
    start_run(bufnr, arg)
  end
  if text and vim.trim(text) ~= '' then
    send(text)
    return
  end
  vim.ui.input({ prompt = 'fixloop: describe the problem: ' }, function(input)
    if input ~= nil then -- nil: the user cancelled
      send(input)
    end
  end)
end

---@param bufnr integer
function M.cancel(bufnr)
  local client = M.client_for(bufnr)
  if not client then
    return
  end
  local run_id = state.client(client.id).running
  M.execute(client, 'fixloop.cancel', run_id and { run_id = run_id } or vim.empty_dict(), bufnr, function(result)
    local done = type(result) == 'table' and result.cancelled
    state.notify(done and 'cancelling the run' or 'no run to cancel')
  end)
end

---@param bufnr integer
---@param run_id? string
function M.review(bufnr, run_id)
  local client = M.client_for(bufnr)
  if not client then
    return
  end
  require('fixloop.review').show(client, run_id ~= '' and run_id or nil)
end

--- A scratch buffer with what the plugin saw: server log messages, progress, run results, and the
--- server's stderr lines from the LSP log.
function M.show_log()
  local lines = vim.deepcopy(state.log)
  local ok, text = pcall(vim.fn.readfile, vim.lsp.log.get_filename())
  if ok then
    local stderr = {}
    for _, line in ipairs(text) do
      if line:find('"stderr"', 1, true) then
        table.insert(stderr, line)
      end
    end
    if #stderr > 0 then
      table.insert(lines, '')
      table.insert(lines, ('-- server stderr (last %d lines of %s) --'):format(math.min(#stderr, 50), vim.lsp.log.get_filename()))
      vim.list_extend(lines, stderr, math.max(1, #stderr - 49))
    end
  end
  if #lines == 0 then
    lines = { 'fixloop: nothing logged yet' }
  end
  vim.cmd('botright new')
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].swapfile = false
  pcall(vim.api.nvim_buf_set_name, buf, 'fixloop://log')
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.keymap.set('n', 'q', '<cmd>close<cr>', { buffer = buf, nowait = true, desc = 'close the fixloop log' })
end

--- :FixloopSettings: what the runs use (the server's `fixloop.settings`): the sandbox in use here, the values
--- of the workspace the server did not take, then every setting.
---@param bufnr integer
function M.settings(bufnr)
  local client = M.client_for(bufnr)
  if not client then
    return
  end
  M.execute(client, 'fixloop.settings', vim.empty_dict(), bufnr, function(report)
    local sandbox = report.sandbox or {}
    local lines = { ('sandbox in use: %s%s'):format(sandbox.backend ~= '' and sandbox.backend or 'none works',
      (sandbox.problem or '') ~= '' and (' (' .. sandbox.problem .. ')') or '') }
    table.insert(lines, ('API key set: %s'):format(tostring(report.apiKey)))
    table.insert(lines, ('not taken from the workspace (%d):'):format(#(report.ignored or {})))
    for _, why in ipairs(report.ignored or {}) do
      table.insert(lines, '  ' .. why)
    end
    table.insert(lines, 'settings in effect:')
    vim.list_extend(lines, vim.split(vim.inspect(report.settings), '\n'))
    vim.cmd('botright new')
    local buf = vim.api.nvim_get_current_buf()
    vim.bo[buf].buftype, vim.bo[buf].bufhidden, vim.bo[buf].swapfile = 'nofile', 'wipe', false
    pcall(vim.api.nvim_buf_set_name, buf, 'fixloop://settings')
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    vim.bo[buf].modifiable = false
    vim.keymap.set('n', 'q', '<cmd>close<cr>', { buffer = buf, nowait = true, desc = 'close' })
  end)
end

--- :FixloopTrust: this project's grants to apply fixes of a kind without asking; `revoke {kind}` (or `all`) ends one.
---@param bufnr integer
---@param args string[]
function M.trust(bufnr, args)
  local client = M.client_for(bufnr)
  if not client then
    return
  end
  local arg = vim.empty_dict()
  if args[1] == 'revoke' then
    if not args[2] then
      state.notify('usage: :FixloopTrust revoke {kind as listed}|all', vim.log.levels.ERROR)
      return
    end
    arg = { revoke = args[2] }
  elseif args[1] then
    state.notify('usage: :FixloopTrust [revoke {kind}|all]', vim.log.levels.ERROR)
    return
  end
  M.execute(client, 'fixloop.trust', arg, bufnr, function(result)
    if type(result) ~= 'table' then
      return
    end
    local lines = {}
    for _, k in ipairs(result.revoked or {}) do
      table.insert(lines, 'revoked: ' .. tostring(k))
    end
    for _, g in ipairs(result.grants or {}) do
      table.insert(lines, ('granted: %s (%s accepted before)'):format(tostring(g.id), tostring(g.accepted)))
    end
    if #lines == 0 then
      lines = { 'no grants: every fix is offered for review' }
    end
    state.notify(table.concat(lines, '\n'))
  end)
end

--- :FixloopUndo: take back the last fix applied without asking (and end its grant).
---@param bufnr integer
function M.undo(bufnr)
  local client = M.client_for(bufnr)
  if not client then
    return
  end
  M.execute(client, 'fixloop.undo', vim.empty_dict(), bufnr, function(result)
    local n = type(result) == 'table' and type(result.undone) == 'table' and #result.undone or 0
    state.notify(('undone: %d change%s; fixes like it are offered for review again'):format(n, n == 1 and '' or 's'))
  end)
end

--- Create the commands in `bufnr` for `client` (the LspAttach handler in plugin/fixloop.lua calls this).
---@param client vim.lsp.Client
---@param bufnr integer
function M.attach(client, bufnr)
  if client.name ~= config.NAME or state.client(client.id).incompatible then
    return
  end
  local function create(name, fn, opts)
    vim.api.nvim_buf_create_user_command(bufnr, name, fn, opts)
  end
  create('FixloopFix', function(a)
    if a.bang then
      M.fix_goal(bufnr, a.args)
    else
      M.fix(bufnr, a.args ~= '' and a.args or nil)
    end
  end, {
    nargs = '*',
    bang = true,
    complete = function(_, line)
      return line:match('^%s*%S-!') and {} or { 'workspace', 'file' }
    end,
    desc = 'fixloop: fix until the tests pass (workspace, or file: the tests in this file); '
      .. 'with !: fix the problem described in words',
  })
  create('FixloopCheck', function(a)
    M.fix_checks(bufnr, a.fargs)
  end, {
    nargs = '*',
    complete = function()
      return M.CHECKERS
    end,
    desc = "fixloop: fix the checkers' findings (ruff by default; ruff, mypy, pyright), the tests kept passing",
  })
  create('FixloopFixTest', function()
    M.fix_test(bufnr)
  end, { desc = 'fixloop: fix until the test at the cursor passes' })
  create('FixloopCancel', function()
    M.cancel(bufnr)
  end, { desc = 'fixloop: cancel the running fix' })
  create('FixloopReview', function(a)
    M.review(bufnr, a.args)
  end, { nargs = '?', desc = 'fixloop: review the proposed fix hunk by hunk' })
  create('FixloopLog', function()
    M.show_log()
  end, { desc = 'fixloop: show what the server reported' })
  create('FixloopHistory', function()
    require('fixloop.history').pick(bufnr)
  end, { desc = 'fixloop: pick a past run and reopen its review' })
  create('FixloopReport', function()
    require('fixloop.history').report(bufnr)
  end, { desc = 'fixloop: write the HTML report, open it, show the headline KPIs' })
  create('FixloopSettings', function()
    M.settings(bufnr)
  end, { desc = 'fixloop: the settings in effect, and what the workspace asked for and did not get' })
  create('FixloopTrust', function(a)
    M.trust(bufnr, a.fargs)
  end, {
    nargs = '*',
    complete = function()
      return { 'revoke' }
    end,
    desc = 'fixloop: the grants to apply fixes without asking (revoke {kind}|all ends one)',
  })
  create('FixloopUndo', function()
    M.undo(bufnr)
  end, { desc = 'fixloop: take back the fix applied without asking, and end its grant' })
  create('FixloopTemplates', function()
    require('fixloop.templates').pick(bufnr)
  end, { desc = 'fixloop: review the mined templates (approve or reject)' })
end

--- Remember progress messages (for status() and :FixloopLog); the LspProgress autocmd calls this.
---@param client_id integer
---@param value table the $/progress value
function M.on_progress(client_id, value)
  if type(value) ~= 'table' then
    return
  end
  local s = state.client(client_id)
  if value.kind == 'end' then
    s.progress = nil
  else
    s.progress = value.message or value.title
  end
  if value.message then
    state.append('progress: ' .. value.message)
  end
end

return M
