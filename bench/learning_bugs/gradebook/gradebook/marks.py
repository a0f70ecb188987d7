"""Marks, mentors and weekly reports for one class."""

from __future__ import annotations

from dataclasses import dataclass, field

PASS_MARK = 50


@dataclass
class Mentor:
    name: str
    away: bool = False


@dataclass
class Student:
    name: str
    marks: list[int] = field(default_factory=list)
    mentor: Mentor | None = None


def percent(mark: float, out_of: float) -> float:
    return 100.0 * mark / out_of if out_of else 0.0


def final_grade(coursework: int, exam: int, exam_out_of: int = 80) -> float:
    """Coursework is marked out of 100 and counts 40%; the exam is marked out of `exam_out_of` and counts 60%."""
    return round(0.4 * coursework + 0.6 * percent(exam, exam_out_of), 1)


def passed(student: Student) -> bool:
    if not student.marks:
        return False
    average = sum(student.marks) / len(student.marks)
    return average >= PASS_MARK


def who_helps(student: Student) -> str:
    mentor = student.mentor
    if mentor is None or mentor.away:
        return "the year head"
    return mentor.name


def weekly_totals(marks: list[int], weeks: int, per_week: int) -> list[int]:
    """The marks of weeks 1..weeks, `per_week` marks a week."""
    totals = []
    for week in range(1, weeks + 1):
        totals.append(sum(marks[(week - 1) * per_week: week * per_week]))
    return totals
