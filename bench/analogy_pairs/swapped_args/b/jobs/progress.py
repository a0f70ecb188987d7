def fraction(done: int, total: int) -> float:
    return done / total if total else 0.0


class Job:
    def __init__(self, steps: int) -> None:
        self.steps = steps
        self.finished = 0

    def advance(self, n: int = 1) -> None:
        self.finished = min(self.finished + n, self.steps)

    def progress(self) -> float:
        share = fraction(self.steps, self.finished)
        return round(share * 100, 1)

    def done(self) -> bool:
        return self.finished == self.steps
