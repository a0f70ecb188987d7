-- :checkhealth fixloop: interpreter, server import, sandbox, API key presence (never its value).
local H = dofile(vim.fn.fnamemodify(arg[0], ':p:h') .. '/helpers.lua')

local function health()
  vim.cmd('checkhealth fixloop')
  local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
  vim.cmd('silent! tabclose')
  return text
end

H.test('a working install: server imports, sandbox and key reported, key not shown', function()
  require('fixloop').setup({ python = H.python, enable = false })
  vim.env.ANTHROPIC_API_KEY = 'sk-test-secret-123'
  local text = health()
  vim.env.ANTHROPIC_API_KEY = nil
  H.contains(text, 'fixloop: Neovim')
  H.contains(text, 'OK Neovim 0.')
  H.contains(text, 'command: ' .. H.python .. ' -I -m fixloop.lsp.server --stdio')
  H.contains(text, 'imports (Python 3.')
  H.contains(text, 'fixloop: sandbox')
  H.contains(text, 'OK a run would use: ', 'the sandbox fixloop doctor chose')
  H.contains(text, 'ANTHROPIC_API_KEY is set')
  H.eq(nil, text:find('sk-test-secret-123', 1, true), 'key value in the report')
  H.eq(nil, text:find('ERROR', 1, true), 'errors in ' .. text)
end)

H.test('no key: says what still works (also when the server is missing)', function()
  require('fixloop').setup({ python = '/nonexistent/bin/python', enable = false,
    settings = { llm = { api_key_env = 'FIXLOOP_TEST_NO_SUCH_KEY' } } })
  local text = health()
  H.contains(text, 'FIXLOOP_TEST_NO_SUCH_KEY is not set: the offline engine and memory still work')
end)

H.test('a sandbox backend that does not work here: warning', function()
  require('fixloop').setup({ python = H.python, enable = false, settings = { sandbox = { backend = 'docker' } } })
  local text = health()
  H.contains(text, 'sandbox.backend: docker')
  H.contains(text, 'not available: docker')
  H.contains(text, 'WARNING `fixloop doctor` reports a problem')
end)

H.test('a missing interpreter: error with the fix', function()
  require('fixloop').setup({ python = '/nonexistent/bin/python', enable = false })
  local text = health()
  H.contains(text, 'ERROR the Python interpreter "/nonexistent/bin/python" is not executable')
  H.contains(text, 'pip install fixloop')
end)

H.test('an interpreter without fixloop: import error shown', function()
  local bare = vim.fn.exepath('python3')
  local saved = vim.env.PYTHONPATH
  vim.env.PYTHONPATH = nil
  require('fixloop').setup({ python = bare, enable = false })
  local probe = vim.system({ bare, '-c', 'import fixloop' }):wait()
  if probe.code == 0 then
    vim.env.PYTHONPATH = saved
    error('skip: ' .. bare .. ' has fixloop installed; this case needs an interpreter without it')
  end
  local text = health()
  vim.env.PYTHONPATH = saved
  H.contains(text, 'cannot import the server')
  H.contains(text, "No module named 'fixloop'")
end)

H.run()
