from shipping import shipping_cost
for w in range(0, 12):
    assert shipping_cost(w) == (4.5 if w <= 5 else 9.0), w
