from letters import count_vowels


def test_lowercase():
    assert count_vowels("banana") == 3


def test_mixed_case():
    assert count_vowels("Apple Pie") == 4
