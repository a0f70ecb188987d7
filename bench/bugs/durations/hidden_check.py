from parse import parse_duration

for h in range(0, 5):
    for m in range(0, 60, 7):
        for s in range(0, 60, 11):
            assert parse_duration(f"{h}h{m}m{s}s") == h * 3600 + m * 60 + s
