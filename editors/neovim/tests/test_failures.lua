-- The server missing, dying at start, crashing mid-run, or speaking another protocol: a clear message each.
local H = dofile(vim.fn.fnamemodify(arg[0], ':p:h') .. '/helpers.lua')
local root = H.project('two_hunks')
local pricing = root .. '/inventory/pricing.py'

H.test('a missing interpreter: one message with the fix, no client', function()
  require('fixloop').setup({ python = '/nonexistent/venv/bin/python' })
  vim.cmd.edit(pricing)
  local m = H.wait_message(5000, 'cannot start the language server')
  H.eq(vim.log.levels.ERROR, m.level, 'level')
  H.contains(m.msg, '/nonexistent/venv/bin/python')
  H.contains(m.msg, 'checkhealth fixloop')
  vim.cmd.edit(root .. '/inventory/stock.py')
  vim.wait(300)
  local count = #vim.tbl_filter(function(x)
    return x.msg:find('cannot start', 1, true) ~= nil
  end, H.messages)
  H.eq(1, count, 'said once')
  H.eq(0, #vim.lsp.get_clients({ name = 'fixloop' }), 'clients')
end)

H.test('a server that exits at start (fixloop not installed)', function()
  require('fixloop').setup({ cmd = H.stub_cmd('--exit-at-start') })
  vim.cmd.edit(pricing)
  local m = H.wait_message(10000, 'exited before it started')
  H.contains(m.msg, 'Is fixloop installed for ' .. H.python)
  H.contains(m.msg, vim.lsp.log.get_filename(), 'where the output is')
  -- The server's stderr is in the LSP log, which :FixloopLog also shows.
  H.wait(3000, function()
    return table.concat(vim.fn.readfile(vim.lsp.log.get_filename()), '\n'):find("No module named 'fixloop'", 1, true) ~= nil
  end, 'stderr in the LSP log')
end)

H.test('a crash during a run', function()
  require('fixloop').setup({ cmd = H.stub_cmd('--crash-on-fix') })
  H.open_attached(pricing)
  vim.cmd('FixloopFix')
  local m = H.wait_message(10000, 'the language server crashed')
  H.contains(m.msg, 'exit code 3')
  H.contains(m.msg, ':FixloopLog')
  H.contains(m.msg, ':edit starts it again')
  -- ... and it does (here with a server that does not crash): the same buffer gets a new client.
  require('fixloop').setup({ cmd = H.stub_cmd() })
  H.wait(5000, function()
    return #vim.lsp.get_clients({ name = 'fixloop' }) == 0
  end, 'the crashed client to go')
  vim.cmd('edit')
  H.wait(20000, function()
    local c = vim.lsp.get_clients({ bufnr = 0, name = 'fixloop' })[1]
    return c ~= nil and c.initialized
  end, 'a new client after :edit')
  vim.cmd('FixloopLog')
  local log = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
  H.contains(log, 'crashing on purpose', ':FixloopLog shows the server stderr')
  H.contains(log, 'the language server crashed', ':FixloopLog keeps the messages')
end)

H.test('another protocol version: refused, stopped, no commands', function()
  require('fixloop').setup({ cmd = H.stub_cmd('--protocol', '2') })
  vim.cmd.edit(pricing)
  local m = H.wait_message(10000, 'incompatible language server')
  H.contains(m.msg, 'speaks protocol 2, this plugin speaks 1')
  H.wait(5000, function()
    return #vim.lsp.get_clients({ name = 'fixloop' }) == 0
  end, 'the client to stop')
  H.eq(nil, vim.api.nvim_buf_get_commands(0, {}).FixloopFix, 'no commands')
  H.eq(nil, H.find_message('crashed'), 'not reported as a crash')
end)

H.test('a server that announces no fixloop protocol', function()
  require('fixloop').setup({ cmd = H.stub_cmd('--protocol', '0') })
  vim.cmd.edit(pricing)
  local m = H.wait_message(10000, 'incompatible language server')
  H.contains(m.msg, 'does not announce the fixloop protocol')
end)

H.run()
