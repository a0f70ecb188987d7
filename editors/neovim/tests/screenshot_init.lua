-- init file for screenshot.sh: opens the fixture, runs :FixloopFix, and marks when the review is open.
local plugin = assert(os.getenv('FIXLOOP_PLUGIN_DIR'))
local marker = assert(os.getenv('FIXLOOP_SHOT_MARKER'))
vim.opt.rtp:prepend(plugin)
vim.cmd('filetype plugin on')
vim.cmd('syntax on')
vim.o.termguicolors = false
vim.o.number = true
vim.o.laststatus = 2
vim.o.statusline = "%f %m%= %{v:lua.require'fixloop'.status()} "
vim.cmd('runtime! plugin/fixloop.lua')
local opts = { settings = { offline = true, memory = { uri = vim.fn.tempname() } } }
if os.getenv('FIXLOOP_SHOT_CMD') then
  opts.cmd = vim.split(os.getenv('FIXLOOP_SHOT_CMD'), ' ')
else
  opts.python = assert(os.getenv('FIXLOOP_TEST_PYTHON'))
end
require('fixloop').setup(opts)
vim.api.nvim_create_autocmd('LspAttach', {
  once = true,
  callback = function(ev)
    vim.schedule(function()
      vim.api.nvim_buf_call(ev.buf, function()
        vim.cmd('FixloopFix')
      end)
    end)
  end,
})
local timer = assert(vim.uv.new_timer())
timer:start(200, 200, vim.schedule_wrap(function()
  local view = require('fixloop.review').view()
  if view then
    timer:stop()
    vim.cmd('redraw!')
    vim.fn.writefile({ view.run_id }, marker)
  end
end))
