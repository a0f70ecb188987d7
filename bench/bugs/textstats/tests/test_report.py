from textstats.report import most_common, vocabulary_size


def test_most_common():
    assert most_common("b a b c b a", 2) == ["b", "a"]


def test_vocabulary():
    assert vocabulary_size("A a B") == 2
