from accounts.rules import problems
from accounts.signup import can_submit

for n in range(0, 14):
    for pw in ("a" * n, "1" * n, ("a1" * n)[:n], ("x9!" * n)[:n]):
        expected = []
        if n < 8:
            expected.append("use at least 8 characters")
        if not (any(c.isalpha() for c in pw) and any(c.isdigit() for c in pw)):
            expected.append("use letters and digits")
        assert problems(pw) == expected, pw
        assert can_submit({"user": "u", "password": pw}) == (not expected), pw
