"""What a name is, as far as the code says: the type knowledge a type-aware search uses.

A name is a function, a class (a type alias, a type variable and a classmethod's `cls` too), a module, or
a value; a value's type is known from an annotation, a literal it is assigned (`count = 0`), or an obvious
constructor (`seen = set()`, `p = Point(...)`, `n = len(xs)`). An instance's attribute (`self.count`) has the
type its class gives it, when all the class says of it agrees. A name bound in several ways, or not at all,
is unknown (""), and unknown never rules a candidate out. By Python's naming convention a name imported
`from` elsewhere is a function, class or module (`import`) unless it is written like a constant
(`MAX_SIZE`), or comes from a module whose exports are known (`typing`'s `TYPE_CHECKING` is a bool, its `IO`
a class).

Whether one name may replace another where it is read is `places.may_stand_for`.
"""

from __future__ import annotations

import builtins
import re
from typing import Callable

from tree_sitter import Node

from fixloop.kit.syntax import ByText, enclosing, parameter_name, text_of, walk

CALLABLES = ("function", "class", "import")
NOT_VALUES = CALLABLES + ("module",)
TYPES = ("number", "bool", "str", "bytes", "list", "tuple", "dict", "set", "none", "sequence")
SEQUENCES = ("str", "bytes", "list", "tuple", "sequence")
CONSTANT = re.compile(r"^_?[A-Z][A-Z0-9_]*$")
NUMBER_CALLS = ("int", "float", "len", "abs", "round", "ord", "hash", "sum", "complex", "divmod")
STR_CALLS = ("str", "repr", "chr", "format", "hex", "bin", "oct", "ascii")
TYPE_CALLS = {"list": "list", "sorted": "list", "dict": "dict", "set": "set", "frozenset": "set", "tuple": "tuple",
              "bool": "bool", "isinstance": "bool", "callable": "bool", "any": "bool", "all": "bool", "bytes": "bytes"}
STR_METHODS = ("join", "lower", "upper", "strip", "lstrip", "rstrip", "title", "capitalize", "casefold", "zfill",
               "ljust", "rjust", "center", "removeprefix", "removesuffix")
METHOD_TYPES = {"split": "list", "splitlines": "list", "rsplit": "list", "count": "number", "find": "number",
                "rfind": "number", "index": "number", "startswith": "bool", "endswith": "bool", "isdigit": "bool",
                "isalpha": "bool", "isspace": "bool", "encode": "bytes", "decode": "str"}
ANNOTATIONS = {"int": "number", "float": "number", "complex": "number", "bool": "bool", "str": "str", "bytes": "bytes",
               "list": "list", "List": "list", "dict": "dict", "Dict": "dict", "DefaultDict": "dict", "OrderedDict": "dict",
               "Counter": "dict", "set": "set", "Set": "set", "frozenset": "set", "FrozenSet": "set", "tuple": "tuple",
               "Tuple": "tuple", "Callable": "", "Type": "", "type": "", "Optional": "value", "Union": "value",
               "Any": "", "TypeAlias": "class"}
# What makes a type at module level, never a value: `T = TypeVar("T")`, `Pair = Tuple[int, int]`, `Rows = dict[str, Row]`.
TYPE_FACTORIES = ("TypeVar", "NewType", "ParamSpec", "TypeVarTuple", "TypeAliasType", "namedtuple", "NamedTuple",
                  "TypedDict")
TYPE_FORMS = ("Union", "Optional", "Callable", "Dict", "List", "Tuple", "Set", "FrozenSet", "Type", "Literal", "Annotated",
              "Iterable", "Iterator", "Sequence", "Mapping", "MutableMapping", "Collection", "Generator", "Awaitable",
              "Coroutine", "AsyncIterator", "DefaultDict", "Deque", "ClassVar", "Final", "dict", "list", "tuple", "set",
              "frozenset", "type")
