from garage.fees import billable_hours, fee


def test_a_short_stop_is_free():
    assert billable_hours(5) == 0
    assert billable_hours(10) == 0


def test_every_started_hour_counts():
    assert billable_hours(11) == 1
    assert billable_hours(60) == 1
    assert billable_hours(61) == 2


def test_fee_is_hourly_up_to_the_daily_cap():
    assert fee(150, hourly=2.5, daily_cap=18.0) == 7.5
    assert fee(12 * 60, hourly=2.5, daily_cap=18.0) == 18.0


def test_a_long_stay_pays_the_cap_for_each_full_day():
    assert fee(24 * 60 + 90, hourly=2.5, daily_cap=18.0) == 23.0
