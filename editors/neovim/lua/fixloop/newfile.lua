--- A new-file hunk (a goal's reproduction test, docs/protocol.md "Goal mode"): accepting it creates the file
--- here, in the client, and never over anything that exists. Neovim advertises no `documentChanges`, so the
--- server cannot send it a `CreateFile`; and Neovim's own CreateFile would truncate an existing file.
local M = {}

--- Is this hunk one that creates a file?
---@param hunk table
---@return boolean
function M.is_new_file(hunk)
  return type(hunk) == 'table' and hunk.new_file == true
end

--- The absolute path of a hunk's file, and the project root it must stay inside.
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

--- Create the hunk's file with its text (exclusive create: a file that appeared meanwhile is not touched).
---@param hunk table
---@param root string
---@return string|nil path the created file
---@return string|nil err why nothing was created
function M.create(hunk, root)
  local path = path_of(hunk, root)
  local why = M.problem(path, root)
  if why then
    return nil, why
  end
  local dir = vim.fs.dirname(path)
  if vim.fn.isdirectory(dir) == 0 and vim.fn.mkdir(dir, 'p') == 0 then
    return nil, ('cannot make the folder %s'):format(dir)
  end
  local fd, err = vim.uv.fs_open(path, 'wx', 420) -- O_CREAT|O_EXCL, 0644
  if not fd then
    return nil, ('cannot create %s: %s'):format(hunk.path or path, err or '?')
  end
  local text = hunk.new or ''
  local ok, werr = vim.uv.fs_write(fd, text)
  vim.uv.fs_close(fd)
  if not ok then
    vim.uv.fs_unlink(path)
    return nil, ('cannot write %s: %s'):format(hunk.path or path, werr or '?')
  end
  -- A buffer already open on the (then missing) path shows the new text.
  local buf = vim.fn.bufnr(path)
  if buf ~= -1 and vim.api.nvim_buf_is_loaded(buf) then
    vim.api.nvim_buf_call(buf, function()
      vim.cmd('silent! edit!')
    end)
  end
  return path, nil
end

return M
