def locate(buckets, index):
    """(bucket number, position inside it) of the index-th item of the buckets laid end to end."""
    return _locate(buckets, index, 0)


def _locate(buckets, index, start):
    if start >= len(buckets):
        raise IndexError(index)
    size = len(buckets[start])
    if index < size:
        return start, index
    return _locate(buckets, index, start + 1)
