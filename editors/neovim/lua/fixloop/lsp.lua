--- The client side of the protocol: start command, root, version handshake, exit messages, handlers.
--- lsp/fixloop.lua points its function fields here so that the config file stays a plain table.
local config = require('fixloop.config')
local state = require('fixloop.state')

local M = {}

local warned_missing = false

--- `cmd` as a function so a missing executable gets a message instead of Neovim's silent log entry.
---@param dispatchers vim.lsp.rpc.Dispatchers
---@return vim.lsp.rpc.PublicClient
function M.start(dispatchers)
  local cmd = config.server_cmd()
  -- Never in the project's folder: the workspace reaches the server as its root only (docs/protocol.md).
  return vim.lsp.rpc.start(cmd, dispatchers, { cwd = config.neutral_dir() })
end

--- The command that will run: a list given with vim.lsp.config('fixloop', { cmd = ... }) wins over
--- the plugin's options.
---@return string[]
function M.effective_cmd()
  local ok, resolved = pcall(function()
    return vim.lsp.config.fixloop
  end)
  if ok and resolved and type(resolved.cmd) == 'table' then
    return resolved.cmd
  end
  return config.server_cmd()
end

--- Why the server cannot be started, or nil when it can.
---@return string|nil
function M.missing_reason()
  local cmd = M.effective_cmd()
  if vim.fn.executable(cmd[1]) == 1 then
    return nil
  end
  if not vim.deep_equal(cmd, config.server_cmd()) then
    return ('the server command %q is not executable (vim.lsp.config cmd)'):format(cmd[1])
  end
  local opts = config.get()
  if opts.cmd then
    return ('the server command %q is not executable (option `cmd`)'):format(cmd[1])
  end
  if opts.python then
    return ('the Python interpreter %q is not executable (option `python`)'):format(cmd[1])
  end
  return 'neither `fixloop-server` nor `python3` is on PATH'
end

--- Say once why the server cannot start; returns true when it cannot.
---@return boolean
function M.warn_if_missing()
  local why = M.missing_reason()
  if why and not warned_missing then
    warned_missing = true
    state.notify(
      ('cannot start the language server: %s. Run :FixloopInstall (a private environment), or install fixloop '
        .. "yourself and set `python` in require('fixloop').setup{} to the interpreter that has it; "
        .. ':checkhealth fixloop'):format(why),
      vim.log.levels.ERROR
    )
  end
  return why ~= nil
end

---@param bufnr integer
---@param on_dir fun(root_dir?: string)
function M.root_dir(bufnr, on_dir)
  if M.warn_if_missing() then
    return
  end
  local name = vim.api.nvim_buf_get_name(bufnr)
  local root = vim.fs.root(bufnr, config.get().root_markers)
  on_dir(root or (name ~= '' and vim.fs.dirname(name) or vim.fn.getcwd()))
end

--- Reset the one-time "missing" message (setup() calls this after the options change).
function M.reset_warnings()
  warned_missing = false
end

--- The version handshake: refuse a server that does not speak our protocol.
---@param client vim.lsp.Client
---@param result lsp.InitializeResult
function M.on_init(client, result)
  local s = state.client(client.id)
  s.initialized = true
  local caps = result and result.capabilities or {}
  local fl = type(caps.experimental) == 'table' and caps.experimental.fixloop or nil
  local protocol = type(fl) == 'table' and fl.protocol or nil
  local version = client.server_info and client.server_info.version or '?'
  if protocol == config.PROTOCOL then
    state.append(('server %s started (protocol %d)'):format(version, protocol))
    return
  end
  if protocol == nil then
    s.incompatible = ('the server (%s %s) does not announce the fixloop protocol; is it the fixloop server?'):format(
      client.server_info and client.server_info.name or '?',
      version
    )
  else
    s.incompatible = ('the server (fixloop %s) speaks protocol %s, this plugin speaks %d: update the one that is older'):format(
      version,
      vim.inspect(protocol),
      config.PROTOCOL
    )
  end
  state.notify('incompatible language server: ' .. s.incompatible, vim.log.levels.ERROR)
  -- Not from inside on_init: Neovim attaches the buffers right after it returns.
  vim.schedule(function()
    for bufnr in pairs(client.attached_buffers) do
      vim.lsp.buf_detach_client(bufnr, client.id)
    end
    client:stop()
  end)
end

---@param code integer
---@param signal integer
---@param client_id integer
function M.on_exit(code, signal, client_id)
  local s = state.client(client_id)
  local client = vim.lsp.get_client_by_id(client_id)
  -- A client stopped on purpose (:lsp stop, quitting, our own refusal) did not crash, whatever its exit code.
  local stopping = client ~= nil and client._is_stopping == true
  local crashed = not stopping and (code ~= 0 or (signal ~= 0 and signal ~= 15))
  vim.schedule(function()
    if s.incompatible or not crashed then
      return
    end
    if not s.initialized then
      state.notify(
        ('the language server exited before it started (exit code %d). Is fixloop installed for %s? '
          .. ':FixloopInstall installs it; :checkhealth fixloop tells; the server output is in %s'):format(code, M.effective_cmd()[1],
          vim.lsp.log.get_filename()),
        vim.log.levels.ERROR
      )
    else
      local run = s.running and (' during run ' .. s.running) or ''
      state.notify(
        ('the language server crashed%s (exit code %d, signal %d); see :FixloopLog. :edit starts it again')
          :format(run, code, signal),
        vim.log.levels.ERROR
      )
    end
    s.running = nil
  end)
