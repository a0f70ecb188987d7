"""A playlist the user reorders by hand."""


class Playlist:
    def __init__(self, songs=()):
        self.songs = list(songs)

    def insert_after(self, anchor, song):
        """Put `song` right after the first `anchor` (at the end when `anchor` is not in the list)."""
        if anchor not in self.songs:
            self.songs.append(song)
        else:
            self.songs.insert(self.songs.index(anchor), song)
        return self

    def move_after(self, anchor, song):
        self.songs.remove(song)
        return self.insert_after(anchor, song)
