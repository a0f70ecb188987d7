from .tax import with_tax


class Cart:
    def __init__(self):
        self.lines = []

    def add(self, name, price, quantity=1):
        self.lines.append((name, price, quantity))

    def subtotal(self):
        return sum(price * quantity for _, price, quantity in self.lines)

    def total(self):
        return with_tax(self.subtotal())
