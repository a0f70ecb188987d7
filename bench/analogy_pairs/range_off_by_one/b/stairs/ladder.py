class Ladder:
    def __init__(self, rungs: int, spacing: float) -> None:
        self.rungs = rungs
        self.spacing = spacing

    def heights(self) -> list[float]:
        """The height of every rung, from the ground (0) to the top rung."""
        out = []
        for rung in range(self.rungs):
            out.append(rung * self.spacing)
        return out

    def reach(self) -> float:
        return self.rungs * self.spacing
