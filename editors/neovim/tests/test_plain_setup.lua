-- A new user's first start: require('fixloop').setup({}) with no settings (run in its own Neovim, so no
-- earlier setup() call has left settings in vim.lsp.config).
local H = dofile(vim.fn.fnamemodify(arg[0], ':p:h') .. '/helpers.lua')

H.test('setup({}) sends the settings as a JSON object, and the real server takes them quietly', function()
  require('fixloop').setup({ python = H.python })
  H.eq(0, vim.tbl_count(require('fixloop.config').get().settings), 'no settings given')
  local cfg = vim.lsp.config.fixloop
  H.contains(vim.json.encode(cfg.init_options), '"settings":{}', 'initializationOptions')
  H.contains(vim.json.encode(cfg.settings), '"settings":{}', 'workspace/configuration section')
  local root = H.project()
  local client = H.open_attached(root .. '/inventory/pricing.py', 30000)
  -- The server asks for workspace/configuration after `initialized` and on didChangeConfiguration; a
  -- section of the wrong shape gets a warning (window/showMessage, which Neovim shows with vim.notify).
  local asked = 0
  local original = client.handlers['workspace/configuration'] or vim.lsp.handlers['workspace/configuration']
  client.handlers['workspace/configuration'] = function(...)
    asked = asked + 1
    return original(...)
  end
  client:notify('workspace/didChangeConfiguration', { settings = vim.empty_dict() })
  H.wait(10000, function()
    return asked > 0
  end, 'the server to ask for workspace/configuration')
  vim.wait(1500)
  for _, m in ipairs(H.messages) do
    H.eq(nil, m.msg:find('expected an object', 1, true) and m.msg, 'a settings warning')
  end
  H.stop_clients()
end)

H.run()
