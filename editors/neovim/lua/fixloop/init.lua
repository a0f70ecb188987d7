--- fixloop for Neovim: fix until the tests pass, review the fix hunk by hunk.
--- Requiring this module does nothing by itself; call setup() for options, or just vim.lsp.enable('fixloop').
local M = {}

local group_name = 'fixloop'

--- Create the plugin's autocommands (idempotent). plugin/fixloop.lua calls this at startup.
function M.autocmds()
  local group = vim.api.nvim_create_augroup(group_name, { clear = true })
  vim.api.nvim_create_autocmd('LspAttach', {
    group = group,
    desc = 'fixloop: buffer-local commands',
    callback = function(ev)
      local client = vim.lsp.get_client_by_id(ev.data.client_id)
      if client and client.name == 'fixloop' then
        require('fixloop.commands').attach(client, ev.buf)
      end
    end,
  })
  -- Neovim skips a config whose cmd list is not executable with only a log entry; say it instead.
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    desc = 'fixloop: tell when the server cannot start',
    callback = function(ev)
      if not (vim.lsp.is_enabled and vim.lsp.is_enabled('fixloop')) then
        return
      end
      local ok, cfg = pcall(function()
        return vim.lsp.config.fixloop
      end)
      if ok and cfg and vim.tbl_contains(cfg.filetypes or {}, vim.bo[ev.buf].filetype) and vim.bo[ev.buf].buftype == '' then
        require('fixloop.lsp').warn_if_missing()
      end
    end,
  })
  vim.api.nvim_create_autocmd('LspProgress', {
    group = group,
    desc = 'fixloop: remember progress for status() and :FixloopLog',
    callback = function(ev)
      local client = vim.lsp.get_client_by_id(ev.data.client_id)
      if client and client.name == 'fixloop' then
        require('fixloop.commands').on_progress(client.id, ev.data.params and ev.data.params.value)
      end
    end,
  })
end

--- Options (see :help fixloop-options). Raises an error naming a bad option.
---@param opts? table
function M.setup(opts)
  local config = require('fixloop.config')
  local o = config.apply(opts)
  require('fixloop.lsp').reset_warnings()
  vim.lsp.config('fixloop', {
    filetypes = o.filetypes,
    root_markers = o.root_markers,
    init_options = config.init_options(o),
    settings = { fixloop = config.configuration(o) },
  })
  M.autocmds()
  if o.enable then
    vim.lsp.enable('fixloop')
  end
end

--- A short status for the statusline: the running phase, or the last result, or ''.
---@param bufnr? integer
---@return string
function M.status(bufnr)
  local client = vim.lsp.get_clients({ bufnr = bufnr or 0, name = 'fixloop' })[1]
  if not client then
    return ''
  end
  local s = require('fixloop.state').client(client.id)
  if s.progress or s.running then
    return 'fixloop: ' .. (s.progress or 'running')
  end
  if s.last then
    return 'fixloop: ' .. (s.last.status or '?')
  end
  return 'fixloop: idle'
end

return M
