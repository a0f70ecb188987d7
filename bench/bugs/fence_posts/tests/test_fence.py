from fence import posts_needed, rails_needed


def test_posts_even():
    assert posts_needed(10, 2) == 6


def test_posts_uneven():
    assert posts_needed(9, 2) == 6


def test_no_fence():
    assert posts_needed(0, 2) == 0


def test_rails():
    assert rails_needed(10, 2) == 10
