"""Invariants the words state about a function's result, read statically with a small grammar:

    SUBJECT  VERB-PHRASE  PREDICATE [(and | or | ,) PREDICATE]*  [for any ... | when/if PARAM OP X]

SUBJECT is the function (`total`, `total()`, `discount(price)`: call arguments that are names are the
parameters, in order; a call with literal arguments is an example, not an invariant), "the result [of f]",
"its result", "it", or nothing at the start of a docstring line ("Returns a non-negative ..."). The verb
phrase is modal words, `is`, `returns`, articles, and negations (`never`, `not`, `can't`). A PREDICATE is a
comparison with a number or a parameter (`negative`, `positive`, `at most 100`, `never more than price`,
`between lo and hi`, `>= 0`), `sorted` / `in descending order`, `no duplicates` / `unique`, a length
(`the same length as items`, `at most 3 items`), not raising (`should not raise`), or a type (`an int`).
A parameter as the subject ("price must be positive") or a trailing "for any non-negative price" / "when
lo <= hi" is a precondition on the inputs. Anything else is not an invariant: "f returns 5 instead of 4",
"the total is wrong for negative prices" give nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Mapping, Sequence

NEGATE = {">": "<=", "<": ">=", ">=": "<", "<=": ">"}


@dataclass(frozen=True)
class Invariant:
    """What holds for every result. `kind`: compare | between | sorted | unique | no_raise | type."""

    kind: str
    op: str = ""  # compare: >=, <=, >, <, ==
    bound: str = ""  # compare: the other side, Python over the parameters ("0", "price", "len(items)")
    low: str = ""  # between
    high: str = ""
    length: bool = False  # compare: about len(result)
    reverse: bool = False  # sorted: descending
    type_name: str = ""  # type: int, float, str, ...
    text: str = ""  # the words it was read from

    def check(self, result: str = "result") -> str:
        """The assertion's condition, in Python."""
        subject = f"len({result})" if self.length else result
        if self.kind == "compare":
            return f"{subject} {self.op} {self.bound}"
        if self.kind == "between":
            return f"{self.low} <= {subject} <= {self.high}"
        if self.kind == "sorted":
            return f"list({result}) == sorted({result}{', reverse=True' if self.reverse else ''})"
        if self.kind == "unique":
            return f"len(set({result})) == len(list({result}))"
        if self.kind == "type":
            return f"isinstance({result}, {self.type_name})"
        return "True"  # no_raise: the call returning is the check

    def claim(self, call: str) -> str:
        """In one line, e.g. "total(prices) >= 0"."""
        if self.kind == "no_raise":
            return f"{call} raises nothing"
        return self.check(call)

    def names(self) -> set[str]:
        return set(re.findall(r"[A-Za-z_]\w*", f"{self.bound} {self.low} {self.high}")) - {"len"}


@dataclass(frozen=True)
class Precondition:
    param: str
    op: str  # >=, <=, >, <
    bound: str  # a number or another parameter

    def check(self) -> str:
        return f"{self.param} {self.op} {self.bound}"


@dataclass
class Reading:
    invariants: list[Invariant] = field(default_factory=list)
    preconditions: list[Precondition] = field(default_factory=list)


_NUMBER_WORDS = {"zero": "0", "one": "1", "two": "2", "ten": "10", "hundred": "100", "a hundred": "100",
                 "one hundred": "100"}
_X = (r"(?:-?\d+(?:\.\d+)?|zero|one\s+hundred|a\s+hundred|hundred|one|two|ten|"
      r"(?:the\s+)?(?:length|len|size)\s+of\s+(?:the\s+)?`?[A-Za-z_]\w*`?|len\(\s*[A-Za-z_]\w*\s*\)|"
      r"(?:the\s+|its\s+)?(?:input|argument)|(?:the\s+|its\s+)?`?[A-Za-z_]\w*`?(?:\(\))?)")
