"""Mined templates: recurring abstract edits of verified fixes, proposed to a person, used once approved.

Public API (small on purpose; everything else is internal):
- `mine(store, min_support=2) -> list[MinedTemplate]`: what the memory's verified fixes support now
  (rules in `mine.py`); rejected templates are never mined again.
- `all_templates(store)`: mined and decided templates with status and record; `approved(store)`: the
  approved ones (demoted ones flagged by `record.demoted`), cheap enough for every run.
- `decide(store, id_or_prefix, "approved" | "rejected", source)`: a person's decision (appended).
- `export_templates(store, path)`, `import_templates(store, path) -> ImportReport`: a versioned JSON file.
- `MinedTemplateProposer(load, demoted=False)`: the proposer the loop runs (wiring: first for templates
  that keep working, after the generic operators for demoted ones); `store_loader(store)` feeds it.
- `MinedTemplate`: `.id`, `.name`, `.before_shape`, `.after_shape`, `.support`, `.status`, `.record`
  (`tries`, `successes`, `rate`, `recent`, `demoted`), `.examples`, `.spec()`, `.form` ("edit": the
  window around the change, `edit.py`/`match.py`; "statement": a whole statement, as stored before).

`server/fixloop/engines/repair/templates.py` is something else: the error-driven edits the offline engine
aims at an exception. These are "mined templates" everywhere users see them.
"""
