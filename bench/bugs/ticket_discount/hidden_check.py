from tickets import ticket_price

for age in range(0, 110):
    assert ticket_price(age) == (6.0 if age < 13 or age > 65 else 12.0), age
