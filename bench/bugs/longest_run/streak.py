def longest_run(values):
    """Length of the longest stretch of equal neighbours."""
    longest = 0
    run = 0
    previous = object()
    for v in values:
        run = run + 1 if v == previous else 1
        previous = v
    return longest
