-- :FixloopTemplates against the real server and a real LanceDB memory taught two fixes of one kind
-- (tests/mined/helpers.py): the proposed mined template is offered with vim.ui.select, its before/after
-- diff is shown, and Approve approves it in the store the CLI reads.
local H = dofile(vim.fn.fnamemodify(arg[0], ':p:h') .. '/helpers.lua')

local function seeded_memory()
  local memory = vim.fn.tempname() .. '-memory'
  local script = [[
import sys
sys.path.insert(0, sys.argv[2])
from fixloop.adapters.memory.embed import HashingEmbedder
from fixloop.adapters.memory.store import MemoryStore
from tests.mined.helpers import teach_strict_limit
teach_strict_limit(MemoryStore(sys.argv[1], HashingEmbedder()).open())
]]
  local r = vim.system({ H.python, '-c', script, memory, H.repo }, { text = true }):wait(120000)
  assert(r.code == 0, 'seeding the memory failed: ' .. (r.stderr or ''))
  return memory
end

H.test(':FixloopTemplates offers the proposed template, previews it, and Approve approves it', function()
  local memory = seeded_memory()
  local root = H.project()
  require('fixloop').setup({ python = H.python, settings = { offline = true, memory = { uri = memory } } })
  H.open_attached(root .. '/inventory/pricing.py', 30000)
  local offered, asked
  vim.ui.select = function(items, opts, on_choice)
    if opts.format_item then -- the templates
      offered = vim.tbl_map(opts.format_item, items)
      return on_choice(items[1])
    end
    asked = { items = items, prompt = opts.prompt }
    return on_choice('Approve')
  end
  vim.cmd('FixloopTemplates')
  local m = H.wait_message(60000, 'is approved; the engine tries it before the generic operators')
  H.eq(1, #offered, 'templates offered: ' .. vim.inspect(offered))
  H.contains(offered[1], '[proposed] a strict comparison against a named constant becomes non-strict (< -> <=, > -> >=)')
  H.contains(offered[1], 'ID1 <|> CONST1 -> ID1 <=|>= CONST1  (2 fixes;')
  H.eq({ 'Approve', 'Reject', 'Not now' }, asked.items, 'the choices')
  H.contains(asked.prompt, 'fixloop: mined template ')
  H.contains(m.msg, 'mined template ')
  -- The preview: a diff buffer with the shapes and the examples.
  local preview
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_get_name(b):find('fixloop://template/', 1, true) then
      preview = b
    end
  end
  H.truthy(preview, 'a template preview buffer')
  H.eq('diff', vim.bo[preview].filetype, 'preview filetype')
  local text = table.concat(vim.api.nvim_buf_get_lines(preview, 0, -1, false), '\n')
  H.contains(text, '-ID1 <|> CONST1\n+ID1 <=|>= CONST1')
  H.contains(text, '-if qty > BULK:\n+if qty >= BULK:')
  -- The decision is in the memory itself.
  local r = vim.system({ H.python, '-m', 'fixloop', 'memory', 'templates', 'list', '--json', '--memory', memory },
    { text = true }):wait(120000)
  H.eq(0, r.code, 'fixloop memory templates list: ' .. (r.stderr or ''))
  H.eq('approved', vim.json.decode(r.stdout)[1].status, 'the stored status')
end)

H.run()
