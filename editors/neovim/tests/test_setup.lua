-- Options: nothing runs at require time; setup() validates and passes options to the LSP config.
local H = dofile(vim.fn.fnamemodify(arg[0], ':p:h') .. '/helpers.lua')

H.test('require does nothing by itself', function()
  local before_cmds = vim.tbl_count(vim.api.nvim_get_commands({}))
  local fixloop = require('fixloop')
  H.eq('function', type(fixloop.setup), 'setup')
  H.eq(before_cmds, vim.tbl_count(vim.api.nvim_get_commands({})), 'global commands')
  H.eq(0, #vim.api.nvim_get_autocmds({ event = 'LspAttach' }), 'LspAttach autocmds')
  H.eq(false, vim.lsp.is_enabled('fixloop'), 'enabled')
  H.eq(nil, package.loaded['fixloop.review'], 'review module loaded')
end)

H.test('lsp/fixloop.lua is a vim.lsp.Config with the protocol init_options', function()
  local cfg = vim.lsp.config.fixloop
  H.truthy(cfg, 'vim.lsp.config.fixloop')
  H.eq({ 'python' }, cfg.filetypes, 'filetypes')
  H.truthy(vim.tbl_contains(cfg.root_markers, 'pyproject.toml'), 'pyproject.toml is a root marker')
  H.eq('function', type(cfg.cmd), 'cmd')
  H.eq('client', cfg.init_options.review, 'review mode')
  H.eq('function', type(cfg.handlers['fixloop/runFinished']), 'runFinished handler')
end)

H.test('setup() passes settings, python and enable', function()
  require('fixloop').setup({
    python = '/opt/py/bin/python',
    settings = { max_iterations = 7, sandbox = { backend = 'bwrap' }, llm = { model = 'claude-x' } },
    review = { layout = 'split', keys = { accept = 'y' } },
  })
  local cfg = vim.lsp.config.fixloop
  local settings = { max_iterations = 7, sandbox = { backend = 'bwrap' }, llm = { model = 'claude-x' } }
  H.eq({ review = 'client', settings = settings, workspaceSettings = vim.empty_dict() }, cfg.init_options, 'init_options')
  H.eq({ settings = settings }, cfg.settings.fixloop, 'workspace/configuration section fixloop: the user settings')
  -- Isolated (-I), and started in the plugin's own folder, never the project's.
  H.eq({ '/opt/py/bin/python', '-I', '-m', 'fixloop.lsp.server', '--stdio' }, require('fixloop.config').server_cmd(), 'command')
  H.eq(vim.fn.stdpath('data') .. '/fixloop', cfg.cmd_cwd, 'cmd_cwd')
  local o = require('fixloop.config').get()
  H.eq('y', o.review.keys.accept, 'changed key')
  H.eq('r', o.review.keys.reject, 'default key kept')
  H.eq(true, vim.lsp.is_enabled('fixloop'), 'enabled by setup()')
  H.eq(1, #vim.api.nvim_get_autocmds({ group = 'fixloop', event = 'LspAttach' }), 'one LspAttach autocmd')
  require('fixloop').setup({ enable = false, cmd = { 'my-server', '--stdio' } })
  H.eq(1, #vim.api.nvim_get_autocmds({ group = 'fixloop', event = 'LspAttach' }), 'still one after a second setup()')
  H.eq({ 'my-server', '--stdio' }, require('fixloop.config').server_cmd(), 'cmd wins')
end)

H.test('setup() names a bad option', function()
  local cases = {
    { { pyhton = 'x' }, 'unknown option "pyhton"' },
    { { settings = 3 }, 'settings' },
    { { review = { layout = 'float' } }, 'review.layout' },
    { { notify = 1 }, 'notify' },
  }
  for _, case in ipairs(cases) do
    local ok, err = pcall(require('fixloop').setup, case[1])
    H.eq(false, ok, vim.inspect(case[1]) .. ' accepted')
    H.contains(err, case[2], 'error for ' .. vim.inspect(case[1]))
  end
end)

H.test('the plugin file loads once, and the commands appear only in attached buffers', function()
  vim.g.loaded_fixloop = nil
  vim.cmd('runtime! plugin/fixloop.lua')
  H.eq(true, vim.g.loaded_fixloop, 'loaded')
  require('fixloop').setup({ cmd = H.stub_cmd() })
  local root = H.project()
  vim.cmd.edit(root .. '/README-not-python.txt')
  H.eq(nil, vim.api.nvim_buf_get_commands(0, {}).FixloopFix, 'no commands in a text buffer')
  H.open_attached(root .. '/inventory/pricing.py')
  local cmds = vim.api.nvim_buf_get_commands(0, {})
  for _, name in ipairs({ 'FixloopFix', 'FixloopCheck', 'FixloopFixTest', 'FixloopCancel', 'FixloopReview', 'FixloopLog',
    'FixloopTrust', 'FixloopUndo' }) do
    H.truthy(cmds[name], name)
  end
  H.eq(nil, vim.api.nvim_get_commands({}).FixloopFix, 'no global command')
  H.eq('fixloop: idle', require('fixloop').status(), 'status')
  vim.cmd('FixloopFix everything')
  H.contains(H.wait_message(1000, 'unknown scope').msg, "use 'workspace' or 'file'")
end)

H.test("vim.lsp.enable('fixloop') alone: fixloop-server from PATH", function()
  vim.g.loaded_fixloop = nil
  vim.cmd('runtime! plugin/fixloop.lua')
  local bin = vim.fn.tempname()
  vim.fn.mkdir(bin, 'p')
  vim.fn.writefile({ '#!/bin/sh', ('exec %s %s "$@"'):format(H.python, H.stub) }, bin .. '/fixloop-server')
  vim.fn.setfperm(bin .. '/fixloop-server', 'rwxr-xr-x')
  vim.env.PATH = bin .. ':' .. vim.env.PATH
  require('fixloop.config').apply({}) -- the defaults, as without setup()
  vim.lsp.enable('fixloop')
  local client = H.open_attached(H.project() .. '/inventory/stock.py')
  H.eq('fixloop', client.name, 'client')
  H.eq({ bin .. '/fixloop-server', '--stdio' }, require('fixloop.config').server_cmd(), 'default command, by its full path')
  vim.lsp.enable('fixloop', false)
end)

H.test("a cmd list given with vim.lsp.config wins and is checked", function()
  vim.lsp.config('fixloop', { cmd = { '/nonexistent/fixloop-server' } })
  vim.lsp.enable('fixloop')
  vim.cmd.edit(H.project() .. '/inventory/stock.py')
  local m = H.wait_message(5000, 'cannot start the language server')
  H.contains(m.msg, '/nonexistent/fixloop-server')
  vim.lsp.enable('fixloop', false)
end)

H.test('installed as a native package: plugin file, lsp config and help load', function()
  local pack = vim.fn.tempname()
  vim.fn.mkdir(pack .. '/pack/fixloop/start', 'p')
  vim.uv.fs_symlink(H.plugin_dir, pack .. '/pack/fixloop/start/fixloop')
  local probe = [[lua io.stdout:write(vim.json.encode({
    loaded = vim.g.loaded_fixloop,
    autocmds = #vim.api.nvim_get_autocmds({ group = 'fixloop' }),
    review = vim.lsp.config.fixloop.init_options.review,
    help = vim.fn.globpath(vim.o.rtp, 'doc/fixloop.txt') ~= '',
  }))]]
  local r = vim.system({ vim.v.progpath, '--clean', '--headless', '--cmd', 'set packpath^=' .. pack,
    '-c', probe, '-c', 'qa!' }, { text = true }):wait(30000)
  H.eq(0, r.code, 'nested nvim: ' .. (r.stderr or ''))
  local got = vim.json.decode(r.stdout)
  H.eq({ loaded = true, autocmds = 3, review = 'client', help = true }, got, 'what the package provides')
end)

H.run()
