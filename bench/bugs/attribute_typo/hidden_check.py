from basket import Basket

b = Basket()
b.add("a", 3)
b.add("b")
b.remove("a")
b.remove("zzz")
assert b.count() == 1 and b.items == {"b": 1}
