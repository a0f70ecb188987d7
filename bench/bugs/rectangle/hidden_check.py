from shapes import Rectangle

for w in range(0, 15):
    for h in range(0, 15):
        assert Rectangle(w, h).area() == w * h
