--- :FixloopInstall: the fixloop server in a private virtual environment under stdpath('data').
--- The work is done by editors/shared/fixloop_install.py (the installer the VS Code extension runs too).
local state = require('fixloop.state')

local M = {}

M.MIN_PYTHON = { 3, 10 }

--- Where the private environments live.
---@return string
function M.home()
  return vim.fs.joinpath(vim.fn.stdpath('data'), 'fixloop', 'server')
end

--- The plugin's directory (editors/neovim), symlinks resolved.
local function plugin_dir()
  local here = debug.getinfo(1, 'S').source:sub(2) -- .../lua/fixloop/install.lua
  local real = vim.uv.fs_realpath(here) or here
  return vim.fs.dirname(vim.fs.dirname(vim.fs.dirname(real)))
end

--- The installer script shipped beside the plugin.
---@return string
function M.installer()
  return vim.fs.joinpath(vim.fs.dirname(plugin_dir()), 'shared', 'fixloop_install.py')
end

--- The checkout the plugin belongs to, if it is fixloop's (its pyproject.toml), and that version.
---@return string|nil root, string|nil version
function M.checkout()
  local root = vim.fs.dirname(vim.fs.dirname(plugin_dir()))
  local ok, lines = pcall(vim.fn.readfile, vim.fs.joinpath(root, 'pyproject.toml'))
  if not ok then
    return nil
  end
  local in_project, name, version = false, nil, nil
  for _, line in ipairs(lines) do
    if line:match('^%[') then
      in_project = line:match('^%[project%]%s*$') ~= nil
    elseif in_project then
      name = name or line:match('^name%s*=%s*"([^"]+)"')
      version = version or line:match('^version%s*=%s*"([^"]+)"')
    end
  end
  if name == 'fixloop' then
    return root, version
  end
end

--- What pip installs: the option `install_source`, else this checkout, else the package `fixloop`.
---@return string source, string|nil version expected
function M.source()
  local opt = require('fixloop.config').get().install_source
  if opt then
    return opt, nil
  end
  local root, version = M.checkout()
  if root then
    return root, version
  end
  return 'fixloop', nil
end

--- The environment in use: { python, version } or nil.
---@return { python: string, version: string }|nil
function M.installed()
  local ok, lines = pcall(vim.fn.readfile, vim.fs.joinpath(M.home(), 'current.json'))
  if not ok then
    return nil
  end
  local decoded_ok, current = pcall(vim.json.decode, table.concat(lines, '\n'))
  if decoded_ok and type(current) == 'table' and type(current.python) == 'string'
    and vim.fn.executable(current.python) == 1 then
    return { python = current.python, version = tostring(current.version or '?') }
  end
end

--- The first Python that runs and is new enough, or nil and why not.
---@return string|nil python, string|nil why
function M.find_python()
  local opt = require('fixloop.config').get().install_python
  local names = opt and { opt } or { 'python3', 'python', 'python3.13', 'python3.12', 'python3.11', 'python3.10' }
  local old = {}
  for _, name in ipairs(names) do
    if vim.fn.executable(name) == 1 then
      -- -I in the plugin's own folder: `-c` in the project's would put its modules first on sys.path.
      local r = vim.system({ name, '-I', '-c', 'import sys; print(sys.version_info[0], sys.version_info[1])' },
        { text = true, cwd = require('fixloop.config').neutral_dir() })
        :wait(20000)
      local major, minor = (r.stdout or ''):match('^(%d+) (%d+)')
      major, minor = tonumber(major), tonumber(minor)
      if r.code == 0 and major then
        if major > M.MIN_PYTHON[1] or (major == M.MIN_PYTHON[1] and minor >= M.MIN_PYTHON[2]) then
          return name
        end
        table.insert(old, ('%s is Python %d.%d'):format(name, major, minor))
      end
    end
  end
  local need = "fixloop's server needs Python 3.10 or newer"
  if #old > 0 then
    return nil, ('%s, and the only Python found is too old (%s). Install a newer one (or set `install_python` '
      .. "in require('fixloop').setup{}), then run :FixloopInstall again"):format(need, table.concat(old, '; '))
  end
  return nil, ('%s, and none was found (tried %s). Install Python 3.10 or newer (or set `install_python`), then run '
    .. ':FixloopInstall again'):format(need, table.concat(names, ', '))
end

local running = nil

--- Install (or reinstall) the server. opts.wait: block until done (lazy.nvim's build hook);
--- opts.on_done(ok, result) is called at the end.
---@param opts? { wait?: boolean, on_done?: fun(ok: boolean, result: table) }
---@return boolean started
function M.run(opts)
  opts = opts or {}
  if running then
    state.notify('an install is already running', vim.log.levels.WARN)
    return false
  end
  local function done(ok, result)
    running = nil
    if ok then
      state.notify(('server %s installed (%s); open a Python file or :edit to start it'):format(result.version, result.python))
    else
      state.notify('installing the server failed: ' .. (result.message or '?') .. ' (:FixloopInstall retries)',
        vim.log.levels.ERROR)
    end
    if opts.on_done then
      opts.on_done(ok, result)
    end
  end
  local python, why = M.find_python()
  if not python then
    done(false, { problem = 'no-python', message = why })
    return false
  end
  local source, expect = M.source()
  local cmd = { python, '-I', M.installer(), '--home', M.home(), '--source', source }
  if expect then
    vim.list_extend(cmd, { '--expect-version', expect })
  end
  state.notify(('installing the server from %s with %s into %s (a few minutes)'):format(source, python, M.home()))
  local result, pending = nil, ''
  local function on_line(line)
    local ok, event = pcall(vim.json.decode, line)
    if not ok or type(event) ~= 'table' then
      return
    end
    if event.progress then
      state.append('install: ' .. event.progress)
      vim.schedule(function()
        vim.api.nvim_echo({ { 'fixloop: ' .. event.progress } }, false, {})
      end)
    elseif event.ok ~= nil then
      result = event
    end
  end
  running = vim.system(cmd, {
    text = true,
    cwd = require('fixloop.config').neutral_dir(),
    stdout = function(_, data)
      if not data then
        return
      end
      pending = pending .. data
      for line in pending:gmatch('([^\n]*)\n') do
        on_line(line)
      end
      pending = pending:match('[^\n]*$')
    end,
  }, function(proc)
    vim.schedule(function()
      if result then
        done(result.ok == true, result)
      else
        done(false, { problem = 'crash', message = ('the installer stopped (exit %d, signal %d): %s'):format(
          proc.code, proc.signal, vim.trim(proc.stderr or '')) })
      end
    end)
  end)
  if opts.wait then
    running:wait()
    vim.wait(1000, function()
      return running == nil
    end)
  end
  return true
end

--- Stop an install in progress (the installer removes what it had started).
function M.cancel()
  if running then
    running:kill(15)
  end
end

return M