ITERATING = ("len", "sorted", "sum", "enumerate", "zip", "list", "tuple", "set", "frozenset", "reversed", "iter",
             "any", "all", "dict", "min", "max")
ORDERED = ("<", ">", "<=", ">=")
# Modules whose exports are classes and functions, whatever their case (`ABC`, `IO`), but for these values.
KNOWN_IMPORTS: dict[str, dict[str, str]] = {"typing": {"TYPE_CHECKING": "bool"}, "abc": {}, "collections.abc": {},
                                            "__future__": {}, "typing_extensions": {"TYPE_CHECKING": "bool"}}
_FUNCTIONS: dict[bytes, dict[str, list[str]]] = {}
_MODULES: dict[bytes, dict[str, list[str]]] = {}


def is_value(kind: str) -> bool:
    return kind == "value" or kind in TYPES or kind.startswith("instance:")


def kind_of(name: str, at: Node, depth: int = 0) -> str:
    """What `name` is where `at` reads it (see the module's docstring); "" when it cannot be told."""
    fn = enclosing(at, "function_definition")
    while fn is not None:
        found = _function_bindings(fn).get(name)
        if found is not None:
            return _merge(found, at, depth)
        fn = enclosing(fn, "function_definition")
    root = at
    while root.parent is not None:
        root = root.parent
    found = _module_bindings(root).get(name)
    return _merge(found, at, depth) if found is not None else _builtin(name)


def _builtin(name: str) -> str:
    value = getattr(builtins, name, None) if not name.startswith("_") else None
    return "class" if isinstance(value, type) else "function" if callable(value) else ""


def _merge(kinds: list[str], at: Node, depth: int) -> str:
    """One kind for a name bound several times: the common one, "value" for values of several types."""
    resolved = {_resolved(k, at, depth) for k in kinds}
    if not resolved or "" in resolved:
        return ""
    if len(resolved) == 1:
        return resolved.pop()
    values = resolved - {"none"}
    if len(values) == 1 and is_value(next(iter(values))):
        return "value"  # `best = None` then a value: still a value, its type not settled
    return "value" if all(is_value(k) for k in resolved) else ""


def _resolved(kind: str, at: Node, depth: int) -> str:
    if kind.startswith("alias:"):
        return kind_of(kind[6:], at, depth + 1) if depth < 4 else ""
    if kind.startswith("made:"):
        return f"instance:{kind[5:]}" if depth < 4 and kind_of(kind[5:], at, depth + 1) == "class" else "value"
    return kind


def expression_type(node: Node, depth: int = 0) -> str:
    """The kind of what an expression evaluates to, in the same words as `kind_of`."""
    kind = node.type
    simple = {"integer": "number", "float": "number", "true": "bool", "false": "bool", "none": "none",
              "concatenated_string": "str", "list": "list", "list_comprehension": "list", "tuple": "tuple",
              "dictionary": "dict", "dictionary_comprehension": "dict", "set": "set", "set_comprehension": "set",
              "lambda": "function", "comparison_operator": "bool", "not_operator": "bool"}
    if kind in simple:
        return simple[kind]
    if kind == "string":
        return "bytes" if text_of(node)[:2].lower() in ("b'", 'b"', "rb", "br") else "str"
    if kind == "identifier":
        return kind_of(text_of(node), node, depth + 1) if depth < 4 else ""
    if kind == "parenthesized_expression" and node.named_child_count == 1:
        return expression_type(node.named_children[0], depth)
    if kind == "call":
        return _call_type(node, resolve=depth < 4)
    if kind == "attribute":
        return _instance_attribute(node) if depth < 4 else "value"
    if kind == "binary_operator":
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        sides = {expression_type(s, depth + 1) for s in (left, right) if s is not None}
        if sides <= {"number", "bool"}:
            return "number"
        op = node.child_by_field_name("operator")
        if op is not None and text_of(op) in ("+", "-") and "number" in sides and sides <= {"number", "bool", "value", ""}:
            return "number"  # `len(s) - pos`: a sum or difference with a number in it is one, whatever `pos` is
        if op is not None and text_of(op) == "%" and left is not None and expression_type(left, depth + 1) == "str":
            return "str"
        return "value"
    if kind == "unary_operator":
        arg = node.child_by_field_name("argument")
        return "number" if arg is not None and expression_type(arg, depth + 1) in ("number", "bool") else "value"
    return "value"


