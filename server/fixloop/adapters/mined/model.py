"""A mined template: the abstract edit of one statement, with the roles of its names kept apart.

`if qty > LIMIT:` -> `if qty >= LIMIT:` and `if age > SENIOR:` -> `if age >= SENIOR:` abstract to one
template, `if ID1 > ID2 :` -> `if ID1 >= ID2 :`. A role (`ID1`, `NUM1`, `STR1`) stands for whatever name
or literal sits at its first place in the before-statement, and means the same text wherever it recurs
(`ID1 = ID1 + ID2`). A name or literal that only the after-statement has (`xs.append(x)` ->
`xs.extend(x)`: `extend`) is kept as its text, so two fixes only share a template when they agree on it.

Pure functions over tree-sitter trees (through `memory.shapes`); nothing here reads the store.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Sequence

from fixloop.kit.shapes import StatementEdit, Token, code_of, statements, transfer

ROLE = re.compile(r"^(ID|NUM|STR|CONST|_)([1-9][0-9]{0,2})$")  # `_1`: a hole (any whole sub-expression)
ROLE_KINDS = ("ID", "NUM", "STR")
FORMS = ("statement", "edit")  # the whole statement (templates mined before 0.2), or the edit's window
STATUSES = ("proposed", "approved", "rejected")
OPERATOR_PREFIX = "mined:"  # the operator a template's candidates carry: `mined:<id>`


@dataclass(frozen=True)
class PatternToken:
    # True: `value` is a role (`ID1`, `CONST1`) or a hole (`_1`); False: the token's own text (`>=`,
    # `len`, `extend`) or an operator family (`<|>` before, `<=|>=` after: the alternative at the same place)
    role: bool
    value: str
    gap: str = ""  # the whitespace before it, as the first example had it

    @property
    def family(self) -> bool:
        return not self.role and "|" in self.value and all(self.value.split("|"))

    @property
    def hole(self) -> bool:
        return self.role and self.value.startswith("_")

    def to_json(self) -> list[str]:
        return ["role" if self.role else "ops" if self.family else "text", self.value, self.gap]

    @property
    def shape(self) -> str:
        return ROLE.sub(r"\1", self.value) if self.role else self.value


@dataclass(frozen=True)
class Example:
    project: str
    path: str
    before: str
    after: str


@dataclass(frozen=True)
class Record:
    """How the template did when it was tried: per run (a run tried it when one of its candidates ran)."""

    tries: int = 0
    successes: int = 0
    recent: tuple[bool, ...] = ()  # the last runs that tried it, oldest first
    demoted: bool = False

    @property
    def rate(self) -> float | None:
        return self.successes / self.tries if self.tries else None


@dataclass(frozen=True)
class MinedTemplate:
    before: tuple[PatternToken, ...]
    after: tuple[PatternToken, ...]
    support: int = 0  # distinct places (project, file, statement) a verified fix made this edit
    projects: int = 0
    accepted: int = 0  # of those fixes, how many the developer accepted in review
    examples: tuple[Example, ...] = ()
    status: str = "proposed"
    record: Record = field(default_factory=Record)
    origin: str = "mined"  # "mined" from this memory's fixes, or "imported" from a file
    within: str = ""  # edit form: the node type the window is ("node") or sits in ("children"); "" = statement form
    span: str = ""
    contexts: tuple[str, ...] = ()  # edit form: the node types the examples' windows sat in (ranks matches)

    @property
    def form(self) -> str:
        return "edit" if self.within else "statement"

    @property
    def id(self) -> str:
        return template_id(self.before, self.after, self.within, self.span)

    @property
    def operator(self) -> str:
        return OPERATOR_PREFIX + self.id

    @property
    def before_shape(self) -> str:
        return " ".join(t.value for t in self.before)

    @property
    def after_shape(self) -> str:
        return " ".join(t.value for t in self.after)

    @property
    def name(self) -> str:
        return describe_change(self.before, self.after, self.span)

    @property
    def place(self) -> str:
        """Where the engine puts it: first (approved), behind the generic operators (demoted), or nowhere."""
        if self.status != "approved":
            return "never" if self.status == "rejected" else "only once approved"
        return "after the generic operators" if self.record.demoted else "before the generic operators"

    def with_status(self, status: str, origin: str | None = None) -> MinedTemplate:
        return replace(self, status=status, origin=origin or self.origin)

    def spec(self) -> dict[str, Any]:
        """What a file or the store keeps of it (support and record are recomputed where they live)."""
        edit = {"form": "edit", "within": self.within, "span": self.span, "contexts": list(self.contexts)}
        return {
            "id": self.id, "name": self.name, "status": self.status,
            "before": [t.to_json() for t in self.before], "after": [t.to_json() for t in self.after],
            "before_shape": self.before_shape, "after_shape": self.after_shape,
            "support": self.support, "projects": self.projects, "accepted": self.accepted,
            "examples": [e.__dict__ for e in self.examples], **(edit if self.within else {}),
        }


def template_id(before: Sequence[PatternToken], after: Sequence[PatternToken], within: str = "",
                span: str = "") -> str:
    """The template's identity is its abstract edit: the same edit mined again gets the same id (so a
    rejected one is recognised forever). Statement-form templates keep the ids they were stored with."""
    parts: list[Any] = [[t.role, t.value] for t in before] + ["->"] + [[t.role, t.value] for t in after]
    if within:
        parts = ["edit", within, span] + parts
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:12]


# ---- abstracting a fix -------------------------------------------------------------------------------

def abstract(edit: StatementEdit) -> tuple[tuple[PatternToken, ...], tuple[PatternToken, ...]]:
    """The edit with each name and literal of the before-statement replaced by its role."""
    roles: dict[tuple[str, str], str] = {}
    counts = {kind: 0 for kind in ROLE_KINDS}
    before: list[PatternToken] = []
    for t in edit.before:
        if t.shape in ROLE_KINDS:
            if (t.shape, t.text) not in roles:
                counts[t.shape] += 1
                roles[(t.shape, t.text)] = f"{t.shape}{counts[t.shape]}"
            before.append(PatternToken(True, roles[(t.shape, t.text)], t.gap))
        else:
            before.append(PatternToken(False, t.text, t.gap))
    after = [PatternToken(True, roles[(t.shape, t.text)], t.gap) if (t.shape, t.text) in roles
             else PatternToken(False, t.text, t.gap) for t in edit.after]
    if before:
        before[0] = replace(before[0], gap="")
    if after:
        after[0] = replace(after[0], gap="")
    return tuple(before), tuple(after)


# ---- matching and applying ---------------------------------------------------------------------------

def bind(pattern: Sequence[PatternToken], target: Sequence[Token]) -> dict[str, str] | None:
    """Role -> the target's text when `target` has the pattern's shape (distinct roles, distinct texts)."""
    if len(pattern) != len(target):
        return None
    bound: dict[str, str] = {}
    for p, t in zip(pattern, target):
        if not p.role:
            if t.text != p.value:
                return None
            continue
        if t.shape != p.shape:
            return None
        if bound.setdefault(p.value, t.text) != t.text:
            return None
    return bound if len(set(bound.values())) == len(bound) else None


def apply_to(template: MinedTemplate, target: Sequence[Token]) -> list[tuple[int, int, str]] | None:
    """Character edits (start, end, text) on the target's source that make the template's edit there,
    or None when the statement does not have the template's before-shape."""
    bound = bind(template.before, target)
    if bound is None:
        return None
    after = tuple(Token(t.shape, bound[t.value] if t.role else t.value, t.gap)
                  for t in template.after)
    return transfer(StatementEdit(tuple(target), after), target, min_similarity=1.0)


