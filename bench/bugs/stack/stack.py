class Stack:
    def __init__(self):
        self.items = []

    def push(self, item):
        self.items.append(item)

    def pop(self):
        if not self.items:
            raise IndexError("pop from an empty stack")
        return self.items.pop(0)

    def peek(self):
        return self.items[-1] if self.items else None

    def __len__(self):
        return len(self.items)
