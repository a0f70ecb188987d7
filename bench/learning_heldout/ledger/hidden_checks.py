"""Hidden checks: used only by the learning benchmark to judge a fix, never shown to fixloop."""

from ledger.books import MIN_SPEND, bounded, budget_used, earns_bonus, growth, transfer_size


def check_clamp() -> None:
    for lo, hi in ((10.0, 200.0), (0.0, 1.0)):
        for r in (-5.0, lo, (lo + hi) / 2, hi, 1e6):
            assert transfer_size(r, lo, hi) == min(max(r, lo), hi)
    assert bounded(3, 1, 2) == 2


def check_limit() -> None:
    for spent in (0, 49, 49.99, 50, 50.01, 400):
        assert earns_bonus(spent) == (spent >= MIN_SPEND), spent


def check_off_by_one() -> None:
    for years in range(0, 6):
        got = growth(1000.0, 0.05, years)
        assert len(got) == years + 1 and got[0] == 1000.0, years


def check_swapped() -> None:
    for spent, budget in ((25.0, 200.0), (300.0, 150.0), (1.0, 3.0)):
        assert abs(budget_used(spent, budget) - 100.0 * spent / budget) < 1e-9
