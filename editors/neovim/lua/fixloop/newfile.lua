--- A new-file hunk (a goal's reproduction test, docs/protocol.md "Goal mode"): accepting it creates the file,
--- never over anything that exists. The server sends a `CreateFile` then the text when the hunk is accepted;
--- the client checks first (a clear message, nothing sent) and again when the edit arrives (lsp.lua), because
--- Neovim's own CreateFile truncates an existing file.
local M = {}

--- Is this hunk one that creates a file?
---@param hunk table
---@return boolean
function M.is_new_file(hunk)
  return type(hunk) == 'table' and hunk.new_file == true
end

--- The absolute path of a hunk's file.
---@param hunk table
---@param root string
---@return string path
local function path_of(hunk, root)
  if type(hunk.uri) == 'string' and hunk.uri:match('^file:') then
    return vim.uri_to_fname(hunk.uri)
  end
  return vim.fs.joinpath(root, hunk.path)
end

--- Why `path` may not be created under `root`, or nil: it must be inside the root, reached through no
--- symbolic link (a link in the project is data, never a way out), and exist neither on disk nor as a
--- buffer with text in it.
---@param path string
---@param root string
---@return string|nil
function M.problem(path, root)
  root = vim.fs.normalize(root)
  path = vim.fs.normalize(path)
  if path:sub(1, #root + 1) ~= root .. '/' then
    return ('%s is outside the project %s'):format(path, root)
  end
  local rel = path:sub(#root + 2)
  local at = root
  for part in vim.gsplit(rel, '/', { plain = true }) do
    if part == '' or part == '.' or part == '..' then
      return ('%s is not a plain path inside the project'):format(rel)
    end
    at = at .. '/' .. part
    local stat = vim.uv.fs_lstat(at)
    if stat and stat.type == 'link' then
      return ('%s goes through a symbolic link (%s); fixloop does not follow it'):format(rel, at)
    end
    if stat and at == path then
      return ('%s exists; fixloop never overwrites a file with a new test'):format(rel)
    end
  end
  local buf = vim.fn.bufnr(path)
  if buf ~= -1 and vim.api.nvim_buf_is_loaded(buf) then
    local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
    if #lines > 1 or (lines[1] or '') ~= '' then
      return ('%s is open in a buffer with text; fixloop never overwrites it'):format(rel)
    end
  end
  return nil
end

--- The absolute path of a new-file hunk under `root`.
---@param hunk table
---@param root string
---@return string
function M.path(hunk, root)
  return path_of(hunk, root)
end

return M
