import itertools

from fields import join_fields, split_fields

words = ["a", "bb", " c ", "d;e", "", "f\tg"]
for n in range(1, 4):
    for combo in itertools.product(words, repeat=n):
        line = ",".join(combo)
        assert split_fields(line) == [w.strip() for w in combo], line
        assert split_fields(line + "\n", strip=False) == list(combo), line
        assert split_fields(line.replace(",", "|"), sep="|") == [w.strip() for w in combo], line
        assert join_fields(combo) == line