def _instance_attribute(node: Node) -> str:
    """`self.count` read in a method: the one type its class gives it, else "value"."""
    obj, attr, found = node.child_by_field_name("object"), node.child_by_field_name("attribute"), _method_of(node)
    if obj is None or attr is None or found is None or obj.type != "identifier" or text_of(obj) != _first_parameter(found[0]):
        return "value"
    if (found[1].text or b"") in _READING:
        return "value"  # asked while its class is read (`self.x = self.y + 1`): nothing is known yet
    return _class_attributes(found[1]).get(text_of(attr), "value")


def _method_of(node: Node) -> tuple[Node, Node] | None:
    """(the method, its class) around `node`; a closure in a method reads the method's `self`."""
    fn = enclosing(node, "function_definition")
    while fn is not None:
        around = enclosing(fn, "function_definition", "class_definition")
        if around is None or around.type == "class_definition":
            return (fn, around) if around is not None else None
        fn = around
    return None


def _first_parameter(fn: Node) -> str:
    params = fn.child_by_field_name("parameters")
    first = next((parameter_name(p) for p in params.named_children), None) if params is not None else None
    return text_of(first) if first is not None else ""


def _read_class(cls: Node) -> dict[str, str]:
    """Attribute -> type, where everything the class says of it agrees: an annotation (`count: int`, a
    dataclass's field, `self.count: int = 0`), a value assigned (`self.count = 0`, `= len(xs)`, `= n` for an
    `n: int`), arithmetic with a number (`self.count + 1`, `+= 1`), a method annotated `-> int` returning it."""
    seen: dict[str, set[str]] = {}

    def note(name: str, kind: str) -> None:
        if kind in TYPES and kind != "none":
            seen.setdefault(name, set()).add(kind)

    body = cls.child_by_field_name("body")
    _READING.add(cls.text or b"")
    try:
        for stmt in body.named_children if body is not None else ():
            stmt = stmt.child_by_field_name("definition") or stmt if stmt.type == "decorated_definition" else stmt
            if stmt.type == "expression_statement" and stmt.named_child_count and stmt.named_children[0].type == "assignment":
                left, hint, right = (stmt.named_children[0].child_by_field_name(f) for f in ("left", "type", "right"))
                if left is not None and left.type == "identifier":
                    note(text_of(left), annotation_type(hint, False) if hint is not None else
                         expression_type(right, 5) if right is not None else "")
            elif stmt.type == "function_definition":
                _read_method(stmt, note)
    finally:
        _READING.discard(cls.text or b"")
    return {name: kinds.pop() for name, kinds in seen.items() if len(kinds) == 1}


def _read_method(fn: Node, note: Callable[[str, str], None]) -> None:
    me, returns = _first_parameter(fn), fn.child_by_field_name("return_type")

    def own(node: Node | None) -> str:  # `x` for `self.x`
        obj = node.child_by_field_name("object") if node is not None and node.type == "attribute" else None
        return text_of(node.child_by_field_name("attribute")) if obj is not None and text_of(obj) == me else ""  # type: ignore[union-attr,arg-type]

    for node in walk(fn):
        kind = node.type
        if kind in ("assignment", "augmented_assignment") and (name := own(node.child_by_field_name("left"))):
            hint, right = node.child_by_field_name("type"), node.child_by_field_name("right")
            if hint is not None:
                note(name, annotation_type(hint, False))
            elif right is not None and (kind == "assignment" or right.type in ("integer", "float")):
                note(name, expression_type(right))
        elif kind == "binary_operator" and text_of(node.child_by_field_name("operator") or node) in ("+", "-", "*", "//", "%"):
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            for one, other in ((left, right), (right, left)):
                if (name := own(one)) and other is not None and other.type in ("integer", "float"):
                    note(name, "number")
        elif kind == "return_statement" and returns is not None and node.named_child_count == 1 and \
                (name := own(node.named_children[0])) and enclosing(node, "function_definition") == fn:
            note(name, annotation_type(returns, False))


