def selection_sort(values):
    """A sorted copy of values (ascending), by selection sort."""
    a = list(values)
    n = len(a)
    for i in range(n):
        m = i
        for j in range(i + 1, n - 1):
            if a[j] > a[m]:
                m = j
        a[i], a[m] = a[m], a[i]
    return a
