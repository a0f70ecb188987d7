def insertion_sort(values):
    """A sorted copy of values."""
    a = list(values)
    for i in range(1, len(a)):
        key = a[i]
        j = i - 1
        while j > 0 and a[j] > key:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = key
    return a
