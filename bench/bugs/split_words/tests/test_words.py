from words import count_words, split_words


def test_empty():
    assert split_words("") == []


def test_one_word():
    assert split_words("hello") == ["hello"]


def test_two_words():
    assert split_words("hello world") == ["hello", "world"]


def test_extra_spaces():
    assert split_words("  a  bb   c ") == ["a", "bb", "c"]


def test_count():
    assert count_words("one two three") == 3
