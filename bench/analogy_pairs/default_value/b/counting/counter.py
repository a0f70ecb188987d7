class Counter:
    def __init__(self, name: str, start: int = 1, step: int = 1) -> None:
        self.name = name
        self.value = start
        self.step = step

    def tick(self) -> int:
        self.value += self.step
        return self.value

    def reset(self) -> None:
        self.value = 0
