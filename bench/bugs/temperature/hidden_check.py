import math
from convert import celsius_to_fahrenheit, fahrenheit_to_celsius

for c in range(-100, 300, 7):
    assert math.isclose(celsius_to_fahrenheit(c), c * 1.8 + 32)
    assert math.isclose(fahrenheit_to_celsius(celsius_to_fahrenheit(c)), c, abs_tol=1e-9)
