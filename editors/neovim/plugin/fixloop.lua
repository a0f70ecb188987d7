-- Loaded at startup: only autocommands; the modules load when a fixloop server attaches.
if vim.g.loaded_fixloop then
  return
end
vim.g.loaded_fixloop = true
if vim.fn.has('nvim-0.11') == 0 then
  vim.notify_once('fixloop: this plugin needs Neovim 0.11 or newer', vim.log.levels.WARN)
  return
end
require('fixloop').autocmds()