# ---- checking a template (an imported one, or one mined by an older grammar) ----------------------------

def _sample(pattern: Sequence[PatternToken]) -> str:
    """The pattern as code, each role written as a distinct name or literal of its kind."""
    out = []
    for k, t in enumerate(pattern):
        text = t.value
        if t.role:
            kind, number = ROLE.match(t.value).groups()  # type: ignore[union-attr]
            text = {"ID": f"v{number}_", "NUM": str(int(number) + 100), "STR": f"'s{number}'", "CONST": f"C{number}_X",
                    "_": f"h{number}_"}[kind]
        elif t.family:
            text = t.value.split("|")[0]
        out.append((t.gap or " " if k else "") + text)
    return "".join(out)


def _parsed_tokens(code: str) -> tuple[Token, ...] | None:
    """The tokens of `code` read back as one statement (a header gets a body, a clause its opening)."""
    first = code.split(" ", 1)[0]
    prefix = {"elif": "if x:\n    pass\n", "else": "if x:\n    pass\n", "except": "try:\n    pass\n",
              "finally": "try:\n    pass\n", "case": "match x:\n"}.get(first, "")
    indent = "    " if first == "case" else ""
    body = ("\n" + indent + "    pass") if code.rstrip().endswith(":") else ""
    source = prefix + indent + code + body + "\n"
    line = prefix.count("\n") + 1
    found = [tokens for number, tokens in statements(source) if number == line]
    from fixloop.kit.syntax import parses

    return found[-1] if found and parses(source) else None


