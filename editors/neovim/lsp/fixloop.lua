-- The fixloop language server, for vim.lsp.enable('fixloop') (Neovim >= 0.11).
-- Options come from require('fixloop').setup(opts); this table reads them when the server starts.
local config = require('fixloop.config')
local opts = config.get()

---@type vim.lsp.Config
return {
  cmd = function(dispatchers)
    return require('fixloop.lsp').start(dispatchers)
  end,
  -- For a cmd list given with vim.lsp.config: the plugin's own folder, never the project's.
  cmd_cwd = config.neutral_dir(),
  filetypes = opts.filetypes,
  root_markers = opts.root_markers,
  root_dir = function(bufnr, on_dir)
    require('fixloop.lsp').root_dir(bufnr, on_dir)
  end,
  -- review = 'client': the server never edits files by itself; :FixloopReview reports each decision.
  init_options = config.init_options(opts),
  -- workspace/configuration section `fixloop`: the user's settings (docs/protocol.md).
  settings = { fixloop = config.configuration(opts) },
  on_init = function(client, result)
    require('fixloop.lsp').on_init(client, result)
  end,
  on_exit = function(code, signal, client_id)
    require('fixloop.lsp').on_exit(code, signal, client_id)
  end,
  handlers = require('fixloop.lsp').handlers,
}
