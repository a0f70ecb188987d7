from stats import largest, smallest
assert largest([3, 9, 4]) == 9
assert largest([-1, -5]) == -1
assert smallest([3, 9, 4]) == 3