_class_attributes = ByText(_read_class, 64)
_READING: set[bytes] = set()  # classes being read: an attribute asked for meanwhile is not known yet


def _call_type(node: Node, resolve: bool = True) -> str:
    fn = node.child_by_field_name("function")
    if fn is None:
        return "value"
    if fn.type == "attribute":
        method = text_of(fn.child_by_field_name("attribute") or fn)
        return "str" if method in STR_METHODS else METHOD_TYPES.get(method, "value")
    name = text_of(fn)
    if name in NUMBER_CALLS:
        return "number"
    if name in STR_CALLS:
        return "str"
    if name in TYPE_CALLS:
        return TYPE_CALLS[name]
    if resolve and fn.type == "identifier" and kind_of(name, node) == "class":
        return f"instance:{name}"
    return "value"


def annotation_type(node: Node, resolve: bool = True) -> str:
    """The kind an annotation promises: a value type, a class's instance, "value" or "" (a callable, a type)."""
    text = text_of(node).strip().strip("'\"")
    if "|" in text or text.startswith(("Optional", "Union")):
        return "value"
    head = text.split("[")[0].split(".")[-1]
    if head in ANNOTATIONS:
        return ANNOTATIONS[head]
    if not resolve:
        return "made:" + head if head.isidentifier() else "value"
    return f"instance:{head}" if kind_of(head, node) == "class" else "value"


def _function_bindings(fn: Node) -> dict[str, list[str]]:
    """Name -> how the function binds it: its parameters, assignments, loops, nested definitions."""
    key = fn.text or b""
    got = _FUNCTIONS.get(key)
    if got is None:
        if len(_FUNCTIONS) > 256:
            _FUNCTIONS.clear()
        got = _FUNCTIONS[key] = _read_function(fn)
    return got


def _read_function(fn: Node) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    called = {text_of(c.child_by_field_name("function")) for c in walk(fn)  # type: ignore[arg-type]
              if c.type == "call" and c.child_by_field_name("function") is not None}
    params = fn.child_by_field_name("parameters")
    for position, p in enumerate(params.named_children if params is not None else ()):
        ident = parameter_name(p)
        if ident is None or ident.type != "identifier":
            continue
        name, hint, value = text_of(ident), p.child_by_field_name("type"), p.child_by_field_name("value")
        kind = annotation_type(hint, False) if hint is not None else _static(value) if value is not None else "value"
        if name == "cls" and position == 0:  # a classmethod's (or `__new__`'s) class
            kind = "class"
        if p.type in ("list_splat_pattern",):
            kind = "tuple"
        elif p.type == "dictionary_splat_pattern":
            kind = "dict"
        out[name] = ["" if name in called else kind or ""]
    body = fn.child_by_field_name("body")
    for node in _own_nodes(body) if body is not None else ():
        _bind(node, out)
    return out


def _static(value: Node) -> str:
    """A default's type, known only when it is a literal (a name in a default is looked up at import)."""
    kind = "" if value.type == "identifier" else _call_type(value, False) if value.type == "call" else expression_type(value, 5)
    return "value" if kind == "none" else kind


def _own_nodes(body: Node) -> list[Node]:
    """The nodes of a body, not descending into nested functions and classes (their names are theirs)."""
    out: list[Node] = []
    stack = [body]
    while stack:
        node = stack.pop()
        out.append(node)
        if node.type in ("function_definition", "class_definition") and node is not body:
            continue
        stack.extend(node.named_children)
    return out


