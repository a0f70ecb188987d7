--- The run history: :FixloopHistory (pick a past run, reopen its review) and :FixloopReport (write the HTML
--- report, open it, echo the headline KPIs). Both ask the server (docs/protocol.md "fixloop.history",
--- "fixloop.report"); nothing here reads the project's .fixloop folder itself.
local state = require('fixloop.state')

local M = {}

local STATUS = {
  fixed = 'fixed',
  gave_up = 'gave up',
  limits = 'hit limits',
  cancelled = 'cancelled',
  error = 'error',
  nothing_to_fix = 'nothing to fix',
  flaky = 'flaky',
}

--- One line per past run in the picker.
---@param run table a row of fixloop.history
---@return string
function M.format_item(run)
  local fixer = (run.proposer or '') ~= '' and (' by %s/%s'):format(run.proposer, run.operator or '?') or ''
  local decision = (run.decision or '') ~= '' and (', you ' .. run.decision) or ''
  return ('%s  %s%s  %s  %d cand., $%.4f, %.1f s%s'):format(
    os.date('%Y-%m-%d %H:%M', math.floor(tonumber(run.started) or 0)),
    STATUS[run.status] or tostring(run.status),
    fixer,
    (run.target or '') ~= '' and run.target or 'all tests',
    tonumber(run.candidates) or 0,
    tonumber(run.cost_usd) or 0,
    tonumber(run.seconds) or 0,
    decision
  )
end

---@param bufnr integer
function M.pick(bufnr)
  local commands = require('fixloop.commands')
  local client = commands.client_for(bufnr)
  if not client then
    return
  end
  commands.execute(client, 'fixloop.history', vim.empty_dict(), bufnr, function(result)
    local runs = type(result) == 'table' and result.runs or nil
    if type(runs) ~= 'table' or #runs == 0 then
      state.notify('no runs in this workspace yet: :FixloopFix leaves one')
      return
    end
    vim.ui.select(runs, { prompt = ('fixloop: %d past runs'):format(result.total or #runs), format_item = M.format_item },
      function(run)
        if run then
          require('fixloop.review').show(client, run.run_id)
        end
      end)
  end)
end

--- The headline KPIs as one message: "fixloop report: PATH" then "name: value" lines.
---@param result table the fixloop.report result
---@return string
function M.headline_text(result)
  local lines = { 'report: ' .. tostring(result.path) }
  for _, pair in ipairs(result.headline or {}) do
    table.insert(lines, ('%s: %s'):format(pair[1], pair[2]))
  end
  if (result.note or '') ~= '' then
    table.insert(lines, result.note)
  end
  return table.concat(lines, '\n')
end

---@param bufnr integer
function M.report(bufnr)
  local commands = require('fixloop.commands')
  local client = commands.client_for(bufnr)
  if not client then
    return
  end
  commands.execute(client, 'fixloop.report', vim.empty_dict(), bufnr, function(result)
    if type(result) ~= 'table' or type(result.path) ~= 'string' then
      state.notify('the server wrote no report', vim.log.levels.WARN)
      return
    end
    state.notify(M.headline_text(result))
    local ok, err = pcall(vim.ui.open, result.path)
    if not ok then
      state.notify(('cannot open %s: %s'):format(result.path, err), vim.log.levels.WARN)
    end
  end)
end

return M
