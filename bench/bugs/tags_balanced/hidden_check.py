import random
from tags import balanced


def reference(tags):
    stack = []
    for tag in tags:
        if tag.startswith("</"):
            if not stack or stack.pop() != tag[2:-1]:
                return False
        else:
            stack.append(tag[1:-1])
    return not stack


rng = random.Random(37)
for _ in range(800):
    tags = [rng.choice(["<a>", "</a>", "<b>", "</b>"]) for _ in range(rng.randint(0, 8))]
    assert balanced(tags) == reference(tags), tags