end

--- `fixloop/runFinished`: remember the summary, say what happened, open the review when there is a fix.
---@param result table run summary
---@param ctx lsp.HandlerContext
function M.on_run_finished(_, result, ctx)
  if type(result) ~= 'table' then
    return
  end
  local s = state.client(ctx.client_id)
  s.running = nil
  s.progress = nil
  s.last = result
  local pending = 0
  for _, h in ipairs(result.hunks or {}) do
    if h.state == 'pending' then
      pending = pending + 1
    end
  end
  local msg = ('run %s: %s'):format(result.status or '?', ((result.message or ''):gsub('%s*\n%s*', ' ')))
  if result.status == 'fixed' then
    msg = msg .. (' (%d hunk%s to review: :FixloopReview)'):format(pending, pending == 1 and '' or 's')
  end
  -- A run that did not end fixed: what to do next (the server escapes what came from the project).
  for _, step in ipairs(type(result.next_steps) == 'table' and result.next_steps or {}) do
    if type(step) == 'string' then
      msg = msg .. '\nnext: ' .. step
    end
  end
  if type(result.applied_without_asking) == 'string' then
    -- A trust grant: the server puts the fix into the buffers itself (fixloop/autoApplied says when).
    state.notify(('run fixed: %s; applied without asking (%s)'):format(
      ((result.message or ''):gsub('%s*\n%s*', ' ')), result.applied_without_asking))
    return
  end
  local ok = result.status == 'fixed' or result.status == 'nothing_to_fix'
  state.notify(msg, ok and vim.log.levels.INFO or vim.log.levels.WARN)
  if result.status == 'fixed' and pending > 0 and config.get().open_review_on_fix then
    vim.schedule(function()
      local client = vim.lsp.get_client_by_id(ctx.client_id)
      if client then
        require('fixloop.review').open(client, result)
      end
    end)
  end
end

--- `fixloop/autoApplied`: a fix went into the buffers without asking (a trust grant). Undo is the buffer's own
--- `u` (the server sees the text come back and ends the grant) or :FixloopUndo.
function M.on_auto_applied(_, result, ctx)
  if type(result) ~= 'table' then
    return
  end
  local files = type(result.files) == 'table' and table.concat(vim.tbl_map(tostring, result.files), ', ') or '?'
  state.notify(('applied without asking to %s (%s), not saved: u or :FixloopUndo undoes it and ends the grant; '
    .. ':FixloopTrust lists the grants'):format(files, tostring(result.kind or '?')))
end

--- Keep the server's log messages for :FixloopLog, then show them the default way.
function M.on_log_message(err, result, ctx)
  if type(result) == 'table' and result.message then
    state.append('server: ' .. result.message)
  end
  return vim.lsp.handlers['window/logMessage'](err, result, ctx)
end

--- `workspace/applyEdit` with a file creation in it: refused when the file exists. Neovim's own CreateFile
--- truncates an existing file unless `ignoreIfExists` is set, and with it inserts the text into that file;
--- fixloop only ever creates new files (a goal's reproduction test), so an existing one means "do not touch".
function M.on_apply_edit(err, params, ctx)
  local changes = type(params) == 'table' and type(params.edit) == 'table' and params.edit.documentChanges or {}
  local created = {}
  for _, change in ipairs(changes) do
    if type(change) == 'table' and change.kind == 'create' and type(change.uri) == 'string' then
      local path = vim.uri_to_fname(change.uri)
      local client = vim.lsp.get_client_by_id(ctx.client_id)
      local root = client and client.root_dir or vim.fs.dirname(path)
      local why = require('fixloop.newfile').problem(path, root)
      if why then
        state.notify('edit not applied: ' .. why, vim.log.levels.WARN)
        return { applied = false, failureReason = why }
      end
      table.insert(created, path)
    end
  end
  local result = vim.lsp.handlers['workspace/applyEdit'](err, params, ctx)
  -- An empty buffer is one empty line: the text inserted at 0:0 leaves it as an extra last line.
  for _, path in ipairs(created) do
    local buf = vim.fn.bufnr(path)
    if buf ~= -1 and vim.api.nvim_buf_is_loaded(buf) then
      local n = vim.api.nvim_buf_line_count(buf)
      if n > 1 and vim.api.nvim_buf_get_lines(buf, n - 1, n, false)[1] == '' then
        vim.api.nvim_buf_set_lines(buf, n - 1, n, false, {})
      end
    end
  end
  return result
end

M.handlers = {
  ['workspace/applyEdit'] = function(...)
    return M.on_apply_edit(...)
  end,
  ['fixloop/runFinished'] = function(...)
    return M.on_run_finished(...)
  end,
  ['fixloop/autoApplied'] = function(...)
    return M.on_auto_applied(...)
  end,
  ['window/logMessage'] = function(...)
    return M.on_log_message(...)
  end,
}

return M