_UNITS = r"(?:\s+(?P<unit>items|elements|values|entries|characters|chars|letters|long))?"
# (pattern, op, op when negated or "" (then negation makes it no invariant), absolute: a negation carried
# from an earlier predicate does not apply)
_COMPARES: list[tuple[str, str, str, bool]] = [
    (r"(?:>=|≥)\s*", ">=", "<", True), (r"(?:<=|≤)\s*", "<=", ">", True), (r">\s*", ">", "<=", True),
    (r"<\s*", "<", ">=", True),
    (r"(?:greater|larger|more|bigger|higher)\s+than\s+or\s+equal\s+to\s+", ">=", "<", True),
    (r"(?:less|smaller|lower|fewer)\s+than\s+or\s+equal\s+to\s+", "<=", ">", True),
    (r"(?:no|not)\s+(?:more|greater|larger|bigger|higher|longer)\s+than\s+", "<=", "", True),
    (r"(?:no|not)\s+(?:less|fewer|smaller|lower|shorter)\s+than\s+", ">=", "", True),
    (r"(?:at\s+most|up\s+to|(?:a\s+)?maximum\s+of)\s+", "<=", "", True),
    (r"(?:at\s+least|(?:a\s+)?minimum\s+of)\s+", ">=", "", True),
    (r"(?:(?:go(?:es)?|rises?)\s+)?(?:greater|larger|more|bigger|higher)\s+than\s+|(?:go(?:es)?\s+|rises?\s+)?"
     r"(?:above|over)\s+|exceed(?:s|ing)?\s+", ">", "<=", False),
    (r"(?:(?:go(?:es)?|drops?|falls?)\s+)?(?:below|under)\s+|(?:less|smaller|lower|fewer)\s+than\s+", "<", ">=", False),
    (r"longer\s+than\s+", ">", "<=", False), (r"shorter\s+than\s+", "<", ">=", False),
]
_SIGNS: list[tuple[str, str, str, bool]] = [
    (r"non-?negative|not\s+negative|zero\s+or\s+(?:more|positive|greater)", ">=", "", True),
    (r"non-?positive|zero\s+or\s+(?:less|negative)", "<=", "", True),
    (r"(?:strictly\s+)?negative", "<", ">=", False),
    (r"(?:strictly\s+)?positive", ">", "<=", False),
]
_NOUN = r"(?:\s+(?:number|value|integer|int|float|amount|total|result|list|sequence|tuple|copy|version))?"
_SORTED_DOWN = re.compile(r"(?:sorted\s+)?in\s+(?:descending|decreasing|reverse(?:d)?)\s+order|reverse[- ]sorted"
                          r"|sorted\s+(?:descending|in\s+reverse)|descending" + _NOUN, re.I)
_SORTED_UP = re.compile(r"(?:sorted(?:\s+in\s+(?:ascending|increasing)\s+order)?|in\s+(?:ascending|increasing|"
                        r"sorted)\s+order|ascending|in\s+order)" + _NOUN, re.I)
_UNIQUE = re.compile(r"(?:(?:free\s+of|without)\s+(?:any\s+)?duplicates?|no\s+(?:duplicates?|repeat(?:s|ed))"
                     r"(?:\s+(?:items|elements|values|entries))?|duplicate[- ]free|unique|distinct)"
                     r"(?:\s+(?:items|elements|values|entries))?", re.I)
_DUPLICATES = re.compile(r"(?:(?:contains?|has|have|includes?)\s+)?(?:any\s+)?duplicates?"
                         r"|repeat(?:s|ed)?\s+(?:items|elements|values)", re.I)
_NO_RAISE = re.compile(r"(?:raises?|throws?)\s+no(?:thing|\s+(?:exceptions?|errors?))", re.I)
_RAISE = re.compile(r"(?:raises?|throws?)(?:\s+an?)?(?:\s+(?:exceptions?|errors?))?|crash(?:es)?|fails?"
                    r"|errors?(?:\s+out)?|blows?\s+up", re.I)
_SAME_LENGTH = re.compile(r"(?:of\s+)?(?:the\s+)?same\s+(?:length|size|(?:number|count)\s+of\s+\w+)\s+as\s+"
                          r"(?P<x>" + _X + r")|as\s+(?:long|many\s+\w+)\s+as\s+(?P<y>" + _X + r")", re.I)
