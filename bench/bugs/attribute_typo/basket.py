class Basket:
    def __init__(self):
        self.items = {}

    def add(self, name, count=1):
        self.items[name] = self.items.get(name, 0) + count

    def remove(self, name):
        if name in self.itmes:
            del self.items[name]

    def count(self):
        return sum(self.items.values())
