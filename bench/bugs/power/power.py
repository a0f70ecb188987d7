def power(base, exp):
    """base ** exp for a non-negative integer exp, by repeated squaring."""
    half = power(base, exp // 2)
    if exp % 2:
        return half * half * base
    return half * half
