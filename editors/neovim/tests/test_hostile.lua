-- A hostile clone opened the way a user opens a project: a real Neovim started in its folder, with the
-- user's own init (setup() with their Python and memory), 'exrc' on and the project's .nvim.lua trusted
-- (as after :trust). The workspace (editors/shared/hostile_workspace.py) carries a `fixloop` package, stdlib
-- shadows and sitecustomize.py that leave a proof file outside it when imported, an "interpreter" that
-- leaves one when run, and a .nvim.lua whose setup() asks for that interpreter, no sandbox, its own memory,
-- endpoint, model and budget. The child Neovim attaches, asks the server for the settings in effect, runs
-- :FixloopFix and writes what it saw; nothing of the workspace may have run, and the user's settings hold.
local H = dofile(vim.fn.fnamemodify(arg[0], ':p:h') .. '/helpers.lua')

local function write(path, lines)
  vim.fn.writefile(type(lines) == 'table' and lines or vim.split(lines, '\n'), path)
end

--- The proof files the workspace left (hostile_workspace.py check).
local function evidence(proof)
  local r = vim.system({ H.python, H.repo .. '/editors/shared/hostile_workspace.py', 'check', proof }, { text = true }):wait()
  return vim.trim(r.stdout or '')
end

--- The child's side: runs inside the Neovim started in the workspace; writes result.json and quits.
local DRIVER = [[
local out, result = ..., { children = {} }
local function finish()
  result.messages = _G.seen_messages
  result.ignored = require('fixloop.config').ignored
  vim.fn.writefile({ vim.json.encode(result) }, out)
  vim.cmd('qa!')
end
local ok, err = pcall(function()
  vim.cmd('filetype on')
  vim.cmd.edit('inventory/pricing.py')
  local buf = vim.api.nvim_get_current_buf()
  local client
  assert(vim.wait(60000, function()
    client = vim.lsp.get_clients({ bufnr = buf, name = 'fixloop' })[1]
    return client ~= nil and client.initialized
  end, 50), 'the fixloop client did not attach')
  for _, pid in ipairs(vim.api.nvim_get_proc_children(vim.fn.getpid())) do
    local cmdline = table.concat(vim.split(vim.fn.readfile('/proc/' .. pid .. '/cmdline', 'b')[1] or '', '\n'), ' ')
    table.insert(result.children, { cmdline = cmdline, cwd = vim.uv.fs_readlink('/proc/' .. pid .. '/cwd') })
  end
  -- The answer to workspace/configuration comes after `initialized`; the report is stable once it has.
  vim.wait(3000, function() return false end, 100)
  local reply = client:request_sync('workspace/executeCommand', { command = 'fixloop.settings', arguments = { vim.empty_dict() } }, 60000, buf)
  result.report = reply and reply.result
  result.report_error = reply and reply.err and vim.inspect(reply.err) or (reply == nil and 'no answer' or nil)
  assert(vim.wait(60000, function() return vim.api.nvim_buf_get_commands(buf, {}).FixloopFix ~= nil end, 50), 'no :FixloopFix')
  -- :FixloopSettings shows the same report in a scratch buffer.
  vim.cmd('FixloopSettings')
  assert(vim.wait(30000, function() return vim.fn.bufnr('fixloop://settings') ~= -1 end, 50), 'no fixloop://settings buffer')
  result.settings_lines = vim.api.nvim_buf_get_lines(vim.fn.bufnr('fixloop://settings'), 0, 3, false)
  vim.cmd('close')
  vim.api.nvim_set_current_buf(buf)
  vim.cmd('FixloopFix')
  assert(vim.wait(240000, function() return require('fixloop.review').view() ~= nil end, 100), 'no review after the run')
  result.status = require('fixloop.review').view().summary.status
end)
result.error = not ok and tostring(err) or nil
finish()
]]

