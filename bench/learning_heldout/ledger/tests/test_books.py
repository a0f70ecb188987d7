from ledger.books import budget_used, earns_bonus, growth, transfer_size


def test_transfers_stay_within_the_account_limits():
    assert transfer_size(500.0, 10.0, 200.0) == 200.0
    assert transfer_size(5.0, 10.0, 200.0) == 10.0
    assert transfer_size(80.0, 10.0, 200.0) == 80.0


def test_the_bonus_starts_at_the_minimum():
    assert earns_bonus(50)
    assert not earns_bonus(49.5)


def test_growth_lists_every_year_and_now():
    assert growth(100.0, 0.1, 2) == [100.0, 110.0, 121.0]


def test_budget_used_is_a_percentage_of_the_budget():
    assert budget_used(25.0, 200.0) == 12.5
