--- :FixloopTemplates: the mined templates of your memory (recurring fixes, generalised). Pick one with
--- vim.ui.select, read its before/after diff, then approve or reject it (docs/protocol.md "fixloop.templates").
local state = require('fixloop.state')

local M = {}

local ORDER = { proposed = 1, approved = 2, ['approved, demoted'] = 3, rejected = 4 }

--- One line per template in the picker.
---@param t table a template of fixloop.templates
---@return string
function M.format_item(t)
  local tried = (tonumber(t.tries) or 0) > 0 and (', fixed %d of %d runs'):format(t.successes or 0, t.tries) or ''
  return ('[%s] %s  %s -> %s  (%d fixes%s; %s)'):format(
    t.status, t.name, t.before_shape, t.after_shape, tonumber(t.support) or 0, tried, t.id)
end

--- The template as diff lines: its shapes, then each example it was mined from.
---@param t table
---@return string[]
function M.preview_lines(t)
  local lines = {
    ('# fixloop mined template %s: %s'):format(t.id, t.name),
    ('# %s; the engine tries it %s'):format(t.status, t.place),
    '--- before', '+++ after', '@@ shape @@', '-' .. t.before_shape, '+' .. t.after_shape,
  }
  for _, e in ipairs(t.examples or {}) do
    vim.list_extend(lines, { ('@@ %s (%s) @@'):format(e.path, e.project), '-' .. e.before, '+' .. e.after })
  end
  return lines
end

local function preview(t)
  vim.cmd('botright new')
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].swapfile = false
  pcall(vim.api.nvim_buf_set_name, buf, 'fixloop://template/' .. t.id)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, M.preview_lines(t))
  vim.bo[buf].modifiable = false
  vim.bo[buf].filetype = 'diff'
  vim.keymap.set('n', 'q', '<cmd>close<cr>', { buffer = buf, nowait = true, desc = 'close the template preview' })
  return buf
end

---@param bufnr integer
function M.pick(bufnr)
  local commands = require('fixloop.commands')
  local client = commands.client_for(bufnr)
  if not client then
    return
  end
  commands.execute(client, 'fixloop.templates', { action = 'list' }, bufnr, function(result)
    local templates = type(result) == 'table' and result.templates or nil
    if type(templates) ~= 'table' or #templates == 0 then
      state.notify('no mined templates yet: a fix must recur in two places first')
      return
    end
    table.sort(templates, function(a, b)
      return (ORDER[a.status] or 9) < (ORDER[b.status] or 9)
    end)
    local prompt = ('fixloop: mined templates (%d proposed)'):format(result.proposed or 0)
    vim.ui.select(templates, { prompt = prompt, format_item = M.format_item }, function(t)
      if not t then
        return
      end
      preview(t)
      local choices = { 'Approve', 'Reject', 'Not now' }
      vim.ui.select(choices, { prompt = ('fixloop: mined template %s (%s)'):format(t.id, t.status) }, function(choice)
        if choice ~= 'Approve' and choice ~= 'Reject' then
          return
        end
        local action = choice == 'Approve' and 'approve' or 'reject'
        commands.execute(client, 'fixloop.templates', { action = action, id = t.id }, bufnr, function(decided)
          local d = type(decided) == 'table' and decided.template or nil
          if d then
            state.notify(('mined template %s is %s; the engine tries it %s'):format(d.id, d.status, d.place))
          end
        end)
      end)
    end)
  end)
end

return M
