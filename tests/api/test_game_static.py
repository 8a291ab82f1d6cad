"""Each game's dashboard renderer, served by its view kind from the game's own folder (docs/games.md).

The dashboard asks for /games/<view_kind>/felt.js and never which game is played; a kind whose games ship no
renderer is served the generic felt (the shared parts only); nothing outside a renderer's folder is served.
"""

from __future__ import annotations

import pytest

from controller import registry
from tablectl.api.dashboard import GENERIC_FELT
from tests.games.high_card import ENTRY as HIGH_CARD
from tests.support.inprocess import InProcessTable, call

pytestmark = pytest.mark.anyio


async def test_each_view_kind_is_served_its_games_renderer(table: InProcessTable) -> None:
    for name in registry.names():
        kind = registry.game(name).view_kind
        r = await call(table.api, "GET", f"/games/{kind}/felt.js")
        assert r.status_code == 200 and "export default" in r.text, (name, kind, r.status_code)
        assert "javascript" in r.headers["content-type"]


async def test_a_game_without_a_renderer_is_drawn_by_the_generic_felt(table: InProcessTable) -> None:
    assert (await call(table.api, "GET", "/games/generic/felt.js")).status_code == 404  # no game of that kind yet
    with registry.registered(HIGH_CARD):  # a game that ships no static part
        r = await call(table.api, "GET", "/games/generic/felt.js")
        assert r.status_code == 200 and r.text == GENERIC_FELT.read_text()


@pytest.mark.parametrize("path", ["/games/blackjack/view.py", "/games/blackjack/..%2Fview.py",
                                  "/games/blackjack/%2E%2E/view.py", "/games/nosuch/felt.js",
                                  "/games/club/..%2F..%2Fclub_21%2Fgame.py"])
async def test_nothing_outside_a_renderers_folder_is_served(table: InProcessTable, path: str) -> None:
    r = await call(table.api, "GET", path)
    assert r.status_code == 404, path
    assert "import" not in r.text
