"""How much material a straight fence needs."""

import math


def posts_needed(length, spacing):
    """Posts for a fence `length` metres long with a post every `spacing` metres, both ends included."""
    if length <= 0:
        return 0
    return math.ceil(length / spacing)


def rails_needed(length, spacing, rails_per_gap=2):
    gaps = max(posts_needed(length, spacing) - 1, 0)
    return gaps * rails_per_gap
