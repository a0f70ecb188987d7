def greeting(name: str, formal: bool, hour: int) -> str:
    prefix = "Good day" if hour >= 12 else "Good morning"
    if not formal:
        return prefix + ", " + name
    return "Hi " + name
