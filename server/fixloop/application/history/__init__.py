"""Run history: what fixloop did over time, read back from each project's `.fixloop/runs` (untrusted) and
summarised as KPIs, a terminal listing and an HTML report."""
