import pytest

from queue_impl import Queue


def test_fifo():
    q = Queue()
    q.enqueue(1)
    q.enqueue(2)
    assert q.dequeue() == 1
    assert q.dequeue() == 2


def test_empty():
    q = Queue()
    assert q.is_empty()
    with pytest.raises(IndexError):
        q.dequeue()
