"""Hidden cases for platformdirs on Unix, with a controlled environment and home folder."""

import os
import tempfile

import platformdirs
from platformdirs.unix import Unix

HOME = tempfile.mkdtemp(prefix="pd-home-")
for var in list(os.environ):
    if var.startswith("XDG_"):
        del os.environ[var]
os.environ["HOME"] = HOME


def rel(path):
    return path.replace(HOME, "~")


def user_dirs_file(text):
    config = os.path.join(HOME, ".config")
    os.makedirs(config, exist_ok=True)
    with open(os.path.join(config, "user-dirs.dirs"), "w") as f:
        f.write(text)


def media():
    user_dirs_file('XDG_MUSIC_DIR="$HOME/Tunes"\nXDG_DESKTOP_DIR="$HOME/Desk"\n')
    d = Unix()
    out = [rel(d.user_music_dir), rel(d.user_desktop_dir), rel(d.user_videos_dir)]
    os.environ["XDG_VIDEOS_DIR"] = "/media/films"
    out.append(rel(d.user_videos_dir))
    del os.environ["XDG_VIDEOS_DIR"]
    os.remove(os.path.join(HOME, ".config", "user-dirs.dirs"))
    out.append(rel(d.user_music_dir))
    return out


CASES = {
    "data": lambda: [rel(Unix("app", "me", "1.0").user_data_dir), rel(Unix("app").user_data_dir),
                     rel(Unix().user_data_dir)],
    "log": lambda: [rel(Unix("app", version="2").user_log_dir), rel(Unix("app", opinion=False).user_log_dir)],
    "cache": lambda: [rel(Unix("app", version="3").user_cache_dir), rel(Unix("app", opinion=False).user_cache_dir)],
    "site": lambda: [Unix("app", "me", "1.0").site_data_dir, Unix("app", multipath=True).site_data_dir,
                     Unix("app", version="9").site_config_dir],
    "defaults": lambda: [getattr(Unix(), a) for a in ("appname", "appauthor", "version", "roaming", "multipath",
                                                       "opinion", "ensure_exists")],
    "media": media,
    "api": lambda: [rel(platformdirs.user_config_dir("app", version="1")), rel(platformdirs.user_state_dir("x"))],
}
