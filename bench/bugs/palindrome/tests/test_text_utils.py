from text_utils import is_palindrome


def test_empty_is_palindrome():
    assert is_palindrome("")


def test_simple_word():
    assert is_palindrome("level")


def test_sentence():
    assert is_palindrome("A man, a plan, a canal: Panama")


def test_not_palindrome():
    assert not is_palindrome("python")
