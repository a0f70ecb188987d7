from paging import page_size
for n in range(-5, 80):
    assert page_size(n) == min(50, max(1, n)), n
