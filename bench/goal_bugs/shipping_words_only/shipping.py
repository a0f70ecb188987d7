def shipping_cost(weight):
    """Shipping cost in euros for a parcel of `weight` kilograms."""
    if weight < 5:
        return 4.5
    return 9.0
