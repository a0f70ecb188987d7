class Node:
    def __init__(self, value, next=None):
        self.value = value
        self.next = next


def middle(head):
    """Value of the middle node (the second of the two middles when the length is even)."""
    slow = fast = head
    while fast.next is not None:
        slow = slow.next
        fast = fast.next.next
    return slow.value
