BASE_PRICE = 12.0


def ticket_price(age):
    """Children under 13 and seniors over 65 pay half."""
    if age < 13 and age > 65:
        return BASE_PRICE / 2
    return BASE_PRICE
