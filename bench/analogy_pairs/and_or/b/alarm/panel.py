class Panel:
    def __init__(self) -> None:
        self.armed = False
        self.log: list[str] = []

    def arm(self) -> None:
        self.armed = True

    def disarm(self) -> None:
        self.armed = False

    def should_ring(self, sensor_tripped: bool) -> bool:
        ring = self.armed or sensor_tripped
        if ring:
            self.log.append("ring")
        return ring