def problem(template: MinedTemplate) -> str:
    """Why the template cannot be used ('' when it can): a malformed role, an after-role the before lacks,
    or shapes that no longer read back as the same statement (or, for the edit form, as its node)."""
    if not template.before or not template.after:
        return "its before- or after-shape is empty"
    for t in template.before + template.after:
        if t.role and not ROLE.match(t.value):
            return f"{t.value!r} is not a role (ID1, NUM1, STR1, CONST1, _1, ...)"
        if t.family and any(part != part.strip() or "  " in part for part in t.value.split("|")):
            return f"{t.value!r} is not an operator family"
        if not t.role and not t.family and (not t.value or any(c.isspace() for c in t.value)):
            return f"{t.value!r} is not a token"
    if not {t.value for t in template.after if t.role} <= {t.value for t in template.before if t.role}:
        return "its after-shape uses a role its before-shape does not have"
    if template.form == "edit":
        from fixloop.adapters.mined.match import check

        return check(template, _sample(template.before), _sample(template.after))
    if any(t.hole or t.family for t in template.before + template.after):
        return "a whole-statement template has no holes or operator families"
    for side, pattern in (("before", template.before), ("after", template.after)):
        tokens = _parsed_tokens(_sample(pattern))
        if tokens is None:
            return f"its {side}-shape `{' '.join(t.value for t in pattern)}` does not parse as a statement"
        if bind(pattern, tokens) is None:
            return f"its {side}-shape `{' '.join(t.value for t in pattern)}` no longer reads back as the same statement"
    return ""


