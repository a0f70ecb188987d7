from pathlib import Path

from fixloop.application.config import MemorySettings, load
from fixloop.adapters.graph.factory import make_memory
from fixloop.adapters.memory.store import default_uri


def test_the_default_store_is_in_the_per_user_data_dir(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert default_uri() == str(tmp_path / "data" / "fixloop" / "memory")
    memory = make_memory(MemorySettings(), tmp_path / "proj")
    assert memory is not None and memory.store.uri == default_uri()
    assert memory.project == str((tmp_path / "proj").resolve())
    assert not (tmp_path / "data").exists()  # nothing is opened until the memory is used


def test_settings_choose_the_store_or_switch_it_off(tmp_path: Path) -> None:
    settings, problems = load({"memory": {"uri": str(tmp_path / "m"), "embedder": "hashing:128"}})
    memory = make_memory(settings.memory, tmp_path)
    assert not problems and memory is not None and memory.store.uri == str(tmp_path / "m")
    assert memory.store.embedder.dim == 128
    off, _ = load({"memory": {"enabled": False}})
    assert make_memory(off.memory, tmp_path) is None


def test_a_bad_embedder_setting_falls_back_to_hashing(tmp_path: Path) -> None:
    memory = make_memory(MemorySettings(uri=str(tmp_path / "m"), embedder="no.such:thing"), tmp_path)
    assert memory is not None and memory.store.embedder.name == "hashing-v1-256"


def test_a_project_file_cannot_redirect_the_memory_or_load_an_embedder(tmp_path: Path) -> None:
    from fixloop.application.config import from_pyproject

    (tmp_path / "pyproject.toml").write_text(
        '[tool.fixloop.memory]\nuri = "s3://someone-else/bucket"\nembedder = "evil:Factory"\nmin_pattern_count = 3\n')
    settings, problems = from_pyproject(tmp_path)
    assert settings.memory.uri == "" and settings.memory.embedder == "hashing"
    assert settings.memory.min_pattern_count == 3
    assert any("memory.uri" in p for p in problems) and any("memory.embedder" in p for p in problems)
