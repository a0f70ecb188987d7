from gradebook.marks import Mentor, Student, final_grade, passed, weekly_totals, who_helps


def test_final_grade_weights_the_exam_more():
    assert final_grade(100, 40) == 70.0
    assert final_grade(50, 80) == 80.0


def test_pass_mark_is_a_pass():
    assert passed(Student("ana", [50, 50]))
    assert not passed(Student("ben", [20, 40]))
    assert not passed(Student("cy"))


def test_someone_always_helps():
    assert who_helps(Student("ana", mentor=Mentor("ms lee"))) == "ms lee"
    assert who_helps(Student("ben", mentor=Mentor("mr ode", away=True))) == "the year head"
    assert who_helps(Student("cy")) == "the year head"


def test_weekly_totals_include_the_last_week():
    assert weekly_totals([1, 2, 3, 4, 5, 6], 3, 2) == [3, 7, 11]
