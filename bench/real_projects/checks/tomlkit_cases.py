"""Hidden cases for tomlkit: error positions, control characters, super tables, key order."""

import tomlkit
from tomlkit.exceptions import ParseError


def error_at(text):
    try:
        tomlkit.parse(text)
    except ParseError as e:
        return (type(e).__name__, e.line, e.col)
    return None


def tables():
    doc = tomlkit.parse("[a.b.c]\nx = 1\n[a]\ny = 2\n[d.e]\nz = 3\n")
    return [tomlkit.dumps(doc), doc["a"]["b"]["c"]["x"], sorted(doc["a"].keys()), doc.unwrap()]


def insert_before_tables():
    doc = tomlkit.parse("a = 1\n[t]\nx = 1\n[u]\ny = 2\n")
    doc["b"] = 2
    doc["c"] = {"k": 3}
    doc["d"] = 4
    return [tomlkit.dumps(doc), doc["t"]["x"], doc["u"]["y"], doc["d"], list(doc.keys())]


def insert_in_table():
    doc = tomlkit.parse("[t]\na = 1\n[t.sub]\nz = 0\n")
    doc["t"]["b"] = 2
    doc["t"]["c"] = 3
    return [tomlkit.dumps(doc), doc["t"]["sub"]["z"], doc["t"]["c"], list(doc["t"].keys())]


CASES = {
    "insert_before_tables": insert_before_tables,
    "insert_in_table": insert_in_table,
    "errors": lambda: [error_at(t) for t in ("a = 1\nb = \n", "a = 1\n\nc = [1,\n", "x = 'ok'\ny = \"\\q\"\n",
                                             "= 1\n")],
    "control": lambda: [tomlkit.dumps({"s": chr(c)}) for c in (0x01, 0x1F, 0x7F, 0x20)],
    "control_parse": lambda: [error_at(f's = "a{chr(c)}b"\n') for c in (0x1F, 0x1E, 0x7F)],
    "tables": tables,
    "order": lambda: [tomlkit.dumps({"b": 1, "a": 2}), tomlkit.dumps({"b": 1, "a": 2}, sort_keys=True)],
    "roundtrip": lambda: tomlkit.dumps(tomlkit.parse("# c\n[x]\nb = 1 # one\na = [1, 2]\n\n[x.y]\nz = true\n")),
}
