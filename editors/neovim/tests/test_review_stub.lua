-- The review UI against the stand-in server (predictable hunks, no test runs): keys, rendering, decisions.
local H = dofile(vim.fn.fnamemodify(arg[0], ':p:h') .. '/helpers.lua')
local root = H.project('two_hunks')
local pricing = root .. '/inventory/pricing.py'

H.test('FixloopFix opens the review; a/r decide per hunk; the buffer changes only by the accepted hunk', function()
  require('fixloop').setup({ cmd = H.stub_cmd() })
  H.open_attached(pricing)
  local src = vim.api.nvim_get_current_buf()
  local before = vim.api.nvim_buf_get_lines(src, 0, -1, false)
  local first = vim.fn.index(before, '    if (subtotal >= FREE_SHIPPING_FROM') -- 0-based lines of the two hunks
  local second = vim.fn.index(before, '            or member):')
  H.truthy(first > 0 and second > first, 'fixture lines')
  vim.cmd('FixloopFix')
  H.wait(10000, function()
    return vim.bo.filetype == 'diff' and require('fixloop.review').view() ~= nil
  end, 'the review split')
  local review = vim.api.nvim_get_current_buf()
  local view = require('fixloop.review').view(review)
  H.eq(2, #view.ranges, 'hunks shown')
  local text = table.concat(vim.api.nvim_buf_get_lines(review, 0, -1, false), '\n')
  H.contains(text, ('@@ -%d,1 +%d,1 @@ [pending] inventory/pricing.py#0'):format(first + 1, first + 1))
  H.contains(text, '-    if (subtotal >= FREE_SHIPPING_FROM\n+    if not ((subtotal >= FREE_SHIPPING_FROM')
  H.contains(text, ' ' .. before[first], 'context line') -- the line before the hunk, from the file
  -- Cursor starts on the first hunk: accept it.
  H.eq(view.ranges[1].first, vim.api.nvim_win_get_cursor(0)[1], 'cursor on the first hunk')
  vim.api.nvim_feedkeys('a', 'x', false)
  H.wait(5000, function()
    return view.summary.hunks[1].state == 'accepted'
  end, 'hunk 0 accepted')
  H.eq('    if not ((subtotal >= FREE_SHIPPING_FROM', vim.api.nvim_buf_get_lines(src, first, first + 1, false)[1],
    'accepted hunk in the buffer')
  -- Next hunk, reject it.
  vim.api.nvim_feedkeys(']h', 'x', false)
  H.eq(view.ranges[2].first, vim.api.nvim_win_get_cursor(0)[1], 'cursor on the second hunk')
  vim.api.nvim_feedkeys('r', 'x', false)
  H.wait(5000, function()
    return view.summary.hunks[2].state == 'rejected'
  end, 'hunk 1 rejected')
  H.eq('            or member):', vim.api.nvim_buf_get_lines(src, second, second + 1, false)[1],
    'rejected hunk not in the buffer')
  H.wait_message(2000, '1 accepted, 1 rejected')
  -- A decided hunk cannot be decided again.
  vim.api.nvim_feedkeys('a', 'x', false)
  H.truthy(H.find_message('already rejected'), 'refusal to re-decide')
  -- <CR> goes to the hunk in its file.
  vim.api.nvim_win_set_cursor(0, { view.ranges[2].first, 0 })
  vim.api.nvim_feedkeys(vim.keycode('<CR>'), 'x', false)
  H.eq(src, vim.api.nvim_get_current_buf(), '<CR> opens the source buffer')
  H.eq(second + 1, vim.api.nvim_win_get_cursor(0)[1], '<CR> puts the cursor on the hunk')
  local after = vim.api.nvim_buf_get_lines(src, 0, -1, false)
  before[first + 1] = '    if not ((subtotal >= FREE_SHIPPING_FROM'
  H.eq(before, after, 'whole buffer')
end)

H.test('progress reaches LspProgress, vim.lsp.status() and status()', function()
  require('fixloop').setup({ cmd = H.stub_cmd(), open_review_on_fix = false })
  H.open_attached(pricing)
  local seen = {}
  local statuses = {}
  vim.api.nvim_create_autocmd('LspProgress', {
    callback = function(ev)
      table.insert(seen, ev.data.params.value.kind)
      table.insert(statuses, vim.lsp.status())
    end,
  })
  vim.cmd('FixloopFix')
  H.wait_message(10000, 'run fixed')
  H.eq({ 'begin', 'report', 'end' }, seen, 'progress kinds')
  H.contains(table.concat(statuses, '|'), 'run: candidate 1', 'vim.lsp.status()')
  H.eq('fixloop: fixed', require('fixloop').status(), 'status() after the run')
  H.eq(nil, require('fixloop.review').view(), 'review not opened when open_review_on_fix = false')
  H.contains(H.find_message('run fixed').msg, '2 hunks to review')
  -- :FixloopReview fetches the latest run itself.
  vim.cmd('FixloopReview')
  H.wait(5000, function()
    return require('fixloop.review').view() ~= nil
  end, 'review opened by :FixloopReview')
  -- R rejects everything that is pending.
  vim.api.nvim_feedkeys('R', 'x', false)
  H.wait_message(5000, '0 accepted, 2 rejected')
  vim.cmd('wincmd p')
  vim.cmd('FixloopLog')
  local log = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
  H.contains(log, 'progress: run: candidate 1', 'log')
  H.contains(log, 'run fixed', 'log')
end)

H.test(':FixloopFixTest sends the cursor position; :FixloopFix file the file scope', function()
  require('fixloop').setup({ cmd = H.stub_cmd(), open_review_on_fix = false })
  local test_file = root .. '/tests/test_pricing.py'
  H.open_attached(test_file)
  local line = vim.fn.search('def test_members_ship_free')
  vim.api.nvim_win_set_cursor(0, { line + 1, 4 })
  vim.cmd('FixloopFixTest')
  local m = H.wait_message(10000, 'run fixed')
  H.contains(m.msg, ('scope=position uri=%s line=%d character=4'):format(vim.uri_from_fname(test_file), line))
  H.messages = {}
  vim.cmd('FixloopFix file')
  H.contains(H.wait_message(10000, 'run fixed').msg, 'scope=file uri=' .. vim.uri_from_fname(test_file))
  H.messages = {}
  vim.cmd('FixloopFix')
  H.contains(H.wait_message(10000, 'run fixed').msg, 'scope=workspace')
end)

H.test('the audit is shown beside the diff: by whom, one line per finding, model text folded', function()
  local review = require('fixloop.review')
  H.eq({ '# audit (auditor-model): 1 finding(s)', '#   high x.py:3: reads any path (auditor-model)' },
    review.audit_lines({ by = 'auditor-model', blocking = true, note = '', findings = {
      { severity = 'high', path = 'x.py', line = 3, message = 'reads\nany path', source = 'auditor-model' } } }),
    'a finding')
  H.eq({ '# audit (offline): nothing found (no model audit (down))' },
    review.audit_lines({ by = 'offline', note = 'no model audit (down)', findings = {} }), 'nothing found, and why')
end)

H.run()
