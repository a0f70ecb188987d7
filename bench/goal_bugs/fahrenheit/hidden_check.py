from units.temperature import to_fahrenheit
for c in range(-50, 150, 5):
    assert abs(to_fahrenheit(c) - (c * 1.8 + 32)) < 1e-9, c
