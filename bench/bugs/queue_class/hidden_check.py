from queue_impl import Queue

q = Queue()
assert q.is_empty()
q.enqueue("x")
assert not q.is_empty()
assert q.dequeue() == "x"
assert q.is_empty()
