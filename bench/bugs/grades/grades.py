def letter(score):
    if score >= 90:
        return "A"
    if score >= 80:
        return "B"
    if score >= 70:
        return "C"
    if score > 60:
        return "D"
    return "F"


def report(scores):
    return {name: letter(s) for name, s in scores.items()}
