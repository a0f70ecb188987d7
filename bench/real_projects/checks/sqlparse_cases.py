"""Hidden cases for sqlparse: token navigation, grouping of parentheses, formatting."""

import sqlparse
from sqlparse import sql, tokens as T


def navigation():
    stmt = sqlparse.parse("select a, b from t where x = 1")[0]
    idx = stmt.token_index(stmt.tokens[4])
    prev = stmt.token_prev(idx)
    nxt = stmt.token_next(idx)
    first_kw = stmt.token_next_by(m=(T.Keyword, "FROM"))
    first_dml = stmt.token_next_by(m=(T.DML, "SELECT"))
    return [str(prev[1]), str(nxt[1]), first_kw[0], str(first_kw[1]), first_dml[0], str(stmt.token_first()),
            str(stmt.token_prev(2)[1]), stmt.token_prev(0)]


def groups():
    stmt = sqlparse.parse("select f(a, (b + 1)) from t where c in (1, 2)")[0]
    parens = []

    def walk(tl):
        for tok in tl.tokens:
            if isinstance(tok, sql.Parenthesis):
                parens.append(str(tok))
            if tok.is_group:
                walk(tok)
    walk(stmt)
    return parens


def at_offset():
    stmt = sqlparse.parse("select a from t")[0]
    return [str(stmt.get_token_at_offset(i)) for i in range(0, 15)]


CASE_PROC = """CREATE PROCEDURE p()
BEGIN
  SELECT CASE WHEN 1 = 1 THEN 'a' ELSE 'b' END;
  SELECT 2;
END;
select 3;"""


def cte_groups():
    out = []
    for text in ("with x as (select 1) select * from x", "foo AS WITH apple AS 1, banana AS 2",
                 "create view v as with a as (select 1) select * from a"):
        stmt = sqlparse.parse(text)[0]
        out.append([type(t).__name__ + ":" + str(t) for t in stmt.tokens if not t.is_whitespace])
    return out


CASES = {
    "at_offset": at_offset,
    "split_case": lambda: sqlparse.split(CASE_PROC),
    "cte_groups": cte_groups,
    "split_trailing_ws": lambda: [sqlparse.split("select 1;  \n"), len(sqlparse.parse("select 1;  \n  ")),
                                  sqlparse.split("select 1; \n select 2;\n\n")],
    "navigation": navigation,
    "groups": groups,
    "format": lambda: sqlparse.format("select a,b from t where x=1 and (y=2 or z=3)", reindent=True,
                                      keyword_case="upper"),
    "identifiers": lambda: [str(i) for i in sqlparse.parse("select a as x, t.b from t")[0].tokens[2].get_identifiers()],
    "function_params": lambda: [str(p) for p in sqlparse.parse("select f(a, b)")[0].tokens[2].get_parameters()],
    "split": lambda: sqlparse.split("select 1; select (2);"),
}
