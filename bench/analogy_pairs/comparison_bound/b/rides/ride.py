class Ride:
    def __init__(self, name: str, min_height: int, max_riders: int) -> None:
        self.name = name
        self.min_height = min_height
        self.max_riders = max_riders
        self.queue: list[int] = []

    def admits(self, height: int) -> bool:
        return self.min_height < height

    def join(self, height: int) -> bool:
        if not self.admits(height):
            return False
        self.queue.append(height)
        return True

    def board(self) -> list[int]:
        riders = self.queue[: self.max_riders]
        self.queue = self.queue[self.max_riders:]
        return riders