def from_spec(data: Mapping[str, Any]) -> MinedTemplate:
    """A template from its `spec()`; ValueError naming what is wrong."""
    def pattern(name: str) -> tuple[PatternToken, ...]:
        raw = data.get(name)
        if not isinstance(raw, list) or not raw:
            raise ValueError(f"'{name}' must be a non-empty list of tokens")
        out = []
        for item in raw:
            if (not isinstance(item, list) or len(item) not in (2, 3) or item[0] not in ("role", "text", "ops")
                    or not all(isinstance(x, str) for x in item)):
                raise ValueError(f"'{name}' holds {item!r:.60}, not [\"role\"|\"text\"|\"ops\", value, gap]")
            token = PatternToken(item[0] == "role", item[1], item[2] if len(item) == 3 and item[2].isspace() else "")
            if (item[0] == "ops") != token.family:
                raise ValueError(f"'{name}' holds {item!r:.60}: an operator family is [\"ops\", \"a|b\", gap]")
            out.append(token)
        out[0] = replace(out[0], gap="")
        return tuple(out)

    status = data.get("status", "proposed")
    if status not in STATUSES:
        raise ValueError(f"'status' must be one of {', '.join(STATUSES)}, got {status!r:.40}")
    examples = []
    for e in data.get("examples") or []:
        if isinstance(e, Mapping) and all(isinstance(e.get(k), str) for k in ("project", "path", "before", "after")):
            examples.append(Example(e["project"], e["path"], e["before"], e["after"]))
    number = data.get("support", 0)
    support = number if isinstance(number, int) and not isinstance(number, bool) and number >= 0 else 0
    form = data.get("form", "statement")  # templates stored before the edit form have no "form": statements
    if form not in FORMS:
        raise ValueError(f"'form' must be one of {', '.join(FORMS)}, got {form!r:.40}")
    within, span, contexts = "", "", ()
    if form == "edit":
        within, span, raw = data.get("within"), data.get("span"), data.get("contexts") or []
        if not isinstance(within, str) or not re.fullmatch(r"[a-z_]{1,40}", within):
            raise ValueError(f"'within' must name a syntax node (e.g. comparison_operator), got {within!r:.40}")
        if span not in ("node", "children"):
            raise ValueError(f"'span' must be 'node' or 'children', got {span!r:.40}")
        if not isinstance(raw, list) or not all(isinstance(c, str) and len(c) <= 40 for c in raw):
            raise ValueError("'contexts' must be a list of node types")
        contexts = tuple(raw[:8])
    return MinedTemplate(pattern("before"), pattern("after"), support=support, examples=tuple(examples[:5]),
                         status=status, within=within, span=span, contexts=contexts)


# ---- naming ------------------------------------------------------------------------------------------

_STRICT = {">": ">=", "<": "<="}
_KINDS = {"ID": "a name", "NUM": "a number", "STR": "a string", "CONST": "a named constant"}


def _family_name(old: str, new: str, tail: str) -> str:
    pairs = list(zip(old.split("|"), new.split("|")))
    shown = ", ".join(f"{o} -> {n}" for o, n in pairs)
    if all(_STRICT.get(o) == n for o, n in pairs):
        return f"a strict comparison{tail} becomes non-strict ({shown})"
    if all(_STRICT.get(n) == o for o, n in pairs):
        return f"a non-strict comparison{tail} becomes strict ({shown})"
    return f"the operator is replaced ({shown})"


def describe_change(before: Sequence[PatternToken], after: Sequence[PatternToken], span: str = "") -> str:
    """A short name people can read: `a strict comparison against a name becomes non-strict`."""
    a, b = [t.value for t in before], [t.value for t in after]
    if span == "children" and a == b[::-1]:
        return "two neighbouring arguments of a call are exchanged"
    ops = [op for op in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes() if op[0] != "equal"]
    if len(ops) == 1 and ops[0][0] == "replace" and ops[0][2] - ops[0][1] == 1 and ops[0][4] - ops[0][3] == 1:
        old, new, i = a[ops[0][1]], b[ops[0][3]], ops[0][1]
        against = _KINDS.get(before[i + 1].shape, "") if i + 1 < len(before) and before[i + 1].role else ""
        tail = f" against {against}" if against else ""
        if before[i].family and after[ops[0][3]].family:
            return _family_name(old, new, tail)
        if _STRICT.get(old) == new:
            return f"a strict comparison{tail} becomes non-strict ({old} -> {new})"
        if _STRICT.get(new) == old:
            return f"a non-strict comparison{tail} becomes strict ({old} -> {new})"
        if before[i].role or after[ops[0][3]].role:
            return f"{old} becomes {new} in `{' '.join(a)}`"
        return f"`{old}` becomes `{new}` in `{' '.join(a)}`"
    if len(ops) == 1 and ops[0][0] == "delete":
        return f"`{' '.join(a[ops[0][1]:ops[0][2]])}` is dropped from `{' '.join(a)}`"
    if len(ops) == 1 and ops[0][0] == "insert":
        return f"`{' '.join(b[ops[0][3]:ops[0][4]])}` is added to `{' '.join(a)}`"
    return f"`{' '.join(a)}` becomes `{' '.join(b)}`"


def example_of(edit: StatementEdit, project: str, path: str) -> Example:
    return Example(project, path, code_of(edit.before).strip(), code_of(edit.after).strip())
