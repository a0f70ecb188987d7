def stock_levels(stock, orders):
    """Stock left after each order; an order larger than the stock empties it."""
    levels = []
    level = stock
    for quantity in orders:
        level = level - quantity
        levels.append(level)
    return levels
