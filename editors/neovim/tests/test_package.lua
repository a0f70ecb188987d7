-- A missing package as a user meets it: the tests' only failure is `import tinydep`, the server asks
-- Install / Not now (window/showMessageRequest, shown with vim.ui.select), "Install" installs it from a
-- package index on 127.0.0.1 into the project's .venv inside the landlock sandbox, and the fix runs again by
-- itself and opens the review. Real server, real pip, real pytest (tests/package_index.py builds the rest).
local H = dofile(vim.fn.fnamemodify(arg[0], ':p:h') .. '/helpers.lua')

--- The project (with its .venv) and the index serving tinydep; returns the project root, the URL, the process.
local function project_and_index()
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, 'p')
  local url_file = dir .. '/url'
  local proc = vim.system({ H.python, '-m', 'tests.package_index', '--root', dir, '--url-file', url_file },
    { cwd = H.repo, text = true })
  H.wait(120000, function()
    return vim.uv.fs_stat(url_file) ~= nil
  end, 'the project and the package index')
  return dir .. '/calc', vim.fn.readfile(url_file)[1], proc
end

--- The project and its index, and the plugin set up for them: the project's .venv, landlock (it installs as
--- this user), the index as yours. Returns the root, the .venv's site-packages and the index's process.
local function set_up()
  local root, url, index = project_and_index()
  require('fixloop').setup({
    python = H.python,
    settings = { offline = true, memory = { enabled = false }, sandbox = { backend = 'landlock' },
                 python = root .. '/.venv/bin/python', install = { index_url = url } },
  })
  return root, vim.fn.glob(root .. '/.venv/lib/python3.*/site-packages'), index
end

local function choosing(choice, asked)
  vim.ui.select = function(items, opts, on_choice)
    table.insert(asked, { prompt = opts.prompt, items = vim.tbl_map(function(i)
      return type(i) == 'table' and i.title or i
    end, items) })
    for _, item in ipairs(items) do
      if (type(item) == 'table' and item.title or item) == choice then
        return on_choice(item)
      end
    end
    on_choice(nil)
  end
end

H.test(':FixloopFix asks before installing a missing package, installs it on Install, then fixes', function()
  local root, site, index = set_up()
  local asked = {}
  choosing('Install', asked)
  H.open_attached(root .. '/calc.py', 30000)
  local t0 = vim.uv.hrtime()
  vim.cmd('FixloopFix')
  H.wait(240000, function()
    return require('fixloop.review').view() ~= nil
  end, 'the review of the fix run after the install')
  H.say(('       timing: first run, install and second run to review %.1f s'):format(H.since(t0)))
  index:kill(15)
  H.eq(1, #asked, 'questions asked: ' .. vim.inspect(asked))
  H.contains(asked[1].prompt, 'tinydep>=1', 'the question names the package')
  H.eq({ 'Install', 'Not now' }, asked[1].items, 'the choices')
  H.truthy(vim.uv.fs_stat(site .. '/tinydep/__init__.py'), 'tinydep installed into the project .venv')
  local view = require('fixloop.review').view(vim.api.nvim_get_current_buf())
  H.eq('fixed', view.summary.status, 'status: ' .. vim.inspect(view.summary.message))
  H.contains(view.summary.diff, '+    return a + b', 'the fix')
end)

H.test('Not now installs nothing', function()
  local root, site, index = set_up()
  local asked = {}
  choosing('Not now', asked)
  H.open_attached(root .. '/calc.py', 30000)
  vim.cmd('FixloopFix')
  H.contains(H.wait_message(240000, 'not installed').msg, 'pip install', 'the command to run yourself')
  index:kill(15)
  H.eq(1, #asked, 'questions asked')
  H.eq(nil, vim.uv.fs_stat(site .. '/tinydep'), 'nothing installed')
end)

H.run()