_BETWEEN = re.compile(r"(?:between|within|in\s+(?:the\s+)?range(?:\s+from)?|from)\s+(?P<lo>" + _X +
                      r")\s+(?:and|to|-)\s+(?P<hi>" + _X + r")(?:\s*\(?(?:inclusive|included)\)?)?", re.I)
_TYPE = re.compile(r"(?:new\s+|plain\s+|single\s+)?(?P<t>int|integer|float|str|string|bool|boolean|list|dict|"
                   r"dictionary|tuple|set|bytes)\b", re.I)
_TYPES = {"integer": "int", "string": "str", "boolean": "bool", "dictionary": "dict"}
_VERBISH = set("""must should will shall can cannot can't could may might would does do doesn't don't did is are
isn't aren't was be been being always never not ever return returns returned give gives produce produces yield
yields stay stays remain remains come comes out end ends up has have to ought need needs mustn't shouldn't won't
wouldn't a an the value values number result also still guaranteed supposed expected get gets contain contains
strictly items elements entries numbers words list that which""".split())
_NEGATORS = {"never", "not", "cannot", "can't", "isn't", "aren't", "doesn't", "don't", "mustn't", "shouldn't",
             "won't", "wouldn't"}
_WORD = re.compile(r"\s*([A-Za-z']+)")
_CONNECTOR = re.compile(r"\s*(?:,\s*(?:and|or|nor)?|and|or|nor)\s+", re.I)
_CONDITIONAL = re.compile(r"\s*(?:when|if|unless|only|except|once|after|before|while|whenever|provided|assuming|"
                          r"for|with|given)\b", re.I)
_CALL_ARGS = r"(?:\s*\((?P<args>[^()]*)\))?"


def _bound(text: str, params: Sequence[str], renames: Mapping[str, str], single: str) -> tuple[str, bool] | None:
    """(Python for the words, is it a parameter) or None when the words name nothing the test can spell."""
    t = " ".join(text.replace("`", "").split()).lower().removesuffix("()")
    if t in _NUMBER_WORDS:
        return _NUMBER_WORDS[t], False
    if re.fullmatch(r"-?\d+(?:\.\d+)?", t):
        return t, False
    length = re.fullmatch(r"(?:the\s+)?(?:length|len|size)\s+of\s+(?:the\s+)?(\w+)|len\(\s*(\w+)\s*\)", t)
    if length:
        inner = _bound(length.group(1) or length.group(2), params, renames, single)
        return (f"len({inner[0]})", False) if inner and inner[1] else None
    t = re.sub(r"^(?:the|its)\s+", "", t)
    if t in ("input", "argument"):
        return (single, True) if single else None
    lowered = {p.lower(): p for p in params}
    name = renames.get(t, t)
    return (lowered[name.lower()], True) if name.lower() in lowered else None


def _clauses(text: str, docstring: bool) -> list[str]:
    """Sentences and comma-separated parts; a docstring's parameter sections and `>>>` lines are left out."""
    lines: list[str] = []
    skipping = False
    for raw in text.splitlines():
        line = raw.strip()
        header = re.fullmatch(r"(args|arguments|parameters|params|raises|examples?|yields|attributes)\s*:?", line, re.I)
        if docstring and (header or re.fullmatch(r"-{3,}", line)):
            skipping = bool(header) and not header.group(1).lower().startswith("yield")
            continue
        if docstring and re.fullmatch(r"returns?\s*:?", line, re.I):
            skipping = False
            continue
        if docstring and (skipping or line.startswith((">>>", "...", ":param", ":type", ":raises"))):
            continue
        lines.append(re.sub(r"^:returns?:|^:rtype:", "", line))
    joined = "\n".join(lines)
    joined = re.sub(r"(?<![\w`])`([^`]+)`", r"\1", joined)
    # Commas inside a call's parentheses ("clamp(x, lo, hi)") do not split.
    depth, chars = 0, []
    for ch in joined:
        depth = max(0, depth + (ch in "([{") - (ch in ")]}"))
        chars.append("\0" if ch == "," and depth else ch)
    parts = re.split(r"[.;:!?](?:\s|$)|,\s|\n|\s+but\s+", "".join(chars))
    return [c.replace("\0", ",").strip() for c in parts if c.strip()]


