def is_palindrome(text):
    """True when text reads the same backwards, ignoring case and non-letters."""
    letters = [c.lower() for c in text if c.isalnum()]
    for i in range(len(letters) // 2):
        if letters[i] != letters[len(letters) - i]:
            return False
    return True
