--- Options: defaults, validation, and what they mean for the LSP client config.
--- Pure data and small helpers; requiring this module has no side effects.
local M = {}

---@class fixloop.ReviewKeys
---@field accept string accept the hunk under the cursor
---@field reject string reject the hunk under the cursor
---@field accept_all string accept every pending hunk
---@field reject_all string reject every pending hunk
---@field next string jump to the next hunk
---@field prev string jump to the previous hunk
---@field open string open the hunk's place in its file
---@field close string close the review window

---@class fixloop.Options
---@field cmd? string[] full server command; overrides `python`
---@field python? string Python that has fixloop installed; runs `python -m fixloop.lsp.server --stdio`
---@field install_python? string Python (3.10+) that :FixloopInstall builds the private environment with
---@field install_source? string what :FixloopInstall installs (a wheel, a source tree, a pip spec)
---@field filetypes string[]
---@field root_markers string[]
---@field settings table passed to the server as initializationOptions.settings ([tool.fixloop] keys)
---@field enable boolean setup() calls vim.lsp.enable('fixloop')
---@field open_review_on_fix boolean open :FixloopReview when a run finds a fix
---@field notify boolean|'errors' show run results with vim.notify (true), only failures ('errors'), or never
---@field review { layout: 'vsplit'|'split'|'tab', context: integer, keys: fixloop.ReviewKeys }
M.defaults = {
  cmd = nil,
  python = nil,
  filetypes = { 'python' },
  root_markers = { 'pyproject.toml', 'setup.cfg', 'setup.py', 'pytest.ini', 'tox.ini', '.git' },
  settings = {},
  enable = true,
  open_review_on_fix = true,
  notify = true,
  review = {
    layout = 'vsplit',
    context = 2,
    keys = {
      accept = 'a',
      reject = 'r',
      accept_all = 'A',
      reject_all = 'R',
      next = ']h',
      prev = '[h',
      open = '<CR>',
      close = 'q',
    },
  },
}

---@type fixloop.Options
local current = vim.deepcopy(M.defaults)

--- Options only the user's own configuration may give: each names a program the plugin runs on the host.
M.USER_ONLY = { 'cmd', 'python', 'install_python', 'install_source' }

--- `settings` given by a project's file (an exrc): sent as the workspace's, which the server lets only tighten.
local workspace_settings = vim.empty_dict()

--- What the last setup() from a project's file asked for and did not get (for messages and tests).
---@type string[]
M.ignored = {}

local EXRC = { ['.nvim.lua'] = true, ['.nvimrc'] = true, ['.exrc'] = true }

--- True when `dir` is `path` or a folder above it.
local function under(path, dir)
  if not dir or dir == '' then
    return false
  end
  dir = vim.fs.normalize(dir)
  return path == dir or vim.startswith(path, dir:gsub('/$', '') .. '/')
end

--- True when `file` (as Lua or Vim names a source) is a project's: an exrc file anywhere, or a file in the
--- current folder that is not the user's configuration, a plugin or Neovim's runtime.
local function project_file(file)
  if EXRC[vim.fs.basename(file)] then
    return true
  end
  local path = vim.fs.normalize(vim.fn.fnamemodify(file, ':p'))
  if not under(path, vim.fn.getcwd()) then
    return false
  end
  local plugin = vim.fs.dirname(vim.fs.dirname(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2))))
  local own = { vim.fn.stdpath('config'), vim.fn.stdpath('data'), vim.env.VIMRUNTIME, plugin }
  for _, dir in ipairs(own) do
    if under(path, vim.fs.normalize(vim.fn.fnamemodify(dir, ':p'))) then
      return false
    end
  end
  return not (vim.env.MYVIMRC and path == vim.fs.normalize(vim.fn.fnamemodify(vim.env.MYVIMRC, ':p')))
end

--- The project file that is calling setup() (`.nvim.lua`, an `.exrc` or a file it loads), or nil when the
--- call comes from the user's own configuration. Lua frames name their file; `:lua` in a Vim script does
--- not, so the script stack is read too.
---@return string|nil
function M.project_caller()
  for level = 2, 60 do
    local info = debug.getinfo(level, 'S')
    if not info then
      break
    end
    if info.source:sub(1, 1) == '@' and project_file(info.source:sub(2)) then
      return info.source:sub(2)
    end
  end
  local ok, stack = pcall(vim.fn.expand, '<stack>') -- E489 when no script is being run
  for entry in vim.gsplit(ok and stack or '', '..', { plain = true }) do
    local file = vim.trim(entry):gsub('^script ', ''):gsub('%[%d+%]$', '')
    if file ~= '' and not file:match('^function ') and project_file(file) then
      return file
    end
  end
end

--- The protocol version this plugin speaks (docs/protocol.md).
M.PROTOCOL = 1
M.NAME = 'fixloop'

---@return fixloop.Options
function M.get()
  return current
end

