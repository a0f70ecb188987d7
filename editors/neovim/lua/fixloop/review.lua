--- :FixloopReview: the proposed fix as a diff in a split; each hunk accepted or rejected with a key and
--- reported to the server (fixloop.accept / fixloop.reject). The server applies accepted hunks with
--- workspace/applyEdit, so the buffers change only through an accepted edit.
local config = require('fixloop.config')
local newfile = require('fixloop.newfile')
local state = require('fixloop.state')

local M = {}

---@class fixloop.ReviewView
---@field client_id integer
---@field run_id string
---@field summary table
---@field ranges { first: integer, last: integer, hunk: table }[] rendered line ranges (1-based, inclusive)

---@type table<integer, fixloop.ReviewView>
local views = {}

--- Lines of the file a hunk belongs to, from its buffer when loaded, else from disk.
---@param hunk table
---@return string[]|nil
local function file_lines(hunk)
  local path = hunk.uri and vim.uri_to_fname(hunk.uri) or hunk.path
  local buf = vim.fn.bufnr(path)
  if buf ~= -1 and vim.api.nvim_buf_is_loaded(buf) then
    return vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  end
  local ok, lines = pcall(vim.fn.readfile, path)
  return ok and lines or nil
end

local function strip(lines)
  local out = {}
  for i, l in ipairs(lines) do
    out[i] = (l:gsub('\r?\n$', ''))
  end
  return out
end

--- Where the hunk's old lines are now: at their recorded place, else the one place they occur.
---@return integer|nil 0-based start
local function locate(lines, start, old)
  local function matches(at)
    for i, l in ipairs(old) do
      if lines[at + i] ~= l then
        return false
      end
    end
    return true
  end
  if #old == 0 then
    return start <= #lines and start or nil
  end
  if matches(start) then
    return start
  end
  local found
  for at = 0, #lines - #old do
    if matches(at) then
      if found then
        return nil
      end
      found = at
    end
  end
  return found
end

