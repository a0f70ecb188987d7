from numeric import clamp
for x in range(-20, 20):
    assert clamp(x, -5, 7) == min(7, max(-5, x)), x
