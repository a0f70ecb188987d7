--- :checkhealth fixloop
local config = require('fixloop.config')

local M = {}

local TIMEOUT_MS = 30000

---@param cmd string[]
---@return vim.SystemCompleted
local function run(cmd)
  local ok, proc = pcall(vim.system, cmd, { text = true, cwd = config.neutral_dir() })
  if not ok then
    return { code = -1, stdout = '', stderr = tostring(proc), signal = 0 }
  end
  local result = proc:wait(TIMEOUT_MS)
  return result
end

--- The interpreter behind the server command: `python [-I] -m ...`, or the shebang of `fixloop-server`.
---@param cmd string[]
---@return string|nil
local function python_of(cmd)
  if cmd[2] == '-m' or (cmd[2] == '-I' and cmd[3] == '-m') then
    return cmd[1]
  end
  local exe = vim.fn.exepath(cmd[1])
  local ok, first = pcall(vim.fn.readfile, exe, '', 1)
  if ok and first[1] and first[1]:match('^#!') then
    local interp = vim.trim(first[1]:sub(3))
    if not interp:find(' ', 1, true) then
      return interp
    end
  end
end


local function last_line(s)
  local lines = vim.split(vim.trim(s or ''), '\n')
  return lines[#lines] or ''
end

--- The server section; returns the interpreter that imports fixloop, or nil.
---@return string|nil
local function check_server()
  local h = vim.health
  h.start('fixloop: language server')
  local cmd = require('fixloop.lsp').effective_cmd()
  h.info('command: ' .. table.concat(cmd, ' '))
  local why = require('fixloop.lsp').missing_reason()
  if why then
    h.error(why, { 'install fixloop: `python3 -m pip install fixloop` (or `bash scripts/setup.sh` in a checkout)',
      "point the plugin at it: require('fixloop').setup({ python = '/path/to/venv/bin/python' })" })
    return nil
  end
  h.ok('executable: ' .. vim.fn.exepath(cmd[1]))
  local python = python_of(cmd)
  if not python then
    h.warn('cannot tell which Python runs ' .. cmd[1] .. '; skipping the import check')
    return nil
  end
  local probe = run({ python, '-I', '-c',
    'import sys, fixloop; import fixloop.lsp.server; print(fixloop.__version__); print(sys.version.split()[0])' })
  if probe.code ~= 0 then
    h.error(('%s cannot import the server: %s'):format(python, last_line(probe.stderr)),
      { ('`%s -m pip install fixloop`, or set `python` to an interpreter that has it'):format(python) })
    return nil
  end
  local out = vim.split(vim.trim(probe.stdout), '\n')
  h.ok(('fixloop %s imports (Python %s at %s)'):format(out[1] or '?', out[2] or '?', python))
  return python
end

--- The private environment of :FixloopInstall: its version, and whether it matches this plugin's checkout.
function M.check_private()
  local h = vim.health
  local install = require('fixloop.install')
  h.start('fixloop: private server (:FixloopInstall)')
  local installed = install.installed()
  local _, wanted = install.checkout()
  if not installed then
    h.info(('not installed in %s; :FixloopInstall installs it (or set `python`)'):format(install.home()))
    return
  end
  h.ok(('fixloop server %s installed (%s)'):format(installed.version, installed.python))
  if wanted and wanted ~= installed.version then
    h.warn(('the plugin is fixloop %s, the installed server %s'):format(wanted, installed.version),
      { 'run :FixloopInstall to install the matching server' })
  end
end

function M.check()
  local h = vim.health
  local opts = config.get()

  h.start('fixloop: Neovim')
  local v = vim.version()
  if vim.fn.has('nvim-0.11') == 1 then
    h.ok(('Neovim %d.%d.%d'):format(v.major, v.minor, v.patch))
  else
    h.error('Neovim 0.11 or newer is needed (vim.lsp.config / vim.lsp.enable)')
  end
  if vim.lsp.is_enabled then
    h.info(vim.lsp.is_enabled('fixloop') and "vim.lsp.enable('fixloop') is on" or "not enabled: call vim.lsp.enable('fixloop') or require('fixloop').setup()")
  end

  M.check_private()
  local python = check_server()

  h.start('fixloop: sandbox')
  local backend = (opts.settings.sandbox or {}).backend or 'auto'
  h.info('sandbox.backend: ' .. backend)
  local doctor = python and run({ python, '-I', '-m', 'fixloop', 'doctor', '--sandbox', backend, vim.fn.getcwd() })
  if not doctor then
    h.warn('not checked: the server does not start')
  elseif (doctor.stderr or ''):find('No such command', 1, true) then
    -- An older fixloop without `doctor`: say what we can see.
    if vim.fn.executable('bwrap') == 1 then
      h.ok('bubblewrap found: ' .. vim.fn.exepath('bwrap'))
    else
      h.warn('bubblewrap (bwrap) is not installed', { 'apt-get install bubblewrap' })
    end
  else
    -- `fixloop doctor` prints "ok  name ..." / "no  name: why" per backend, then "a run would use: name".
    local chosen, cannot
    for _, line in ipairs(vim.split(doctor.stdout or '', '\n')) do
      local verdict, rest = line:match('^(%a%a)%s%s(.+)$')
      if verdict == 'ok' then
        h.info('works: ' .. rest)
      elseif verdict == 'no' then
        h.info('not available: ' .. rest)
      end
      chosen = line:match('^a run would use: (.+)$') or chosen
      cannot = line:match('^a run cannot start: (.+)$') or cannot
    end
    if doctor.code == 0 and chosen then
      h.ok('a run would use: ' .. chosen .. ' (details: `fixloop doctor`)')
    else
      h.warn('`fixloop doctor` reports a problem: ' .. (cannot or last_line(doctor.stderr ~= '' and doctor.stderr or doctor.stdout)),
        { 'run `fixloop doctor` for details, or choose another settings.sandbox.backend' })
    end
  end

  h.start('fixloop: model')
  local llm = opts.settings.llm or {}
  local env = llm.api_key_env or 'ANTHROPIC_API_KEY'
  if opts.settings.offline or llm.enabled == false then
    h.info('offline: the deterministic engine and memory only')
  elseif (vim.env[env] or '') ~= '' then
    h.ok(('%s is set (the server inherits it; it is never written or logged)'):format(env))
  else
    h.info(('%s is not set: the offline engine and memory still work; set it to let Claude propose fixes'):format(env))
  end

  h.start('fixloop: running servers')
  local clients = vim.lsp.get_clients({ name = 'fixloop' })
  if #clients == 0 then
    h.info('none (open a Python file in a project)')
  end
  for _, client in ipairs(clients) do
    local s = require('fixloop.state').client(client.id)
    if s.incompatible then
      h.error(('client %d: %s'):format(client.id, s.incompatible))
    else
      h.ok(('client %d: %s %s, root %s'):format(client.id, client.server_info and client.server_info.name or '?',
        client.server_info and client.server_info.version or '?', client.root_dir or '?'))
    end
  end
end

return M