def _subject(clause: str, function: str, params: Sequence[str], docstring: bool
             ) -> tuple[int, dict[str, str], str] | None:
    """(where the verb phrase starts, argument names -> parameters, "result" | a parameter's name)."""
    name = re.escape(function)
    forms = [rf"(?:the\s+)?(?:result|return(?:ed)?\s+value|output|value)\s+of\s+`?{name}\b`?{_CALL_ARGS}",
             rf"(?<![\w.])`?{name}\b`?{_CALL_ARGS}",
             r"\b(?:the|its)\s+(?:result|return(?:ed)?\s+value|output|answer)\b", r"^\s*(?:it|this)\b"]
    for form in forms:
        m = re.search(form, clause, re.I)
        if m is None:
            continue
        renames: dict[str, str] = {}
        args = m.groupdict().get("args")
        if args and args.strip() not in ("", "..."):
            names = [a.strip().split("=")[0].strip() for a in args.split(",")]
            if not all(n.isidentifier() for n in names) or len(names) > len(params):
                return None  # literal arguments: an example, not an invariant
            renames = {n.lower(): p for n, p in zip(names, params)}
        return m.end(), renames, "result"
    first = re.match(r"\s*`?([A-Za-z_]\w*)`?", clause)
    if first and first.group(1) in params:
        return first.end(), {}, first.group(1)
    return (0, {}, "result") if docstring else None


def _predicate(rest: str, pos: int, negated: bool, carried: bool, params: Sequence[str],
               renames: Mapping[str, str], single: str) -> tuple[int, Invariant | None] | None:
    """The predicate at `pos`: (its end, the invariant or None when the words say no invariant), or None."""
    for pattern, op, negated_op, absolute in _COMPARES + _SIGNS:
        sign = (pattern, op, negated_op, absolute) in _SIGNS
        m = re.compile(f"(?:{pattern})" + ("" if sign else rf"(?P<x>{_X}){_UNITS}") + r"\b", re.I).match(rest, pos)
        if m is None:
            continue
        neg = negated and not (absolute and carried)
        final = (negated_op if neg else op) if (negated_op or not neg) else ""
        if not final:
            return m.end(), None
        if sign:
            return m.end(), Invariant("compare", final, "0", text=m.group(0))
        b = _bound(m.group("x"), params, renames, single)
        if b is None:
            return None
        length = bool(m.groupdict().get("unit")) or "longer" in pattern or "shorter" in pattern
        bound = f"len({b[0]})" if length and b[1] else b[0]
        return m.end(), Invariant("compare", final, bound, length=length, text=m.group(0))
    m = _BETWEEN.match(rest, pos)
    if m:
        lo, hi = (_bound(m.group(g), params, renames, single) for g in ("lo", "hi"))
        if lo is None or hi is None:
            return None
        return m.end(), (None if negated and not carried else Invariant("between", low=lo[0], high=hi[0], text=m.group(0)))
    m = _SAME_LENGTH.match(rest, pos)
    if m:
        b = _bound(m.group("x") or m.group("y"), params, renames, single)
        if b is None or not b[1]:
            return None
        return m.end(), (None if negated else Invariant("compare", "==", f"len({b[0]})", length=True, text=m.group(0)))
    for pattern, kind, reverse in ((_SORTED_DOWN, "sorted", True), (_SORTED_UP, "sorted", False), (_UNIQUE, "unique", False)):
        m = pattern.match(rest, pos)
        if m:
            return m.end(), (None if negated and not carried else Invariant(kind, reverse=reverse, text=m.group(0)))
    for pattern, needs_negation, kind in ((_NO_RAISE, False, "no_raise"), (_DUPLICATES, True, "unique"),
                                          (_RAISE, True, "no_raise")):
        m = pattern.match(rest, pos)
        if m:
            return m.end(), (Invariant(kind, text=m.group(0)) if negated == needs_negation else None)
    m = _TYPE.match(rest, pos)
    if m:
        name = m.group("t").lower()
        return m.end(), (None if negated else Invariant("type", type_name=_TYPES.get(name, name), text=m.group(0)))
    return None


