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
vim.api.nvim_create_user_command('FixloopInstall', function(args)
  if args.bang then
    require('fixloop.install').cancel()
  else
    require('fixloop.install').run()
  end
end, { bang = true, desc = 'fixloop: install the server into a private environment (! cancels)' })