--- Render a run summary as diff lines; returns the lines and the line range of each hunk.
--- The audit's header lines: by whom, then each finding on one line (model and project text folded).
---@param audit table
---@return string[]
function M.audit_lines(audit)
  local findings = type(audit.findings) == 'table' and audit.findings or {}
  local note = type(audit.note) == 'string' and audit.note ~= '' and (' (' .. audit.note:gsub('%s*\n%s*', ' ') .. ')') or ''
  local out = { ('# audit (%s): %s%s'):format(tostring(audit.by or '?'),
    #findings > 0 and (#findings .. ' finding(s)') or 'nothing found', note) }
  for _, f in ipairs(findings) do
    local where = (type(f.path) == 'string' and f.path ~= '') and ('%s:%s: '):format(f.path, tostring(f.line or 0)) or ''
    local message = (tostring(f.message or '')):gsub('%s*\n%s*', ' ')
    table.insert(out, ('#   %s %s%s (%s)'):format(tostring(f.severity or '?'), where, message, tostring(f.source or '?')))
  end
  return out
end

---@param summary table
---@return string[] lines
---@return { first: integer, last: integer, hunk: table }[] ranges
function M.render(summary)
  local keys = config.get().review.keys
  local ctx_n = config.get().review.context
  local lines = {
    ('# fixloop run %s: %s'):format(summary.run_id or '?', summary.status or '?'),
    '# ' .. ((summary.message or ''):gsub('%s*\n%s*', ' ')),
  }
  if type(summary.review) == 'table' then -- the reviewer's word, beside the diff
    table.insert(lines, ('# review (%s): %s, %s'):format(tostring(summary.review.by or '?'),
      tostring(summary.review.verdict or '?'), (tostring(summary.review.reason or '')):gsub('%s*\n%s*', ' ')))
  end
  if type(summary.audit) == 'table' then -- the security pass, beside the diff
    vim.list_extend(lines, M.audit_lines(summary.audit))
  end
  vim.list_extend(lines, {
    ('# %s accept  %s reject  %s/%s all  %s %s move  %s go to  %s close'):format(
      keys.accept, keys.reject, keys.accept_all, keys.reject_all, keys.next, keys.prev, keys.open, keys.close),
  })
  local ranges = {}
  local last_path
  for _, hunk in ipairs(summary.hunks or {}) do
    if hunk.path ~= last_path then
      table.insert(lines, ('diff --git a/%s b/%s'):format(hunk.path, hunk.path))
      if newfile.is_new_file(hunk) then
        -- A goal's reproduction test: accepting it creates the file (never over an existing one).
        vim.list_extend(lines, { 'new file', '--- /dev/null', '+++ b/' .. hunk.path })
      end
      last_path = hunk.path
    end
    local old = strip(vim.split(hunk.old or '', '\n', { plain = true, trimempty = false }))
    local new = strip(vim.split(hunk.new or '', '\n', { plain = true, trimempty = false }))
    if old[#old] == '' then
      table.remove(old)
    end
    if new[#new] == '' then
      table.remove(new)
    end
    local first = #lines + 1
    local start = hunk.start_line or 0
    local is_new = newfile.is_new_file(hunk)
    table.insert(lines, ('@@ -%d,%d +%d,%d @@ [%s] %s%s%s'):format(is_new and 0 or start + 1, #old, start + 1, #new,
      hunk.state or '?', hunk.id, is_new and ' (new file)' or '',
      hunk.message and hunk.state == 'conflict' and (': ' .. hunk.message:gsub('%s*\n%s*', ' ')) or ''))
    local file = not is_new and hunk.state == 'pending' and ctx_n > 0 and file_lines(hunk) or nil
    local at = file and locate(file, start, old) or nil
    if at then
      for i = math.max(1, at + 1 - ctx_n), at do
        table.insert(lines, ' ' .. file[i])
      end
    end
    for _, l in ipairs(old) do
      table.insert(lines, '-' .. l)
    end
    for _, l in ipairs(new) do
      table.insert(lines, '+' .. l)
    end
    if at then
      for i = at + #old + 1, math.min(#file, at + #old + ctx_n) do
        table.insert(lines, ' ' .. file[i])
      end
    end
    table.insert(ranges, { first = first, last = #lines, hunk = hunk })
  end
  if #ranges == 0 then
    table.insert(lines, '# (no hunks: nothing to review)')
  end
  return lines, ranges
end

---@param bufnr integer
---@return fixloop.ReviewView|nil
function M.view(bufnr)
  return views[bufnr or vim.api.nvim_get_current_buf()]
end

---@param view fixloop.ReviewView
---@param line integer 1-based
local function hunk_at(view, line)
  for _, r in ipairs(view.ranges) do
    if line >= r.first and line <= r.last then
      return r.hunk
    end
  end
end

local function draw(buf, view)
  local lines
  lines, view.ranges = M.render(view.summary)
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
end

--- Fetch the run again and redraw, keeping the cursor on the same hunk.
local function refresh(buf, after)
  local view = views[buf]
  local client = view and vim.lsp.get_client_by_id(view.client_id)
  if not client then
    return
  end
  require('fixloop.commands').execute(client, 'fixloop.showRun', { run_id = view.run_id }, nil, function(summary)
    if type(summary) ~= 'table' or not vim.api.nvim_buf_is_valid(buf) then
      return
    end
    view.summary = summary
    state.client(client.id).last = summary
    draw(buf, view)
    if after then
      after(view)
    end
  end)
end

local function summarize_done(view)
  local counts = { accepted = 0, rejected = 0, conflict = 0, pending = 0 }
  for _, h in ipairs(view.summary.hunks or {}) do
    counts[h.state] = (counts[h.state] or 0) + 1
  end
  if counts.pending == 0 then
    state.notify(('review of run %s done: %d accepted, %d rejected%s'):format(view.run_id, counts.accepted,
      counts.rejected, counts.conflict > 0 and (', %d in conflict'):format(counts.conflict) or ''))
  end
end

--- Accepting new-file hunks (a goal's reproduction test): one whose file exists by now (or is reached through a
--- symbolic link) is not sent; it stays pending with a message, and the file is never touched. The server
--- creates the others with a CreateFile edit, checked again in lsp.lua when it arrives. Returns the ids to send
--- (nil: all pending, when nothing was held back).
---@param view fixloop.ReviewView
---@param client vim.lsp.Client
---@param ids string[]|nil
---@return string[]|nil
function M.check_new_files(view, client, ids)
  local wanted = nil
  if ids then
    wanted = {}
    for _, id in ipairs(ids) do
      wanted[id] = true
    end
  end
  local chosen, held = {}, false
  local root = client.root_dir or vim.fn.getcwd()
  for _, hunk in ipairs(view.summary.hunks or {}) do
    if (wanted and wanted[hunk.id]) or (not wanted and hunk.state == 'pending') then
      local why = newfile.is_new_file(hunk) and newfile.problem(newfile.path(hunk, root), root) or nil
      if why then
        held = true
        state.notify(('hunk %s not applied: %s'):format(hunk.id, why), vim.log.levels.WARN)
      else
        table.insert(chosen, hunk.id)
      end
    end
  end
  if not held then
    return ids
  end
  return chosen
end

--- Report a decision on some hunks (nil ids: all pending ones) and redraw.
---@param buf integer review buffer
---@param verb 'accept'|'reject'
---@param ids string[]|nil
function M.decide(buf, verb, ids)
  local view = views[buf]
  local client = view and vim.lsp.get_client_by_id(view.client_id)
  if not client then
    state.notify('the language server is gone; reopen the review after it restarts', vim.log.levels.ERROR)
    return
  end
  if verb == 'accept' then
    ids = M.check_new_files(view, client, ids)
    if ids and #ids == 0 then
      refresh(buf, summarize_done)
      return
    end
  end
  local arg = { run_id = view.run_id }
  if ids then
    arg.hunks = ids
  end
  require('fixloop.commands').execute(client, 'fixloop.' .. verb, arg, nil, function(result)
    if type(result) == 'table' then
      for _, c in ipairs(result.conflicts or {}) do
        state.notify(('hunk %s not applied: %s'):format(c.id, c.message or 'conflict'), vim.log.levels.WARN)
      end
    end
    refresh(buf, function(v)
      summarize_done(v)
      -- Move on to the first hunk still pending.
      local win = vim.fn.bufwinid(buf)
      for _, r in ipairs(win ~= -1 and v.ranges or {}) do
        if r.hunk.state == 'pending' then
          vim.api.nvim_win_set_cursor(win, { r.first, 0 })
          break
        end
      end
    end)
  end)
end

---@param buf integer
---@param verb 'accept'|'reject'
local function decide_at_cursor(buf, verb)
  local view = views[buf]
  local hunk = view and hunk_at(view, vim.api.nvim_win_get_cursor(0)[1])
  if not hunk then
    state.notify('put the cursor on a hunk', vim.log.levels.WARN)
    return
  end
  -- A hunk in conflict stays in the proposal and can be decided once its lines are back.
  if hunk.state ~= 'pending' and hunk.state ~= 'conflict' then
    state.notify(('hunk %s is already %s'):format(hunk.id, hunk.state), vim.log.levels.WARN)
    return
  end
  M.decide(buf, verb, { hunk.id })
end

local function jump(buf, dir)
  local view = views[buf]
  local line = vim.api.nvim_win_get_cursor(0)[1]
  local targets = vim.tbl_map(function(r)
    return r.first
  end, view and view.ranges or {})
  if dir < 0 then
    targets = vim.fn.reverse(targets)
  end
  for _, first in ipairs(targets) do
    if (dir > 0 and first > line) or (dir < 0 and first < line) then
      vim.api.nvim_win_set_cursor(0, { first, 0 })
      return
    end
  end
end

local function open_source(buf)
  local view = views[buf]
  local hunk = view and hunk_at(view, vim.api.nvim_win_get_cursor(0)[1])
  local client = view and vim.lsp.get_client_by_id(view.client_id)
  if not hunk then
    return
  end
  local path = hunk.uri and vim.uri_to_fname(hunk.uri)
    or vim.fs.joinpath(client and client.root_dir or vim.fn.getcwd(), hunk.path)
  vim.cmd('wincmd p')
  local buf = vim.fn.bufnr(path)
  if buf ~= -1 then
    vim.api.nvim_win_set_buf(0, buf) -- also when it has unsaved (accepted) changes
  else
    vim.cmd.edit(vim.fn.fnameescape(path))
  end
  vim.api.nvim_win_set_cursor(0, { math.min((hunk.start_line or 0) + 1, vim.api.nvim_buf_line_count(0)), 0 })
end

local function map_keys(buf)
  local keys = config.get().review.keys
  local function map(lhs, fn, desc)
    if lhs and lhs ~= '' then
      vim.keymap.set('n', lhs, fn, { buffer = buf, nowait = true, silent = true, desc = 'fixloop: ' .. desc })
    end
  end
  map(keys.accept, function() decide_at_cursor(buf, 'accept') end, 'accept this hunk')
  map(keys.reject, function() decide_at_cursor(buf, 'reject') end, 'reject this hunk')
  map(keys.accept_all, function() M.decide(buf, 'accept', nil) end, 'accept all pending hunks')
  map(keys.reject_all, function() M.decide(buf, 'reject', nil) end, 'reject all pending hunks')
  map(keys.next, function() jump(buf, 1) end, 'next hunk')
  map(keys.prev, function() jump(buf, -1) end, 'previous hunk')
  map(keys.open, function() open_source(buf) end, 'go to the hunk in its file')
  map(keys.close, function() vim.api.nvim_win_close(0, false) end, 'close the review')
end

--- Show a run summary in the review split (reusing an open one for the same run).
---@param client vim.lsp.Client
---@param summary table
---@return integer buf
function M.open(client, summary)
  local name = 'fixloop://review/' .. (summary.run_id or 'latest')
  local buf = vim.fn.bufnr(name)
  local win = buf ~= -1 and vim.fn.bufwinid(buf) or -1
  if win ~= -1 then
    vim.api.nvim_set_current_win(win)
  else
    local layout = config.get().review.layout
    vim.cmd(layout == 'tab' and 'tabnew' or layout == 'split' and 'botright new' or 'botright vnew')
    if buf ~= -1 and vim.api.nvim_buf_is_valid(buf) then
      vim.api.nvim_win_set_buf(0, buf)
    else
      buf = vim.api.nvim_get_current_buf()
      vim.bo[buf].buftype = 'nofile'
      vim.bo[buf].bufhidden = 'wipe'
      vim.bo[buf].swapfile = false
      vim.api.nvim_buf_set_name(buf, name)
      vim.bo[buf].filetype = 'diff'
      map_keys(buf)
      vim.api.nvim_create_autocmd('BufWipeout', {
        buffer = buf,
        callback = function()
          views[buf] = nil
        end,
      })
    end
  end
  views[buf] = { client_id = client.id, run_id = summary.run_id, summary = summary, ranges = {} }
  draw(buf, views[buf])
  local first = views[buf].ranges[1]
  if first then
    vim.api.nvim_win_set_cursor(0, { first.first, 0 })
  end
  return buf
end

--- Fetch a run (default: the latest) with fixloop.showRun and open it.
---@param client vim.lsp.Client
---@param run_id string|nil
function M.show(client, run_id)
  require('fixloop.commands').execute(client, 'fixloop.showRun', run_id and { run_id = run_id } or vim.empty_dict(), nil,
    function(summary)
      if type(summary) ~= 'table' then
        state.notify(run_id and ('no run %s'):format(run_id) or 'no run to review yet: :FixloopFix first', vim.log.levels.WARN)
        return
      end
      M.open(client, summary)
    end)
end

return M
