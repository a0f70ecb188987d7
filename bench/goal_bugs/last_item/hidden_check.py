from seq import last
assert last([1, 2, 3]) == 3
assert last(["a"]) == "a"
assert last([5, 4]) == 4