def _bind(node: Node, out: dict[str, list[str]]) -> None:
    kind = node.type
    if kind in ("function_definition", "class_definition"):
        name = node.child_by_field_name("name")
        if name is not None:
            out.setdefault(text_of(name), []).append("function" if kind == "function_definition" else "class")
    elif kind == "assignment":
        left, right, hint = node.child_by_field_name("left"), node.child_by_field_name("right"), node.child_by_field_name("type")
        if left is not None and left.type == "identifier":
            value = annotation_type(hint, False) if hint is not None else _assigned(right) if right is not None else ""
            out.setdefault(text_of(left), []).append(value)
        elif left is not None:
            for name in _targets(left):
                out.setdefault(name, []).append("value")
    elif kind in ("for_statement", "for_in_clause", "as_pattern", "named_expression"):
        target = node.child_by_field_name("left") or node.child_by_field_name("alias") or node.child_by_field_name("name")
        for name in _targets(target) if target is not None else ():
            out.setdefault(name, []).append("value")
    elif kind == "type_alias_statement":  # `type Row = tuple[int, str]`
        left = node.child_by_field_name("left")
        if left is not None:
            out.setdefault(text_of(left).split("[")[0].strip(), []).append("class")
    elif kind in ("import_statement", "import_from_statement"):
        for name, what in _imported(node):
            out.setdefault(name, []).append(what)


def _targets(node: Node) -> list[str]:
    """Names an assignment target binds (`a`, `a, (b, c)`, `*rest`), not `x[i]` or `obj.attr`."""
    if node.type == "identifier":
        return [text_of(node)]
    if node.type in ("pattern_list", "tuple_pattern", "list_pattern", "tuple", "list", "parenthesized_expression",
                     "list_splat_pattern", "as_pattern_target", "expression_list"):
        return [name for child in node.named_children for name in _targets(child)]
    return []


def _assigned(right: Node) -> str:
    """How an assignment binds its target; a name or a call of one is looked up when asked for (the
    binding table is still being read)."""
    if right.type == "identifier":
        return "alias:" + text_of(right)
    if right.type == "subscript":
        head = text_of(right.child_by_field_name("value") or right).split(".")[-1]
        return "class" if head in TYPE_FORMS else "value"
    if right.type == "call":
        fn = right.child_by_field_name("function")
        if fn is not None and text_of(fn).split(".")[-1] in TYPE_FACTORIES:
            return "class"
        kind = _call_type(right, resolve=False)
        return "made:" + text_of(fn) if kind == "value" and fn is not None and fn.type == "identifier" else kind
    return expression_type(right, 5)


def _imported(node: Node) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    if node.type == "import_statement":
        for item in node.named_children:
            alias = item.child_by_field_name("alias") if item.type == "aliased_import" else None
            dotted = item.child_by_field_name("name") if item.type == "aliased_import" else item
            if dotted is not None:
                out.append((text_of(alias) if alias is not None else text_of(dotted).split(".")[0], "module"))
        return out
    module = text_of(node.child_by_field_name("module_name") or node)
    for item in node.children_by_field_name("name"):
        alias = item.child_by_field_name("alias") if item.type == "aliased_import" else None
        imported = text_of(item.child_by_field_name("name") or item)
        name = text_of(alias) if alias is not None else imported
        known = KNOWN_IMPORTS.get(module, {})
        out.append((name, known.get(imported, "import") if module in KNOWN_IMPORTS
                    else "value" if CONSTANT.match(name) else "import"))
    return out


def _module_bindings(root: Node) -> dict[str, list[str]]:
    key = root.text or b""
    got = _MODULES.get(key)
    if got is None:
        if len(_MODULES) > 32:
            _MODULES.clear()
        got = {}
        for node in _own_nodes(root):
            if node.parent is not None and enclosing(node, "function_definition", "class_definition") is None or \
                    node.type in ("function_definition", "class_definition") and \
                    enclosing(node, "function_definition", "class_definition") is None:
                _bind(node, got)
        _MODULES[key] = got
    return got
