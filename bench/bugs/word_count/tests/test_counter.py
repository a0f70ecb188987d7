from counter import top_word, word_counts


def test_counts_repeated_words():
    assert word_counts("the cat and the hat") == {"the": 2, "cat": 1, "and": 1, "hat": 1}


def test_case_insensitive():
    assert word_counts("Go go GO") == {"go": 3}


def test_top_word():
    assert top_word("a b b c") == "b"


def test_top_word_of_nothing():
    assert top_word("") is None
