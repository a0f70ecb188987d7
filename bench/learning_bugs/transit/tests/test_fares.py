from transit.fares import Card, Rider, card_discount, fare, stops_between


def test_fare_grows_with_zones():
    assert fare(Rider(30), 2) == 2.5
    assert fare(Rider(30), 4) == 3.5


def test_seniors_pay_half_from_sixty_five():
    assert fare(Rider(65), 3) == 1.5
    assert fare(Rider(64), 3) == 3.0


def test_discount_only_on_a_valid_card():
    assert card_discount(Rider(30, Card("c1", discount=0.2))) == 0.2
    assert card_discount(Rider(30, Card("c1", expired=True, discount=0.2))) == 0.0
    assert card_discount(Rider(30)) == 0.0


def test_stops_include_both_ends():
    assert stops_between(3, 6) == [3, 4, 5, 6]
