def balanced(tags):
    """True when every opening tag <x> is closed by </x>, innermost first."""
    stack = []
    for tag in tags:
        if tag.startswith("</"):
            if not stack or stack.pop() != tag[2:-1]:
                return False
        else:
            stack.append(tag[1:-1])
    return True
