-- :FixloopHistory and :FixloopReport against the real server, on a copy of examples/inventory with past
-- runs in .fixloop/runs (written in the run log's format by tests/history/synth.py): one fixed run whose
-- fix still applies, one that gave up.
local H = dofile(vim.fn.fnamemodify(arg[0], ':p:h') .. '/helpers.lua')

local function project_with_history()
  local root = H.project()
  local script = [[
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[2])
from tests.history.synth import Cand, Spec, write
root = Path(sys.argv[1])
d = write(root, Spec("20261101-090000-0000aa", cands=[Cand(status="plausible")], target="tests/test_pricing.py"))
src = (root / "inventory" / "pricing.py").read_text()
old = next(l for l in src.splitlines(keepends=True) if "BULK_THRESHOLD:" in l)
new = old.replace("BULK_THRESHOLD:", "BULK_THRESHOLD:  # fixed")
n = src.splitlines(keepends=True).index(old) + 1
(d / "fix.diff").write_text(f"--- a/inventory/pricing.py\n+++ b/inventory/pricing.py\n@@ -{n},1 +{n},1 @@\n-{old}+{new}")
write(root, Spec("20261102-090000-0000bb", status="gave_up", cands=[Cand(status="unsafe", rules=("FL-S002",))]))
]]
  local r = vim.system({ H.python, '-c', script, root, H.repo }, { text = true }):wait(30000)
  assert(r.code == 0, 'writing the runs failed: ' .. (r.stderr or ''))
  return root
end

local function setup(root)
  require('fixloop').setup({ python = H.python, settings = { offline = true, memory = { enabled = false } } })
end

H.test(':FixloopHistory lists past runs and reopens a fixed one for review', function()
  local root = project_with_history()
  setup(root)
  H.open_attached(root .. '/inventory/pricing.py', 30000)
  local offered
  vim.ui.select = function(items, opts, on_choice)
    offered = vim.tbl_map(opts.format_item, items)
    for _, item in ipairs(items) do
      if item.status == 'fixed' then
        return on_choice(item)
      end
    end
    on_choice(nil)
  end
  vim.cmd('FixloopHistory')
  H.wait(20000, function()
    return require('fixloop.review').view() ~= nil
  end, 'the past run to open in the review')
  H.eq(2, #offered, 'runs offered: ' .. vim.inspect(offered))
  H.contains(offered[1], 'gave up')
  H.contains(offered[2], 'fixed by engine/compare_op  tests/test_pricing.py  1 cand., $0.0000')
  local view = require('fixloop.review').view()
  H.eq('20261101-090000-0000aa', view.run_id, 'run id')
  H.eq(true, view.summary.past, 'a past run')
  H.eq({ 'pending' }, vim.tbl_map(function(h)
    return h.state
  end, view.summary.hunks), 'its hunk is reviewable again')
end)

H.test(':FixloopReport writes the report, opens it and echoes the headline KPIs', function()
  local root = project_with_history()
  setup(root)
  H.open_attached(root .. '/inventory/pricing.py', 30000)
  local opened
  vim.ui.open = function(path)
    opened = path
    return nil, nil
  end
  vim.cmd('FixloopReport')
  local m = H.wait_message(60000, 'fix rate: 50% (1 fixed)')
  H.contains(m.msg, 'safe runs: 100%')
  H.wait(5000, function()
    return opened ~= nil
  end, 'vim.ui.open to be called')
  H.truthy(vim.startswith(opened, os.getenv('XDG_DATA_HOME')), 'the report is in the data dir: ' .. opened)
  local page = table.concat(vim.fn.readfile(opened), '\n')
  H.contains(page, '<h1>fixloop report</h1>')
  H.contains(page, "default-src 'none'")
  H.eq(nil, page:find('<script', 1, true), 'no script in the report')
end)

H.run()
