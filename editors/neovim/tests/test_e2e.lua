-- End to end with the real fixloop server on a copy of examples/inventory whose fix has two hunks
-- (tests/fixtures/two_hunks: the offline engine negates a condition written over three lines, changing its
-- first and last line around an unchanged comment). Nothing here is scripted: real server, real pytest, real
-- edits.
local H = dofile(vim.fn.fnamemodify(arg[0], ':p:h') .. '/helpers.lua')

local function setup(root)
  require('fixloop').setup({
    python = H.python,
    -- offline: never call a model, even when the developer's shell has an API key.
    settings = { offline = true, memory = { uri = root .. '/.fixloop-test-memory' }, audit = { enabled = true } },
  })
end

local function read(path)
  return vim.fn.readfile(path)
end

--- Wait until the review split shows a fixed run; returns its buffer and view.
local function wait_review(ms)
  H.wait(ms, function()
    return require('fixloop.review').view() ~= nil
  end, 'the review to open after the run')
  local buf = vim.api.nvim_get_current_buf()
  return buf, require('fixloop.review').view(buf)
end

H.test(':FixloopFix, then accept one hunk and reject the other', function()
  local root = H.project('two_hunks')
  local pricing = root .. '/inventory/pricing.py'
  local on_disk = read(pricing)
  setup(root)
  local t0 = vim.uv.hrtime()
  local client = H.open_attached(pricing, 30000)
  local t_attach = H.since(t0)
  H.eq('fixloop', client.server_info.name, 'server name')
  local src = vim.api.nvim_get_current_buf()
  local kinds, reports = {}, {}
  vim.api.nvim_create_autocmd('LspProgress', {
    callback = function(ev)
      local v = ev.data.params.value
      table.insert(kinds, v.kind)
      if v.message then
        table.insert(reports, v.message)
      end
    end,
  })
  t0 = vim.uv.hrtime()
  vim.cmd('FixloopFix')
  local review, view = wait_review(120000)
  local t_run = H.since(t0)
  H.eq('begin', kinds[1], 'first progress')
  H.eq('end', kinds[#kinds], 'last progress')
  H.truthy(#reports > 0, 'progress reports')
  H.eq('fixed', view.summary.status, 'status')
  H.eq('accept', (view.summary.review or {}).verdict, 'the review: ' .. vim.inspect(view.summary.review))
  H.contains(vim.api.nvim_buf_get_lines(review, 0, 4, false)[3], '# review (offline): accept, the ',
    'the reviewer\'s word beside the diff')
  H.eq('# audit (offline): nothing found', vim.api.nvim_buf_get_lines(review, 3, 4, false)[1],
    'the audit beside the diff (audit.enabled in the user\'s settings)')
  H.eq(2, #view.summary.hunks, 'hunks: ' .. vim.inspect(view.summary.hunks))
  local h0, h1 = view.summary.hunks[1], view.summary.hunks[2]
  H.eq('inventory/pricing.py', h0.path, 'path')
  H.eq('    if not ((subtotal >= FREE_SHIPPING_FROM\n', h0.new, 'first hunk')
  H.eq('            or member)):\n', h1.new, 'second hunk')
  H.eq(on_disk, vim.api.nvim_buf_get_lines(src, 0, -1, false), 'buffer untouched before the review')

  t0 = vim.uv.hrtime()
  vim.api.nvim_set_current_win(vim.fn.bufwinid(review))
  vim.api.nvim_win_set_cursor(0, { view.ranges[1].first, 0 })
  vim.api.nvim_feedkeys('a', 'x', false)
  H.wait(15000, function()
    return view.summary.hunks[1].state == 'accepted'
  end, 'the server to record hunk 0 as accepted')
  vim.api.nvim_feedkeys(']h', 'x', false)
  vim.api.nvim_feedkeys('r', 'x', false)
  H.wait(15000, function()
    return view.summary.hunks[2].state == 'rejected'
  end, 'the server to record hunk 1 as rejected')

  H.say(('       timing: server attached %.1f s, run to review %.1f s, two decisions %.1f s'):format(
    t_attach, t_run, H.since(t0)))
  local expected = vim.deepcopy(on_disk)
  expected[h0.start_line + 1] = '    if not ((subtotal >= FREE_SHIPPING_FROM'
  H.eq(expected, vim.api.nvim_buf_get_lines(src, 0, -1, false), 'buffer: the accepted hunk only')
  H.eq(on_disk, read(pricing), 'file on disk (the edit goes to the buffer; the user saves)')
  -- What the server recorded, asked afresh.
  local resp = client:request_sync('workspace/executeCommand',
    { command = 'fixloop.showRun', arguments = { { run_id = view.run_id } } }, 10000, src)
  H.truthy(resp and resp.result, 'showRun result: ' .. vim.inspect(resp))
  local states = vim.tbl_map(function(h)
    return h.id .. '=' .. h.state
  end, resp.result.hunks)
  H.eq({ 'inventory/pricing.py#0=accepted', 'inventory/pricing.py#1=rejected' }, states, 'server-side hunk states')
  H.wait_message(5000, '1 accepted, 1 rejected')
end)

H.test(':FixloopFix file from the test file, accept all, save: the tests pass', function()
  local root = H.project('two_hunks')
  setup(root)
  H.open_attached(root .. '/tests/test_pricing.py', 30000)
  -- (Scope "test" is not used here: any one of these tests alone has a one-literal fix.)
  vim.cmd('FixloopFix file')
  local _, view = wait_review(120000)
  H.eq('fixed', view.summary.status, 'status')
  vim.api.nvim_feedkeys('A', 'x', false)
  H.wait_message(15000, '2 accepted, 0 rejected')
  local pricing_buf = vim.fn.bufnr(root .. '/inventory/pricing.py')
  H.truthy(pricing_buf ~= -1, 'the edit opened inventory/pricing.py')
  vim.api.nvim_buf_call(pricing_buf, function()
    vim.cmd('silent write')
  end)
  local r = vim.system({ H.python, '-m', 'pytest', '-q', '-p', 'no:cacheprovider' }, { cwd = root, text = true }):wait(120000)
  H.eq(0, r.code, 'pytest after the fix:\n' .. (r.stdout or '') .. (r.stderr or ''))
  H.contains(r.stdout, '11 passed')
end)

H.test(':FixloopCancel stops a run', function()
  local root = H.project('two_hunks')
  setup(root)
  H.open_attached(root .. '/inventory/pricing.py', 30000)
  vim.cmd('FixloopFix')
  H.wait_message(10000, 'started')
  vim.cmd('FixloopCancel')
  local m = H.wait_message(60000, 'run cancelled')
  H.eq(vim.log.levels.WARN, m.level, 'level')
  H.eq(nil, require('fixloop.review').view(), 'no review for a cancelled run')
end)

H.run()
