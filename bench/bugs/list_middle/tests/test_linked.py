from linked import Node, middle


def chain(*values):
    head = None
    for v in reversed(values):
        head = Node(v, head)
    return head


def test_odd():
    assert middle(chain(1, 2, 3)) == 2


def test_even():
    assert middle(chain(1, 2, 3, 4)) == 3


def test_single():
    assert middle(chain(9)) == 9
