-- A small test harness for `nvim --clean --headless -l tests/<name>.lua`.
-- The runner (run.sh) sets FIXLOOP_PLUGIN_DIR, FIXLOOP_REPO, FIXLOOP_TEST_PYTHON and throwaway XDG dirs.
local H = {}

H.plugin_dir = assert(os.getenv('FIXLOOP_PLUGIN_DIR'), 'FIXLOOP_PLUGIN_DIR is not set (use tests/run.sh)')
H.repo = assert(os.getenv('FIXLOOP_REPO'), 'FIXLOOP_REPO is not set (use tests/run.sh)')
H.python = os.getenv('FIXLOOP_TEST_PYTHON') or 'python3'
H.stub = H.plugin_dir .. '/tests/stub_server.py'

vim.opt.rtp:prepend(H.plugin_dir)
vim.cmd('filetype on')

local tests = {}

---@param name string
---@param fn fun()
function H.test(name, fn)
  table.insert(tests, { name = name, fn = fn })
end

--- Wait for `cond` (processing events meanwhile); error with `what` on timeout.
function H.wait(ms, cond, what)
  if not vim.wait(ms, cond, 20) then
    error(('timed out after %d ms waiting for %s'):format(ms, what), 2)
  end
end

function H.eq(expected, actual, what)
  if not vim.deep_equal(expected, actual) then
    error(('%s: expected %s, got %s'):format(what or 'value', vim.inspect(expected), vim.inspect(actual)), 2)
  end
end

function H.truthy(v, what)
  if not v then
    error((what or 'condition') .. ' is false', 2)
  end
  return v
end

function H.contains(haystack, needle, what)
  if not tostring(haystack):find(needle, 1, true) then
    error(('%s: %q not found in %q'):format(what or 'text', needle, tostring(haystack)), 2)
  end
end

-- Neovim's own print() (e.g. "Workspace edit <label>") ends without a newline under -l.
_G.print = function(...)
  io.stdout:write(table.concat(vim.tbl_map(tostring, { ... }), ' ') .. '\n')
end

--- Record vim.notify messages instead of showing them.
H.messages = {}
vim.notify = function(msg, level)
  table.insert(H.messages, { msg = msg, level = level })
end

function H.find_message(needle)
  for _, m in ipairs(H.messages) do
    if m.msg:find(needle, 1, true) then
      return m
    end
  end
end

function H.wait_message(ms, needle)
  H.wait(ms, function()
    return H.find_message(needle) ~= nil
  end, 'a message containing ' .. vim.inspect(needle) .. '; got ' .. vim.inspect(vim.tbl_map(function(m)
    return m.msg
  end, H.messages)))
  return H.find_message(needle)
end

--- Copy examples/inventory (and an optional overlay directory on top) to a temp dir.
---@param overlay? string directory under tests/fixtures
---@return string root
function H.project(overlay)
  local root = vim.fn.tempname()
  vim.fn.mkdir(root, 'p')
  local function copy(src)
    local r = vim.system({ 'cp', '-r', src .. '/.', root }):wait()
    assert(r.code == 0, 'copy failed: ' .. (r.stderr or ''))
  end
  copy(H.repo .. '/examples/inventory')
  vim.fn.delete(root .. '/.fixloop', 'rf') -- the run logs of the set-up demo are no part of the example
  if overlay then
    copy(H.plugin_dir .. '/tests/fixtures/' .. overlay)
  end
  return root
end

--- Copy the goal fixture (editors/shared/fixtures/goal_shop: a bug no test catches, shown by a docstring
--- example) to a temp dir.
---@return string root
function H.goal_project()
  local root = vim.fn.tempname()
  vim.fn.mkdir(root, 'p')
  local r = vim.system({ 'cp', '-r', H.repo .. '/editors/shared/fixtures/goal_shop/.', root }):wait()
  assert(r.code == 0, 'copy failed: ' .. (r.stderr or ''))
  return root
end

--- Start the scripted Anthropic-compatible server (tests/llm/goal_model.py) on 127.0.0.1.
---@return string url
---@return vim.SystemObj proc (kill it with proc:kill(15))
---@return string requests_file one JSON line per model request
function H.scripted_model()
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, 'p')
  local url_file, requests = dir .. '/url', dir .. '/requests.jsonl'
  local proc = vim.system({ H.python, '-m', 'tests.llm.goal_model', '--url-file', url_file, '--requests-file', requests },
    { cwd = H.repo, text = true })
  H.wait(30000, function()
    return vim.uv.fs_stat(url_file) ~= nil
  end, 'the scripted model server to listen')
  return vim.fn.readfile(url_file)[1], proc, requests
end

--- The stub server as the fixloop command.
function H.stub_cmd(...)
  return { H.python, H.stub, ... }
end

--- Edit a file and wait until the fixloop client is attached to it.
---@return vim.lsp.Client
function H.open_attached(path, ms)
  vim.cmd.edit(vim.fn.fnameescape(path))
  local buf = vim.api.nvim_get_current_buf()
  local client
  H.wait(ms or 20000, function()
    client = vim.lsp.get_clients({ bufnr = buf, name = 'fixloop' })[1]
    return client ~= nil and client.initialized
  end, 'the fixloop client to attach')
  -- LspAttach runs right after initialize; let it create the commands.
  H.wait(2000, function()
    return vim.api.nvim_buf_get_commands(buf, {}).FixloopFix ~= nil
  end, 'buffer-local commands')
  return client
end

--- Stop every LSP client and wait for them to exit.
function H.stop_clients()
  for _, c in ipairs(vim.lsp.get_clients()) do
    c:stop()
  end
  if vim.wait(3000, function()
    return #vim.lsp.get_clients() == 0
  end, 20) then
    return
  end
  for _, c in ipairs(vim.lsp.get_clients()) do
    c:stop(true)
  end
  vim.wait(5000, function()
    return #vim.lsp.get_clients() == 0
  end, 20)
end

--- Run the registered tests; print one line per test and a RESULT line; exit 1 on any failure.
local function say(s)
  io.stdout:write(s .. '\n')
end
H.say = say

--- Seconds since `t0` (from vim.uv.hrtime()).
function H.since(t0)
  return (vim.uv.hrtime() - t0) / 1e9
end

function H.run()
  local script = vim.fn.fnamemodify(arg and arg[0] or '?', ':t')
  local passed, failed = 0, 0
  for _, t in ipairs(tests) do
    H.messages = {}
    local start = vim.uv.hrtime()
    local ok, err = xpcall(t.fn, debug.traceback)
    local ms = (vim.uv.hrtime() - start) / 1e6
    pcall(H.stop_clients)
    pcall(vim.cmd, 'silent! %bwipeout!')
    if ok then
      passed = passed + 1
      say(('  ok   %s: %s (%.1f s)'):format(script, t.name, ms / 1000))
    else
      failed = failed + 1
      say(('  FAIL %s: %s (%.1f s)\n%s'):format(script, t.name, ms / 1000, err))
      local shown = vim.tbl_map(function(m)
        return m.msg
      end, H.messages)
      say('  messages: ' .. vim.inspect(shown))
    end
  end
  say(('RESULT %s passed=%d failed=%d'):format(script, passed, failed))
  io.stdout:flush()
  os.exit(failed > 0 and 1 or 0)
end

return H
