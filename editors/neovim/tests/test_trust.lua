-- End to end with the real fixloop server: a trust grant in Neovim. The example's bug is fixed and accepted in
-- the review; the server asks (vim.ui.select) whether fixes like it may be applied without asking; yes. The same
-- bug again: the fix lands in the buffer with no review (never on disk); `u` takes it back, which ends the grant.
local H = dofile(vim.fn.fnamemodify(arg[0], ':p:h') .. '/helpers.lua')

local GRANT = 'Apply fixes like this without asking'

local function answering(asked)
  vim.ui.select = function(items, opts, on_choice)
    local titles = vim.tbl_map(function(i)
      return type(i) == 'table' and i.title or i
    end, items)
    table.insert(asked, opts.prompt or '')
    local want = (opts.prompt or ''):find('Apply fixes like this', 1, true) and GRANT or 'Keep'
    for i, title in ipairs(titles) do
      if title == want then
        return on_choice(items[i])
      end
    end
    on_choice(nil)
  end
end

local function grants(client, bufnr)
  local reply = client:request_sync('workspace/executeCommand',
    { command = 'fixloop.trust', arguments = { vim.empty_dict() } }, 10000, bufnr)
  return reply and reply.result and reply.result.grants or {}
end

H.test('accepted, granted, applied without asking, undone with u: the grant ends', function()
  local root = H.project()
  require('fixloop').setup({
    python = H.python,
    settings = { python = H.python, offline = true, memory = { enabled = false }, trust = { after = 1 } },
  })
  local asked = {}
  answering(asked)
  local pricing = root .. '/inventory/pricing.py'
  local on_disk = vim.fn.readfile(pricing)
  local client = H.open_attached(pricing, 30000)
  local bufnr = vim.api.nvim_get_current_buf()
  local buggy = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)

  vim.cmd('FixloopFix')
  H.wait(180000, function()
    return require('fixloop.review').view() ~= nil
  end, 'the review of the first fix')
  vim.api.nvim_feedkeys('A', 'x', false)
  H.wait_message(15000, 'accepted, 0 rejected')
  H.wait(15000, function()
    return #grants(client, bufnr) == 1
  end, 'the grant after the yes')
  H.contains(asked[1], 'Apply fixes like this', 'the question')
  vim.cmd('close')

  -- The same bug again (typed back into the buffer): fixed and applied with no review.
  vim.api.nvim_set_current_buf(bufnr)
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, buggy)
  vim.cmd('FixloopFix')
  H.wait_message(180000, 'applied without asking to inventory/pricing.py')
  H.truthy(vim.tbl_contains(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), '    if quantity >= BULK_THRESHOLD:'),
    'the fix is in the buffer')
  H.eq(nil, require('fixloop.review').view(), 'no review opened')
  H.eq(on_disk, vim.fn.readfile(pricing), 'the file on disk is untouched')

  -- `u`: the buffer is back as it was, and the server ends the grant.
  vim.api.nvim_buf_call(bufnr, function()
    vim.cmd('undo')
  end)
  H.eq(buggy, vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), 'undo restored the buffer')
  H.wait(15000, function()
    return #grants(client, bufnr) == 0
  end, 'the grant to end after the undo')
  vim.cmd('FixloopTrust')
  H.wait_message(10000, 'no grants: every fix is offered for review')
end)

H.run()
