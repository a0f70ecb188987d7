def count_vowels(word):
    """How many vowels `word` has.

    >>> count_vowels("onion")
    3
    """
    return sum(1 for ch in word.lower() if ch not in "aeiou")
