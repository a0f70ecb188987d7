def truncate(text, limit, ellipsis="..."):
    """text cut to at most limit characters, ending in ellipsis when cut."""
    if len(text) >= limit:
        return text[: limit - len(ellipsis)] + ellipsis
    return text
