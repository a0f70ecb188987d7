-- End to end with the real fixloop server: :FixloopCheck ruff (and mypy) on a copy of examples/inventory whose stock module
-- imports something it never uses (written in by `project`) beside the example's own bug. ruff runs from the
-- project's interpreter in the sandbox; the finding and the failing tests are fixed in one run and reviewed.
local H = dofile(vim.fn.fnamemodify(arg[0], ':p:h') .. '/helpers.lua')

--- The example with `import os` in inventory/stock.py, under its `from __future__` line.
local function project()
  local root = H.project()
  local stock = root .. '/inventory/stock.py'
  local lines = vim.fn.readfile(stock)
  H.eq('from __future__ import annotations', lines[1], 'the example stock module starts as expected')
  table.insert(lines, 3, 'import os')
  vim.fn.writefile(lines, stock)
  return root
end

local function setup(root)
  require('fixloop').setup({
    python = H.python,
    -- The project's interpreter: the one with ruff (a developer who runs ruff has it in the project's environment).
    -- search_factor: CI's two cores are shared with other work; the default sufficed on a quiet machine.
    settings = { python = H.python, offline = true, search_factor = 20, memory = { uri = root .. '/.fixloop-test-memory' } },
  })
end

H.test(':FixloopCheck ruff fixes the finding and the failing tests in one run, reviewed like any fix', function()
  local root = project()
  setup(root)
  local stock = root .. '/inventory/stock.py'
  local on_disk = vim.fn.readfile(stock)
  H.open_attached(stock, 30000)
  local t0 = vim.uv.hrtime()
  vim.cmd('FixloopCheck ruff')
  H.wait(180000, function()
    return require('fixloop.review').view() ~= nil
  end, 'the review to open after the run')
  local view = require('fixloop.review').view(vim.api.nvim_get_current_buf())
  H.say(('       timing: run to review %.1f s'):format(H.since(t0)))
  H.eq('fixed', view.summary.status, 'status: ' .. tostring(view.summary.message))
  H.truthy(vim.tbl_contains(view.summary.failing_before, 'ruff::inventory/stock.py::F401'),
    'the finding was a target: ' .. vim.inspect(view.summary.failing_before))
  H.contains(view.summary.diff, '-import os\n', 'the unused import goes')
  H.contains(view.summary.diff, '+    if quantity >= BULK_THRESHOLD:', 'the bug is fixed in the same run')
  vim.api.nvim_feedkeys('A', 'x', false)
  H.wait_message(15000, 'accepted, 0 rejected')
  local buf = vim.fn.bufnr(stock)
  H.eq(false, vim.tbl_contains(vim.api.nvim_buf_get_lines(buf, 0, -1, false), 'import os'), 'the buffer has no import os')
  H.eq(on_disk, vim.fn.readfile(stock), 'file on disk (the edit goes to the buffer; the user saves)')
end)

--- The example with a call whose arguments are the wrong way round (a mypy error no test reaches) in stock.py.
local function project_with_type_error()
  local root = H.project()
  local stock = root .. '/inventory/stock.py'
  local lines = vim.fn.readfile(stock)
  vim.list_extend(lines, { '', '', 'def restock(stock: Stock, sku: str, quantity: int) -> int:',
    '    return stock.receive(quantity, sku)' })
  vim.fn.writefile(lines, stock)
  return root
end

H.test(':FixloopCheck mypy fixes the type error and the failing tests in one run, reviewed like any fix', function()
  local root = project_with_type_error()
  setup(root)
  local stock = root .. '/inventory/stock.py'
  local on_disk = vim.fn.readfile(stock)
  H.open_attached(stock, 30000)
  local t0 = vim.uv.hrtime()
  vim.cmd('FixloopCheck mypy')
  H.wait(180000, function()
    return require('fixloop.review').view() ~= nil
  end, 'the review to open after the run')
  local view = require('fixloop.review').view(vim.api.nvim_get_current_buf())
  H.say(('       timing: run to review %.1f s'):format(H.since(t0)))
  H.eq('fixed', view.summary.status, 'status: ' .. tostring(view.summary.message))
  H.truthy(vim.tbl_contains(view.summary.failing_before, 'mypy::inventory/stock.py::arg-type'),
    'the finding was a target: ' .. vim.inspect(view.summary.failing_before))
  H.contains(view.summary.diff, '+    return stock.receive(sku, quantity)', 'the arguments go the right way round')
  -- `>=` or a threshold of 9: the same for whole quantities; which comes first depends on the other target.
  H.contains(view.summary.diff, '+++ b/inventory/pricing.py', 'the bug is fixed in the same run')
  vim.api.nvim_feedkeys('A', 'x', false)
  H.wait_message(15000, 'accepted, 0 rejected')
  local buf = vim.fn.bufnr(stock)
  H.truthy(vim.tbl_contains(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '    return stock.receive(sku, quantity)'),
    'the buffer has the fixed call')
  H.eq(on_disk, vim.fn.readfile(stock), 'file on disk (the edit goes to the buffer; the user saves)')
end)

H.test(':FixloopCheck with a checker fixloop does not know says so', function()
  local root = project()
  setup(root)
  H.open_attached(root .. '/inventory/stock.py', 30000)
  vim.cmd('FixloopCheck pylint')
  H.contains(H.wait_message(2000, 'unknown checker').msg, 'use ruff or mypy')
end)

H.run()
