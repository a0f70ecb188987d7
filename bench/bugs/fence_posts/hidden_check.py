import math

from fence import posts_needed, rails_needed

for length in range(0, 60):
    for spacing in (1, 2, 3, 2.5, 7):
        expected = 0 if length <= 0 else math.ceil(length / spacing) + 1
        assert posts_needed(length, spacing) == expected, (length, spacing)
        assert rails_needed(length, spacing) == max(expected - 1, 0) * 2
