"""Hidden checks: used only by bench/learning_sequence.py to judge a fix, never shown to fixloop."""

from gradebook.marks import PASS_MARK, Mentor, Student, final_grade, passed, percent, weekly_totals, who_helps


def check_limit() -> None:
    for a in range(0, 101, 5):
        for b in range(0, 101, 5):
            assert passed(Student("x", [a, b])) == ((a + b) / 2 >= PASS_MARK), (a, b)
    assert passed(Student("x")) is False


def check_none_guard() -> None:
    assert who_helps(Student("x")) == "the year head"
    assert who_helps(Student("x", mentor=Mentor("m", away=True))) == "the year head"
    assert who_helps(Student("x", mentor=Mentor("m"))) == "m"


def check_swapped() -> None:
    for c in range(0, 101, 10):
        for e in range(0, 81, 5):
            assert final_grade(c, e) == round(c * 0.4 + 0.6 * (100.0 * e / 80), 1), (c, e)
            assert final_grade(c, e, 50) == round(c * 0.4 + 0.6 * (100.0 * e / 50), 1), (c, e)
    assert percent(30, 60) == 50.0


def check_off_by_one() -> None:
    marks = list(range(1, 40))
    for weeks in range(0, 8):
        for per_week in range(1, 5):
            want = [sum(marks[w * per_week:(w + 1) * per_week]) for w in range(weeks)]
            assert weekly_totals(marks, weeks, per_week) == want, (weeks, per_week)