H.test('started in a hostile clone: nothing of it runs, its .nvim.lua and settings are not taken, the fix runs sandboxed', function()
  local top = vim.fn.tempname()
  local root, proof, memory = top .. '/ws', top .. '/proof', top .. '/user-memory'
  local built = vim.system({ H.python, H.repo .. '/editors/shared/hostile_workspace.py', 'build', root, proof, H.python },
    { text = true }):wait()
  H.eq(0, built.code, 'building the workspace: ' .. (built.stderr or ''))
  -- The user trusted the project's .nvim.lua (:trust), in the trust database the child reads.
  vim.cmd.edit(vim.fn.fnameescape(root .. '/.nvim.lua'))
  vim.secure.trust({ action = 'allow', bufnr = 0 })
  vim.cmd('bwipeout!')
  -- The user's own init, where Neovim looks for it (with -u, Neovim would skip the exrc).
  local init, driver, out = top .. '/config/nvim/init.lua', top .. '/driver.lua', top .. '/result.json'
  vim.fn.mkdir(top .. '/config/nvim', 'p')
  write(init, {
    ('vim.opt.rtp:prepend(%q)'):format(H.plugin_dir),
    'vim.o.exrc = true',
    '_G.seen_messages = {}',
    'vim.notify = function(msg) table.insert(_G.seen_messages, msg) end',
    ("require('fixloop').setup({ python = %q, settings = { offline = true, memory = { uri = %q } } })"):format(H.python, memory),
  })
  write(driver, DRIVER)
  local t0 = vim.uv.hrtime()
  local child = vim.system({ vim.v.progpath, '--headless', '-c', ('lua loadfile(%q)(%q)'):format(driver, out) },
    { cwd = root, text = true, env = { XDG_CONFIG_HOME = top .. '/config' } }):wait(400000)
  H.say(('  (the child Neovim ran %.0f s, exit %s)'):format(H.since(t0), tostring(child.code)))
  H.truthy(vim.uv.fs_stat(out), 'the child wrote no result: ' .. (child.stderr or '') .. (child.stdout or ''))
  local result = vim.json.decode(table.concat(vim.fn.readfile(out), '\n'))
  -- Nothing of the workspace ran: no import, no interpreter, no memory of its choosing.
  H.eq('', evidence(proof), 'proof files outside the workspace')
  H.eq(vim.NIL, result.error or vim.NIL, 'the child\'s run')
  H.eq(vim.NIL, result.report_error or vim.NIL, 'fixloop.settings')
  -- The .nvim.lua asked for its interpreter; the plugin took neither, and said so.
  H.eq({ 'python', 'install_python' }, result.ignored, 'the exrc options ignored')
  H.truthy(vim.iter(result.messages):any(function(m) return m:find('ignored python, install_python from', 1, true) ~= nil end),
    'a warning naming them: ' .. vim.inspect(result.messages))
  -- The server started isolated, from the user's Python, outside the workspace.
  local server = vim.iter(result.children):find(function(c) return c.cmdline:find('fixloop.lsp.server', 1, true) end)
  H.truthy(server, 'the server process: ' .. vim.inspect(result.children))
  H.eq(H.python .. ' -I -m fixloop.lsp.server --stdio', vim.trim(server.cmdline), 'the server command')
  H.truthy(not vim.startswith(server.cwd, root), 'the server\'s folder is not the workspace: ' .. server.cwd)
  -- The server kept the user's settings and named every value of the workspace it did not take.
  local s = result.report.settings
  H.eq('auto', s.sandbox.backend, 'sandbox.backend')
  H.eq(memory, s.memory.uri, 'memory.uri')
  H.eq('', s.llm.base_url, 'llm.base_url')
  H.eq('ANTHROPIC_API_KEY', s.llm.api_key_env, 'llm.api_key_env')
  H.eq(2.0, s.max_cost_usd, 'max_cost_usd')
  H.eq(3, s.max_iterations, 'max_iterations: lowering it is the workspace\'s to do')
  H.truthy(result.report.sandbox.backend ~= '' and result.report.sandbox.backend ~= 'none', 'a real sandbox in use')
  local ignored = table.concat(result.report.ignored, '\n')
  for _, key in ipairs({ 'sandbox.backend', 'memory.uri', 'llm.base_url', 'llm.model', 'llm.api_key_env', 'max_cost_usd' }) do
    H.contains(ignored, 'workspace settings: ' .. key, 'named by the server')
  end
  H.truthy(vim.startswith(result.settings_lines[1] or '', 'sandbox in use: ' .. result.report.sandbox.backend),
    ':FixloopSettings: ' .. vim.inspect(result.settings_lines))
  H.truthy((result.settings_lines[3] or ''):match('^not taken from the workspace %(%d+%):$'), ':FixloopSettings lists what was not taken')
  -- And the fix ran, in the sandbox.
  H.eq('fixed', result.status, 'the run')
  H.eq('', evidence(proof), 'proof files after the run')
end)

H.test('an .exrc (Vim script) calling setup() is a project file too', function()
  local root = vim.fn.tempname()
  vim.fn.mkdir(root, 'p')
  write(root .. '/.exrc', ("lua require('fixloop').setup({ python = '%s/evil', cmd = { '%s/evil' }, enable = false })"):format(root, root))
  require('fixloop').setup({ python = H.python, enable = false })
  local cwd = vim.fn.getcwd()
  vim.cmd.cd(root)
  vim.cmd.source('.exrc') -- what Neovim does with a trusted exrc at start-up
  vim.cmd.cd(cwd)
  H.eq({ 'cmd', 'python' }, require('fixloop.config').ignored, 'ignored options')
  H.eq(H.python, require('fixloop.config').server_cmd()[1], 'the user\'s Python stays')
  -- The same call from the user's own configuration is taken.
  require('fixloop').setup({ python = '/opt/mine/python', enable = false })
  H.eq('/opt/mine/python', require('fixloop.config').server_cmd()[1], 'the user\'s call')
end)

H.run()
