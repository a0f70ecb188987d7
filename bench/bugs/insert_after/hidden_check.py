import itertools

from playlist import Playlist

songs = ["a", "b", "c", "d"]
for n in range(0, 5):
    base = songs[:n]
    for anchor in songs + ["z"]:
        got = Playlist(base).insert_after(anchor, "x").songs
        if anchor in base:
            i = base.index(anchor)
            expected = base[: i + 1] + ["x"] + base[i + 1 :]
        else:
            expected = base + ["x"]
        assert got == expected, (base, anchor, got)
for perm in itertools.permutations(songs):
    for anchor, song in itertools.permutations(songs, 2):
        rest = [s for s in perm if s != song]
        i = rest.index(anchor)
        assert Playlist(perm).move_after(anchor, song).songs == rest[: i + 1] + [song] + rest[i + 1 :]