--- Check `opts` and merge it over the defaults. Raises a readable error on a bad option.
---@param opts table|nil
---@return fixloop.Options
function M.apply(opts)
  opts = opts or {}
  vim.validate('opts', opts, 'table')
  vim.validate('cmd', opts.cmd, 'table', true)
  vim.validate('python', opts.python, 'string', true)
  vim.validate('install_python', opts.install_python, 'string', true)
  vim.validate('install_source', opts.install_source, 'string', true)
  vim.validate('filetypes', opts.filetypes, 'table', true)
  vim.validate('root_markers', opts.root_markers, 'table', true)
  vim.validate('settings', opts.settings, 'table', true)
  vim.validate('enable', opts.enable, 'boolean', true)
  vim.validate('open_review_on_fix', opts.open_review_on_fix, 'boolean', true)
  vim.validate('notify', opts.notify, { 'boolean', 'string' }, true)
  vim.validate('review', opts.review, 'table', true)
  if opts.review and opts.review.layout ~= nil then
    vim.validate('review.layout', opts.review.layout, function(v)
      return v == 'vsplit' or v == 'split' or v == 'tab'
    end, "'vsplit', 'split' or 'tab'")
  end
  local known = vim.tbl_keys(M.defaults)
  table.insert(known, 'cmd')
  table.insert(known, 'python')
  table.insert(known, 'install_python')
  table.insert(known, 'install_source')
  for key in pairs(opts) do
    if not vim.tbl_contains(known, key) then
      error(('fixloop.setup: unknown option %q'):format(key), 0)
    end
  end
  local from = M.project_caller()
  local base = vim.deepcopy(M.defaults)
  if from then
    opts, base = M.from_project(opts, from), current
  else
    workspace_settings = vim.empty_dict()
  end
  current = vim.tbl_deep_extend('force', vim.deepcopy(base), opts)
  -- Lists replace, not merge by index.
  for _, key in ipairs({ 'cmd', 'filetypes', 'root_markers' }) do
    if opts[key] then
      current[key] = vim.deepcopy(opts[key])
    end
  end
  return current
end

--- setup() from a project's file: its program options are ignored (and named), its `settings` become the
--- workspace's (the server takes them only where they tighten), the rest applies over the user's options.
---@param opts table
---@param from string
---@return table
function M.from_project(opts, from)
  opts = vim.deepcopy(opts)
  M.ignored = {}
  for _, key in ipairs(M.USER_ONLY) do
    if opts[key] ~= nil then
      table.insert(M.ignored, key)
      opts[key] = nil
    end
  end
  if opts.settings ~= nil then
    workspace_settings = next(opts.settings) == nil and vim.empty_dict() or opts.settings
    opts.settings = nil
  end
  if #M.ignored > 0 then
    local msg = ('ignored %s from %s: only your own configuration chooses what the plugin runs; its `settings` '
      .. 'go to the server as the workspace\'s, which may only tighten'):format(table.concat(M.ignored, ', '), from)
    require('fixloop.state').append(msg)
    vim.notify('fixloop: ' .. msg, vim.log.levels.WARN)
  end
  return opts
end

--- The folder the server and every probe run in: the plugin's own data folder, never the project (a
--- `python -m` or `-c` there would import the project's modules first).
---@return string
function M.neutral_dir()
  local dir = vim.fs.joinpath(vim.fn.stdpath('data'), 'fixloop')
  vim.fn.mkdir(dir, 'p')
  return dir
end

--- The server command these options mean.
---@param opts? fixloop.Options
---@return string[]
function M.server_cmd(opts)
  opts = opts or current
  if opts.cmd then
    return opts.cmd
  end
  -- -I: isolated, so nothing of the project can be imported (with the cwd set to neutral_dir() as well).
  if opts.python then
    return { opts.python, '-I', '-m', 'fixloop.lsp.server', '--stdio' }
  end
  local installed = require('fixloop.install').installed() -- :FixloopInstall's private environment
  if installed then
    return { installed.python, '-I', '-m', 'fixloop.lsp.server', '--stdio' }
  end
  if vim.fn.executable('fixloop-server') == 1 then
    return { vim.fn.exepath('fixloop-server'), '--stdio' }
  end
  return { 'python3', '-I', '-m', 'fixloop.lsp.server', '--stdio' }
end

--- initializationOptions per docs/protocol.md: the client reviews, the server never applies on its own.
---@param opts? fixloop.Options
function M.init_options(opts)
  opts = opts or current
  local settings = vim.deepcopy(opts.settings)
  -- An empty Lua table is encoded as a JSON array; the server expects an object.
  if next(settings) == nil then
    settings = vim.empty_dict()
  end
  return { review = 'client', settings = settings, workspaceSettings = workspace_settings }
end

--- The answer to workspace/configuration: the user's settings only (the server reads every answer as the
--- workspace's, so an echo of them is no request).
---@param opts? fixloop.Options
function M.configuration(opts)
  return { settings = M.init_options(opts).settings }
end

return M
