from report import progress
for done in range(-5, 30):
    for total in range(-2, 25):
        want = 0 if total <= 0 else max(0, min(100, done * 100 // total))
        assert progress(done, total) == want, (done, total)
