"""Hidden checks: used only by bench/learning_sequence.py to judge a fix, never shown to fixloop."""

from transit.fares import BASE_FARE, PER_ZONE, SENIOR_AGE, Card, Rider, card_discount, fare, stops_between, zone_price


def check_limit() -> None:
    for age in range(0, 100):
        for zones in range(0, 6):
            full = BASE_FARE + max(zones - 1, 0) * PER_ZONE
            assert fare(Rider(age), zones) == round(full * (0.5 if age >= SENIOR_AGE else 1.0), 2), (age, zones)


def check_none_guard() -> None:
    assert card_discount(Rider(30)) == 0.0
    assert card_discount(Rider(30, Card("c", expired=True, discount=0.3))) == 0.0
    assert card_discount(Rider(30, Card("c", discount=0.3))) == 0.3


def check_swapped() -> None:
    for zones in range(0, 9):
        assert fare(Rider(20), zones) == round(BASE_FARE + max(zones - 1, 0) * PER_ZONE, 2), zones
    assert zone_price(3, 1.0) == BASE_FARE + 2.0


def check_off_by_one() -> None:
    for first in range(0, 12):
        for last in range(0, 12):
            assert stops_between(first, last) == list(range(first, last + 1)), (first, last)
