"""The registry of games: the installed games are found by their one line each, and a clash stops loudly.

The installed games come from the ``tablectl.games`` entry points (pyproject.toml); `register` adds a game
at run time. A second game or profile of a name, or an event ``type`` claimed by two classes, is refused
with a message that names both; an unknown game, profile or part is a clear error, never a KeyError.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import pytest

from controller import events as ev
from controller import registry
from controller.cards import Card
from controller.game import Dispatch, Game, TableOps
from controller.legality import Action
from controller.round import Round, VoidReason
from controller.registry import GameEntry, RegistryError, registered


class _Stub(Game[Round, Any]):
    """A game that is never played: only its name and its events matter here."""

    name = "stub"
    brings: tuple[type, ...] = ()

    def events(self) -> Dispatch:
        return {cls: (None, lambda t, e: None) for cls in self.brings}

    def place(self, table: TableOps, card: Card, e: ev.CardDrawn) -> None: ...
    def face_down_next(self, table: TableOps) -> str | None: return None
    def next_card(self, table: TableOps) -> str | None: return None
    def hidden_cards(self, table: TableOps) -> list[Card]: return []
    def legal_actions(self, table: TableOps) -> list[Action]: return []
    def void(self, table: TableOps, reason: VoidReason = VoidReason.SUPERVISOR) -> None: ...
    def view(self, table: TableOps, reveal: bool) -> dict[str, Any]: return {}
    def dump_round(self, r: Round) -> dict[str, Any]: return {}
    def load_round(self, table: TableOps, data: Any) -> Round: raise NotImplementedError


@dataclass(slots=True, kw_only=True)
class _Knock(ev.Event):
    type: Literal["knock_test"] = "knock_test"


@dataclass(slots=True, kw_only=True)
class _OtherKnock(ev.Event):
    type: Literal["knock_test"] = "knock_test"


def _stub(name: str, *brings: type) -> Game[Round, Any]:
    cls = type(f"Stub_{name.replace('-', '_')}", (_Stub,), {"name": name, "brings": brings})
    return cls()


def test_the_installed_games_are_found_by_their_entry_points() -> None:
    # (every installed game, in name order: a new game's registry line adds its name and changes no test)
    names = registry.names()
    assert {"blackjack", "club-21", "club-21-36"} <= set(names) and names == sorted(names)
    assert registry.profiles("blackjack") == ["ru-standard", "ru-surrender", "us-holecard", "single-deck-enhc"]
    assert registry.profile("us-holecard") is not None and registry.profile("us-holecard")["game"] == "blackjack"
    assert registry.profile("club-21") == {"name": "club-21", "game": "club-21"}
    assert registry.profile("macau") is None


def test_a_game_registered_at_run_time_is_there_inside_its_block_only() -> None:
    with registered(GameEntry(_stub("stub-a"), {"stub-a-fast": {"decks": 1}})):
        assert "stub-a" in registry.names() and registry.game("stub-a").name == "stub-a"
        assert registry.profile("stub-a-fast") == {"name": "stub-a-fast", "decks": 1, "game": "stub-a"}
    assert "stub-a" not in registry.names() and registry.profile("stub-a-fast") is None


def test_an_unknown_game_or_part_is_a_clear_error() -> None:
    with pytest.raises(RegistryError, match=r"'macau' is not a game \(games: ([a-z0-9-]+, )*blackjack, club-21, "
                                            r"club-21-36"):
        registry.game("macau")
    with registered(GameEntry(_stub("stub-b"), parts={"display": "nowhere.at.all:PART"})):
        with pytest.raises(RegistryError, match="the game 'stub-b' has no 'console' part"):
            registry.part("stub-b", "console")
        with pytest.raises(RegistryError, match=r"the 'display' part of the game 'stub-b' \(nowhere.at.all:PART\) "
                                                "does not load"):
            registry.part("stub-b", "display")


def test_a_second_game_of_a_name_is_refused() -> None:
    with pytest.raises(RegistryError, match="two games are named 'blackjack'"):
        registry.register(GameEntry(_stub("blackjack")))
    assert type(registry.game("blackjack")).__name__ == "Blackjack"


def test_a_second_profile_of_a_name_is_refused() -> None:
    with pytest.raises(RegistryError, match="the profile 'ru-standard' of the game 'stub-c' is already a profile of "
                                            "'blackjack'"):
        registry.register(GameEntry(_stub("stub-c"), {"ru-standard": {}}))
    assert "stub-c" not in registry.names()


def test_an_event_type_two_classes_claim_is_refused_and_one_class_two_games_share_is_not() -> None:
    with registered(GameEntry(_stub("stub-d", _Knock))):
        with pytest.raises(RegistryError, match=r"the event type 'knock_test' of the game 'stub-e' .*_OtherKnock\) is "
                                                r"already .*_Knock"):
            registry.register(GameEntry(_stub("stub-e", _OtherKnock)))
        with registered(GameEntry(_stub("stub-f", _Knock))):  # the same class, shared: one event
            assert registry.event_classes().count(_Knock) == 1
    assert _Knock not in registry.event_classes()


class _OtherKnocker(_Stub):
    """A game made by the registry from its ``"module:Class"`` (an installed game's line), claiming a taken type."""

    name = "stub-g"
    brings = (_OtherKnock,)


def test_an_engine_made_on_first_use_is_checked_for_clashes_then() -> None:
    later = GameEntry(f"{__name__}:_OtherKnocker", name="stub-g")
    with registered(GameEntry(_stub("stub-d", _Knock))), registered(later):
        assert "stub-g" in registry.names() and not later.is_loaded  # known by its name, its engine not made
        with pytest.raises(RegistryError, match=r"the event type 'knock_test' of the game 'stub-g' .*_OtherKnock\) is "
                                                r"already .*_Knock"):
            registry.game("stub-g")
        with pytest.raises(RegistryError, match="'stub-g'"):
            registry.load_all()  # (what reaches every clash: every engine made)
        assert not later.is_loaded and _OtherKnock not in registry.event_classes()


def test_every_installed_game_loads_with_no_clash() -> None:
    games = registry.load_all()
    assert all(e.is_loaded for e in games) and [e.name for e in registry.loaded()] == registry.names()
    assert all(e.game.name == e.name for e in games)
    own = {cls for e in games for cls in e.game.dispatch} - set(ev.CORE_EVENTS)
    assert own <= set(registry.event_classes())
