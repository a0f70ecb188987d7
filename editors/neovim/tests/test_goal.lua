-- Goal mode end to end with the real fixloop server on a copy of editors/shared/fixtures/goal_shop (a bug
-- no test catches; line_total's docstring shows the right answer): :FixloopFix! text, the questions through
-- vim.ui.select, the review of the new test file (created by the client, never over an existing file) and of
-- the fix. Offline (tests from the docstring), and with the scripted Anthropic-compatible model server.
local H = dofile(vim.fn.fnamemodify(arg[0], ':p:h') .. '/helpers.lua')

local TEST_HUNK_TIMEOUT = 180000

local function read(path)
  return vim.fn.readfile(path)
end

local function wait_review(ms)
  H.wait(ms, function()
    return require('fixloop.review').view() ~= nil
  end, 'the review to open after the run')
  local buf = vim.api.nvim_get_current_buf()
  return buf, require('fixloop.review').view(buf)
end

local function new_file_hunk(view)
  for i, h in ipairs(view.summary.hunks or {}) do
    if h.new_file then
      return h, view.ranges[i]
    end
  end
end

local function pytest(root)
  return vim.system({ H.python, '-m', 'pytest', '-q', '-p', 'no:cacheprovider' }, { cwd = root, text = true }):wait(180000)
end

H.test(':FixloopFix! text offline: a test from the docstring, then the fix; the new file is never overwritten',
  function()
    local root = H.goal_project()
    require('fixloop').setup({
      python = H.python,
      settings = { offline = true, memory = { uri = root .. '/.fixloop-test-memory' } },
    })
    local pricing = root .. '/shop/pricing.py'
    H.open_attached(pricing, 30000)
    vim.api.nvim_win_set_cursor(0, { 15, 4 }) -- inside line_total
    local asked = 0
    vim.ui.select = function(_, _, on_choice) -- an offline goal on one named function asks nothing
      asked = asked + 1
      on_choice(nil)
    end
    local t0 = vim.uv.hrtime()
    vim.cmd('FixloopFix! make line_total match its docstring')
    H.wait_message(10000, 'started')
    local review, view = wait_review(TEST_HUNK_TIMEOUT)
    H.say(('       timing: goal run to review %.1f s'):format(H.since(t0)))
    H.eq(0, asked, 'questions asked')
    H.eq('fixed', view.summary.status, 'status: ' .. vim.inspect(view.summary.message))
    local hunk, range = new_file_hunk(view)
    H.truthy(hunk, 'a new-file hunk in ' .. vim.inspect(view.summary.hunks))
    H.eq(view.summary.test_file, hunk.path, 'the summary names the test file')
    H.eq('docstring', view.summary.test_origin, 'test origin')
    H.contains(hunk.new, 'line_total(1.0, 10)', 'the test checks the docstring example')
    local text = table.concat(vim.api.nvim_buf_get_lines(review, 0, -1, false), '\n')
    H.contains(text, '--- /dev/null\n+++ b/' .. hunk.path)
    H.contains(text, '[pending] ' .. hunk.id .. ' (new file)')
    local test_path = root .. '/' .. hunk.path
    H.eq(nil, vim.uv.fs_stat(test_path), 'no test file before the review')

    -- Something appears at that path before the user accepts: it is never overwritten.
    vim.fn.writefile({ '# mine' }, test_path)
    vim.api.nvim_set_current_win(vim.fn.bufwinid(review))
    vim.api.nvim_win_set_cursor(0, { range.first, 0 })
    vim.api.nvim_feedkeys('a', 'x', false)
    H.wait_message(5000, 'never overwrites')
    H.eq({ '# mine' }, read(test_path), 'the existing file is untouched')
    H.eq('pending', view.summary.hunks[1].state, 'the hunk stays pending')
    vim.fn.delete(test_path)

    -- Accept everything: the client creates the test file, the server applies the fix to the buffer.
    vim.api.nvim_feedkeys('A', 'x', false)
    H.wait(20000, function()
      for _, h in ipairs(view.summary.hunks) do
        if h.state ~= 'accepted' then
          return false
        end
      end
      return true
    end, 'every hunk accepted; states: ' .. vim.inspect(vim.tbl_map(function(h)
      return h.state
    end, view.summary.hunks)))
    -- Both land in buffers (the test file's is new); the user saves.
    local test_buf = vim.fn.bufnr(test_path)
    H.truthy(test_buf ~= -1, 'a buffer for the new test file')
    H.eq(vim.split(hunk.new, '\n', { trimempty = true }), vim.api.nvim_buf_get_lines(test_buf, 0, -1, false),
      'the new test file\'s text')
    local src = vim.fn.bufnr(pricing)
    H.truthy(table.concat(vim.api.nvim_buf_get_lines(src, 0, -1, false), '\n'):find('quantity >= BULK_THRESHOLD', 1, true),
      'the fix is in the buffer')
    vim.cmd('silent wall')
    H.eq(vim.split(hunk.new, '\n', { trimempty = true }), read(test_path), 'the test file on disk')
    local r = pytest(root)
    H.eq(0, r.code, 'pytest after the fix:\n' .. (r.stdout or '') .. (r.stderr or ''))
  end)

H.test(':FixloopFix! with the scripted model: a prompt, a question through vim.ui.select, the model test, the fix',
  function()
    local root = H.goal_project()
    local url, proc, requests = H.scripted_model()
    require('fixloop').setup({
      python = H.python,
      -- offline = false: setup() merges over the earlier test's options (vim.lsp.config extends).
      settings = { offline = false, memory = { uri = root .. '/.fixloop-test-memory' },
                   llm = { base_url = url, api_key = 'test-key-not-real', max_retries = 0 } },
    })
    local ok, err = pcall(function()
      H.open_attached(root .. '/shop/pricing.py', 30000)
      vim.api.nvim_win_set_cursor(0, { 16, 4 }) -- in line_total
      local prompts, questions = {}, {}
      vim.ui.input = function(opts, on_confirm)
        table.insert(prompts, opts.prompt)
        on_confirm('the bulk discount is applied one unit too late')
      end
      vim.ui.select = function(items, opts, on_choice)
        table.insert(questions, { prompt = opts.prompt, items = vim.tbl_map(opts.format_item or tostring, items) })
        on_choice(items[1])
      end
      vim.cmd('FixloopFix!')
      H.eq({ 'fixloop: describe the problem: ' }, prompts, 'the goal prompt')
      local _, view = wait_review(TEST_HUNK_TIMEOUT)
      H.say('       model requests: ' .. table.concat(read(requests), ' '))
      H.eq(1, #questions, 'questions asked: ' .. vim.inspect(questions))
      H.contains(questions[1].prompt, 'Should an order line of exactly 10 units get the bulk discount?')
      H.eq({ 'Yes, from 10 units on', 'No, only above 10 units' }, questions[1].items, 'choices')
      local s = view.summary
      H.eq('fixed', s.status, 'status: ' .. vim.inspect(s.message))
      H.eq('model', s.test_origin, 'the model wrote the test')
      H.contains(s.spec.expected, 'ten units already get the 10% bulk discount', 'the model spec')
      H.eq('Yes, from 10 units on', s.questions[1].answer, 'the answer in the summary')
      H.truthy((s.tokens or 0) > 0, 'tokens counted')
      local hunk, range = new_file_hunk(view)
      H.truthy(hunk, 'a new-file hunk')
      H.contains(hunk.new, 'def test_bulk_discount_starts_at_ten_units')
      vim.api.nvim_win_set_cursor(0, { range.first, 0 })
      vim.api.nvim_feedkeys('a', 'x', false)
      H.wait(20000, function()
        return view.summary.hunks[1].state == 'accepted'
      end, 'the new-file hunk accepted')
      vim.cmd('silent wall')
      H.contains(table.concat(read(root .. '/' .. hunk.path), '\n'), 'line_total(1.0, 10) == 9.0')
      H.eq(nil, table.concat(read(root .. '/shop/pricing.py'), '\n'):find('>= BULK_THRESHOLD', 1, true),
        'the fix hunk was not accepted')
      local steps = table.concat(read(requests), '\n')
      for _, step in ipairs({ 'ask_questions', 'write_spec', 'write_test' }) do
        H.contains(steps, '"step": "' .. step .. '"', 'model requests')
      end
    end)
    proc:kill(15)
    if not ok then
      error(err, 0)
    end
  end)

H.test(':FixloopFix! with an empty goal says what to write and starts nothing', function()
  local root = H.goal_project()
  require('fixloop').setup({ python = H.python, settings = { offline = true } })
  H.open_attached(root .. '/shop/pricing.py', 30000)
  vim.ui.input = function(_, on_confirm)
    on_confirm('   ')
  end
  vim.cmd('FixloopFix!')
  H.wait_message(2000, 'describe the problem in a few words')
  vim.cmd('FixloopFix! ?? 42')
  H.wait_message(2000, 'the description needs words')
  H.eq(nil, H.find_message('started'), 'no run started')
end)

H.run()
