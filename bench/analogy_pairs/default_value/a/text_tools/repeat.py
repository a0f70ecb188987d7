def repeat(text: str, times: int = 0, sep: str = "") -> str:
    return sep.join([text] * times)


def shout(text: str) -> str:
    return text.upper() + "!"
