--- What the plugin remembers while Neovim runs: per-client run state and a bounded message log.
local M = {}

local MAX_LOG = 500

---@class fixloop.ClientState
---@field initialized boolean
---@field incompatible string|nil why the server was refused
---@field running string|nil run id of the run in progress
---@field progress string|nil last progress message
---@field last table|nil last run summary (docs/protocol.md "Run summary")

---@type table<integer, fixloop.ClientState>
M.clients = {}

---@type string[]
M.log = {}

---@param client_id integer
---@return fixloop.ClientState
function M.client(client_id)
  local s = M.clients[client_id]
  if not s then
    s = { initialized = false }
    M.clients[client_id] = s
  end
  return s
end

---@param line string
function M.append(line)
  table.insert(M.log, os.date('%H:%M:%S ') .. line)
  if #M.log > MAX_LOG then
    table.remove(M.log, 1)
  end
end

--- Show a message the fixloop way (one place decides the prefix and whether to show it).
---@param msg string
---@param level? integer vim.log.levels.*
function M.notify(msg, level)
  level = level or vim.log.levels.INFO
  M.append(msg)
  local mode = require('fixloop.config').get().notify
  if mode == false or (mode == 'errors' and level < vim.log.levels.WARN) then
    return
  end
  vim.notify('fixloop: ' .. msg, level)
end

return M
