-- doc/fixloop.txt: helptags build without errors and every command, option and function has a tag.
local H = dofile(vim.fn.fnamemodify(arg[0], ':p:h') .. '/helpers.lua')

H.test('helptags and tags for what the plugin provides', function()
  local doc = vim.fn.tempname()
  vim.fn.mkdir(doc, 'p')
  vim.fn.writefile(vim.fn.readfile(H.plugin_dir .. '/doc/fixloop.txt'), doc .. '/fixloop.txt')
  vim.cmd.helptags(doc) -- raises on duplicate tags
  local tags = {}
  for _, line in ipairs(vim.fn.readfile(doc .. '/tags')) do
    tags[vim.split(line, '\t')[1]] = true
  end
  local wanted = { ':FixloopFix', ':FixloopFix!', ':FixloopCheck', ':FixloopFixTest', ':FixloopCancel', ':FixloopReview', ':FixloopLog',
    ':FixloopHistory', ':FixloopReport', ':FixloopInstall', ':FixloopTrust', ':FixloopUndo',
    'fixloop.setup()', 'fixloop.status()', 'fixloop-options', 'fixloop-review', 'fixloop-health' }
  for _, tag in ipairs(wanted) do
    H.truthy(tags[tag], 'tag ' .. tag)
  end
  -- Every option in the defaults is documented.
  local text = table.concat(vim.fn.readfile(doc .. '/fixloop.txt'), '\n')
  for key in pairs(require('fixloop.config').defaults) do
    H.contains(text, key .. ' =', 'option ' .. key)
  end
  for key in pairs(require('fixloop.config').defaults.review.keys) do
    H.contains(text, key .. ' =', 'review key ' .. key)
  end
end)

H.run()
