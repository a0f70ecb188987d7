-- :FixloopInstall as a new user meets it: nothing installed anywhere (no `python`, no fixloop-server on PATH,
-- python3 without fixloop), bad input first, then a real install into stdpath('data') from this checkout,
-- :checkhealth, and a fix run with that server. Slow: a real pip install of the server and its dependencies.
local H = dofile(vim.fn.fnamemodify(arg[0], ':p:h') .. '/helpers.lua')
local install = require('fixloop.install')
local OLD_PYTHON = '/root/.pyenv/versions/3.9.18/bin/python'
local pip_conf = vim.fn.tempname()

--- :FixloopInstall, waiting until it has said how it went.
local function run_install(ms)
  local finished, outcome
  install.run({ on_done = function(ok)
    finished, outcome = true, ok
  end })
  H.wait(ms, function()
    return finished
  end, 'the install to finish')
  return outcome
end

H.test('no Python, or only an old one: a message saying what to do', function()
  vim.cmd('runtime! plugin/fixloop.lua')
  H.eq(2, vim.fn.exists(':FixloopInstall'), ':FixloopInstall exists before any server')
  require('fixloop').setup({ install_python = '/no/such/python3', settings = { offline = true } })
  vim.cmd('FixloopInstall')
  H.contains(H.wait_message(10000, 'installing the server failed').msg, 'none was found (tried /no/such/python3)')
  if vim.fn.executable(OLD_PYTHON) == 1 then
    require('fixloop').setup({ install_python = OLD_PYTHON, settings = { offline = true } })
    H.messages = {}
    H.eq(false, run_install(20000), 'install with Python 3.9')
    H.contains(H.wait_message(1000, 'installing the server failed').msg, 'too old (' .. OLD_PYTHON .. ' is Python 3.9)')
  end
  H.eq(nil, install.installed(), 'nothing installed')
end)

H.test('no network to the package index: a message, nothing installed; the retry installs', function()
  H.truthy(vim.system({ 'python3', '-c', 'import fixloop' }):wait().code ~= 0, 'python3 must not have fixloop')
  require('fixloop').setup({ settings = { offline = true, memory = { uri = vim.fn.tempname() } } })
  vim.fn.writefile({ '[global]', 'index-url = http://127.0.0.1:9/simple', 'retries = 0', 'timeout = 3' }, pip_conf)
  vim.env.PIP_CONFIG_FILE = pip_conf
  H.messages = {}
  H.eq(false, run_install(600000), 'install with no index')
  H.contains(H.wait_message(1000, 'installing the server failed').msg, 'pip could not download')
  H.eq(nil, install.installed(), 'nothing installed after the failure')
  vim.fn.writefile({ '[global]' }, pip_conf) -- the network is back
  H.messages = {}
  local t0 = vim.uv.hrtime()
  H.eq(true, run_install(1500000), 'the retry: ' .. vim.inspect(H.messages))
  H.say(('       install took %.0f s'):format(H.since(t0)))
  local installed = install.installed()
  H.truthy(installed, 'installed')
  H.truthy(installed.python:find(vim.fn.stdpath('data'), 1, true) == 1, 'under stdpath("data"): ' .. installed.python)
  local _, version = install.checkout()
  H.eq(version, installed.version, 'the checkout\'s version')
  H.eq({ installed.python, '-I', '-m', 'fixloop.lsp.server', '--stdio' }, require('fixloop.config').server_cmd(), 'command')
end)

H.test(':checkhealth fixloop reports the installed server', function()
  vim.cmd('checkhealth fixloop')
  local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
  H.contains(text, 'fixloop server ' .. install.installed().version .. ' installed')
  vim.cmd('bwipeout!')
end)

H.test('the installed server runs: Fix until tests pass, accept all, save: the tests pass', function()
  local root = H.project('two_hunks')
  local client = H.open_attached(root .. '/inventory/pricing.py', 60000)
  H.eq(install.installed().version, client.server_info.version, 'server version')
  vim.cmd('FixloopFix')
  H.wait(180000, function()
    return require('fixloop.review').view() ~= nil
  end, 'the review to open after the run')
  H.eq('fixed', require('fixloop.review').view().summary.status, 'status')
  vim.api.nvim_feedkeys('A', 'x', false)
  H.wait_message(15000, '2 accepted, 0 rejected')
  vim.api.nvim_buf_call(vim.fn.bufnr(root .. '/inventory/pricing.py'), function()
    vim.cmd('silent write')
  end)
  local r = vim.system({ 'python3', '-m', 'pytest', '-q', '-p', 'no:cacheprovider' },
    { cwd = root, text = true }):wait(120000)
  H.eq(0, r.code, 'pytest after the fix:\n' .. (r.stdout or '') .. (r.stderr or ''))
  H.stop_clients()
end)

H.run()
