"""What the compiled build compiles: the engine's modules and each game's own, as its folder declares them.

`tablectl.compiled_engine` names no game: a game folder's ``__init__.py`` says ``COMPILED = (...)``, read as text
(the build is chosen before the engine is imported), so a new game's folder adds its hot modules itself.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tablectl import compiled_engine


def test_every_game_folder_declares_its_hot_modules_and_the_build_takes_them() -> None:
    dirs = compiled_engine.package_dirs()
    games = compiled_engine.game_modules(dirs["games"])
    folders = {p.parent.name for p in dirs["games"].glob("*/__init__.py")}
    assert {m.split("/")[1] for m in games} == folders  # every folder, the shared club code too
    assert all((dirs["games"].parent / m).is_file() for m in games)
    assert compiled_engine.modules(dirs) == compiled_engine.MODULES + games
    assert not [m for m in compiled_engine.MODULES if m.startswith("games/")]  # no game named here


def test_a_new_folder_adds_its_own_and_a_bad_declaration_is_refused(tmp_path: Path) -> None:
    games = tmp_path / "games"
    (games / "new_game").mkdir(parents=True)
    (games / "new_game" / "game.py").write_text("")
    (games / "new_game" / "__init__.py").write_text('ENTRY = None\nCOMPILED = ("game.py",)\n')
    (games / "no_hot").mkdir()
    (games / "no_hot" / "__init__.py").write_text("")
    assert compiled_engine.game_modules(games) == ["games/new_game/game.py"]
    (games / "new_game" / "__init__.py").write_text('COMPILED = ("../other.py",)\n')
    with pytest.raises(ValueError, match="new_game"):
        compiled_engine.game_modules(games)
    (games / "new_game" / "__init__.py").write_text('COMPILED = tuple(x for x in "ab")\n')
    with pytest.raises(ValueError, match="new_game"):
        compiled_engine.game_modules(games)