def _tail(rest: str, params: Sequence[str], reading: Reading) -> bool:
    """What follows the predicates: nothing, "for any/all/every ...", or a precondition ("when lo <= hi");
    False for a condition this cannot read (the invariant is then not claimed)."""
    tail = rest.strip(" ,")
    if not tail or re.fullmatch(r"(?:even\s+.*|inclusive|included|always|at\s+all|ever|regardless.*)", tail, re.I):
        return True
    quantified = re.fullmatch(r"for\s+(?:any|all|every|each)\s+(?P<adj>non-?negative|positive|negative)?\s*"
                              r"(?P<noun>[A-Za-z_]\w*)?(?:\s+\w+)?", tail, re.I)
    if quantified:
        adj, noun = (quantified.group("adj") or "").lower(), (quantified.group("noun") or "")
        op = {"nonnegative": ">=", "non-negative": ">=", "positive": ">", "negative": "<"}.get(adj)
        targets = [p for p in params if p.lower() == noun.lower().rstrip("s") or p.lower() == noun.lower()]
        if op:
            for p in targets or params:
                reading.preconditions.append(Precondition(p, op, "0"))
        return True
    m = re.fullmatch(r"(?:when|if|whenever|provided|assuming|for|with|given)\s+(?:that\s+)?`?(?P<p>[A-Za-z_]\w*)`?\s*"
                     r"(?P<op><=|>=|<|>)\s*`?(?P<x>-?\d+(?:\.\d+)?|[A-Za-z_]\w*)`?", tail, re.I)
    if m and m.group("p") in params and (m.group("x") in params or not m.group("x")[0].isalpha()):
        reading.preconditions.append(Precondition(m.group("p"), m.group("op"), m.group("x")))
        return True
    return not _CONDITIONAL.match(tail) and not re.search(r"\binstead\s+of\b|\bfor\s+\w", tail, re.I)


def _one_clause(clause: str, function: str, params: Sequence[str], single: str, docstring: bool,
                reading: Reading) -> None:
    if re.search(r"\binstead\s+of\b", clause, re.I):
        return  # "returns 5 instead of 4": an example
    found = _subject(clause, function, params, docstring)
    if found is None:
        return
    start, renames, subject = found
    rest = clause[start:]
    pos, negated, carried = 0, False, False
    got: list[Invariant] = []
    while pos < len(rest):
        pred = _predicate(rest, pos + len(rest[pos:]) - len(rest[pos:].lstrip()), negated, carried, params,
                          renames, single)
        if pred is not None:
            pos, inv = pred
            if inv is None:
                return
            got.append(inv)
            connector = _CONNECTOR.match(rest, pos)
            if connector is None:
                break
            pos, carried = connector.end(), True
            continue
        word = _WORD.match(rest, pos)
        if word is None or (word.group(1).lower() not in _VERBISH and word.group(1) not in params):
            break
        if carried:  # a new verb phrase after "and": its own negation
            negated, carried = False, False
        negated = negated or word.group(1).lower() in _NEGATORS or word.group(1).lower().endswith("n't")
        pos = word.end()
    if not got or not _tail(rest[pos:], params, reading):
        return
    if subject != "result":  # "price must be positive": about an input
        reading.preconditions.extend(Precondition(subject, i.op, i.bound) for i in got
                                     if i.kind == "compare" and not i.length and i.op in NEGATE)
        return
    for inv in got:
        order = Precondition(inv.low, "<=", inv.high)
        if inv.kind == "between" and inv.low in params and inv.high in params and order not in reading.preconditions:
            reading.preconditions.append(order)  # "between lo and hi" says nothing when lo > hi
        if inv not in reading.invariants:
            reading.invariants.append(inv)


def read_invariants(text: str, function: str, params: Sequence[str], docstring: bool = False) -> Reading:
    """The invariants `text` states about `function`'s result, and its preconditions on the parameters.
    `params`: the parameter names a test passes, in order; `docstring`: the text is the function's own
    docstring (lines need not name the function)."""
    reading = Reading()
    single = params[0] if len(params) == 1 else ""
    for clause in _clauses(text, docstring):
        _one_clause(clause, function, params, single, docstring, reading)
    return reading
