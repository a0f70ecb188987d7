def page_count(items, per_page):
    """Pages needed to show `items` items, `per_page` to a page."""
    return (items + per_page + 1) // per_page
