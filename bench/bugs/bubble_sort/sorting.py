def bubble_sort(values):
    a = list(values)
    n = len(a)
    for i in range(n):
        for j in range(n - i):
            if a[j] > a[j + 1]:
                a[j], a[j + 1] = a[j + 1], a[j]
    return a
