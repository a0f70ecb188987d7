from jobs.progress import Job


def test_half_way():
    job = Job(4)
    job.advance(2)
    assert job.progress() == 50.0


def test_done():
    job = Job(2)
    job.advance(5)
    assert job.done()
