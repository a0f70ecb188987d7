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
  current = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), opts)
  -- Lists replace, not merge by index.
  for _, key in ipairs({ 'cmd', 'filetypes', 'root_markers' }) do
    if opts[key] then
      current[key] = vim.deepcopy(opts[key])
    end
  end
  return current
end

--- The server command these options mean.
---@param opts? fixloop.Options
---@return string[]
function M.server_cmd(opts)
  opts = opts or current
  if opts.cmd then
    return opts.cmd
  end
  if opts.python then
    return { opts.python, '-m', 'fixloop.lsp.server', '--stdio' }
  end
  local installed = require('fixloop.install').installed() -- :FixloopInstall's private environment
  if installed then
    return { installed.python, '-m', 'fixloop.lsp.server', '--stdio' }
  end
  if vim.fn.executable('fixloop-server') == 1 then
    return { 'fixloop-server', '--stdio' }
  end
  return { 'python3', '-m', 'fixloop.lsp.server', '--stdio' }
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
  return { review = 'client', settings = settings }
end

return M
