class Shelf:
    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.count = 0

    def full(self) -> bool:
        return self.count >= self.capacity

    def restock(self, delivered: int, damaged: int) -> int:
        usable = delivered + damaged
        self.count = min(self.count + usable, self.capacity)
        return self.count
