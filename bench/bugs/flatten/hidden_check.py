from nested import flatten

assert flatten([]) == []
assert flatten([[], [[]], [1, [2, [3, [4]]]]]) == [1, 2, 3, 4]
assert flatten(["a", ["b"]]) == ["a", "b"]
