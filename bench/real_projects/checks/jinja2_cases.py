"""Hidden cases for jinja2: filters and the default environment's whitespace handling."""

from jinja2 import Environment

env = Environment()


def r(source, **kw):
    return env.from_string(source).render(**kw)


CASES = {
    "filesize": lambda: [r("{{ v|filesizeformat }}", v=v) for v in (1, 100, 1000, 1500, 10**6, 3 * 10**9)] +
                        [r("{{ v|filesizeformat(true) }}", v=v) for v in (1023, 1024, 2048 * 1024)],
    "truncate": lambda: [r("{{ s|truncate(%d) }}" % n, s="foo bar baz qux") for n in (9, 10, 11, 15, 16, 20)],
    "slice": lambda: [r("{{ v|slice(%d)|list }}" % n, v=list(range(k))) for n, k in ((3, 10), (3, 9), (3, 7), (4, 2))]
                     + [r("{{ v|slice(3, 0)|list }}", v=list(range(7)))],
    "truncate_leeway": lambda: [r("{{ s|truncate(10, leeway=0) }}", s="0123456789"),
                                r("{{ s|truncate(10, leeway=0) }}", s="01234567890")],
    "indent": lambda: [r("{{ s|indent }}", s="a\nb"), r("{{ s|indent(2, true) }}", s="a\nb"),
                       r("{{ s|indent(first=true) }}", s="a\n\nb")],
    "trailing_newline": lambda: [r("a\n"), r("{% if true %}x{% endif %}\n"),
                                 Environment(keep_trailing_newline=True).from_string("a\n").render()],
}
