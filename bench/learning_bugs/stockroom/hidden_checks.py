"""Hidden checks: used only by bench/learning_sequence.py to judge a fix, never shown to fixloop."""

from stockroom.stock import REORDER_AT, Item, Supplier, can_reorder, clamp, forecast, needs_reorder, restock


def check_limit() -> None:
    for n in range(-3, 30):
        assert needs_reorder(Item("x", n)) == (n <= REORDER_AT), n


def check_none_guard() -> None:
    for n in (0, 5, 6, 20):
        assert can_reorder(Item("x", n)) is False
        assert can_reorder(Item("x", n, Supplier("s", paused=True))) is False
        assert can_reorder(Item("x", n, Supplier("s"))) == (n <= REORDER_AT)


def check_swapped() -> None:
    for start in range(0, 30, 3):
        for delivered in range(0, 30, 4):
            for capacity in (1, 10, 25):
                item = Item("x", start)
                assert restock(item, delivered, capacity) == min(start + delivered, capacity)
    assert clamp(7, 0, 5) == 5


def check_off_by_one() -> None:
    for on_hand in range(0, 40, 7):
        for per_day in range(0, 6):
            for days in range(0, 9):
                assert forecast(on_hand, per_day, days) == [max(on_hand - per_day * d, 0) for d in range(1, days + 1)]
