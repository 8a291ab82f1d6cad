"""The control channel of a running simulator (child process, real pty, real Unix socket)."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path
from typing import Callable

from simulators.shoe.deck import shuffled_shoe
from simulators.shoe.process import SimProcess
from tests.support.deadlines import scaled


def test_deal_follows_the_seeded_shoe_and_logs_every_card(start_sim: Callable[..., SimProcess], tmp_path: Path) -> None:
    log = tmp_path / "cards.jsonl"
    sim = start_sim("--seed", "11", "--decks", "1", "--cut-at", "3", "--log", str(log))
    with sim.control() as ctl:
        answers = [ctl.request("deal") for _ in range(52)]
        assert ctl.request("deal") == {"ok": False, "error": "empty"}
    assert [a["card"] for a in answers] == shuffled_shoe(11, 1, 1)
    assert [a["position"] for a in answers] == list(range(1, 53))
    assert answers[1].get("cut_card") is True and "cut_card" not in answers[0]
    logged = [json.loads(line) for line in log.read_text().splitlines()]
    assert logged == [{"shoe_id": a["shoe_id"], "position": a["position"], "card": a["card"]} for a in answers]


def test_shuffle_status_button_fault_clear(start_sim: Callable[..., SimProcess]) -> None:
    sim = start_sim("--seed", "2", "--decks", "2")
    with sim.control() as ctl:
        ctl.request("deal")
        shuffled = ctl.request("shuffle", shoe_id="table7-0002")
        cut_at = shuffled.pop("cut_at")
        assert shuffled == {"ok": True, "shoe_id": "table7-0002", "cards": 104, "pack": 52, "decks": 2}
        assert 67 <= cut_at - 1 <= 73  # ru-standard's cut, 200-220 of 312 cards before it, scaled to 104
        first = ctl.request("deal")
        assert first["position"] == 1 and first["card"] == shuffled_shoe(2, 2, 2)[0]
        status = ctl.request("status")
        assert status["shoe_id"] == "table7-0002" and status["position"] == 1 and status["cards_left"] == 103
        assert status["locked"] is False and status["cut_card_out"] is False and status["unacked"] >= 2
        assert status["connected"] is False  # no host yet
        assert ctl.request("button", name="deal") == {"ok": True}
        assert ctl.request("fault", kind="jam") == {"ok": True}
        assert ctl.request("deal") == {"ok": False, "error": "jammed"}
        assert ctl.request("clear") == {"ok": True}
        assert ctl.request("fault", kind="lid_open") == {"ok": True}
        assert ctl.request("deal") == {"ok": False, "error": "lid_open"}
        ctl.request("clear")
        assert ctl.request("fault", kind="unreadable") == {"ok": True}
        assert ctl.request("deal")["unreadable"] is True


def test_bad_requests_get_clear_errors(start_sim: Callable[..., SimProcess]) -> None:
    sim = start_sim()
    with sim.control() as ctl:
        assert "unknown cmd 'dance'" in ctl.request("dance")["error"]
        assert "kind" in ctl.request("fault", kind="fire")["error"]
        assert "name" in ctl.request("button")["error"]
        assert "seconds" in ctl.request("unplug", seconds=-1)["error"]
        assert "shoe_id" in ctl.request("shuffle", shoe_id=3)["error"]
    raw = socket.socket(socket.AF_UNIX)
    raw.connect(sim.control_path)
    raw.sendall(b"{not json\n[1,2]\n")
    reply = raw.makefile("rb")
    assert json.loads(reply.readline())["error"].startswith("bad JSON")
    assert json.loads(reply.readline())["error"] == 'a request is a JSON object with a "cmd" string'
    raw.close()
    assert sim.request("status")["ok"] is True  # still serving


def test_unplug_makes_a_new_pty_and_repoints_the_link(start_sim: Callable[..., SimProcess]) -> None:
    sim = start_sim()
    before = os.readlink(sim.link)
    assert before == sim.ready["device"]
    fd = os.open(sim.link, os.O_RDWR | os.O_NOCTTY)  # a host holding the old port
    assert sim.request("unplug", seconds=0.2) == {"ok": True}
    while not os.path.lexists(sim.link) or os.readlink(sim.link) == before:
        sim.request("status")  # paces the loop; the replug is bounded by --unplug-seconds
    os.set_blocking(fd, False)
    try:
        while os.read(fd, 4096):  # what was already on the line can still be read...
            pass
    except BlockingIOError:
        raise AssertionError("the old port should be hung up after an unplug") from None
    except OSError:
        pass  # ...then EIO: hung up, as when a USB cable is pulled
    finally:
        os.close(fd)
    assert os.path.exists(os.readlink(sim.link))


def test_quit_stops_the_simulator_and_cleans_up(start_sim: Callable[..., SimProcess]) -> None:
    sim = start_sim()
    assert sim.request("quit") == {"ok": True}
    assert sim.proc is not None and sim.proc.wait(scaled(10)) == 0
    assert not os.path.lexists(sim.link) and not os.path.exists(sim.control_path)


def test_stack_puts_cards_next_and_keeps_the_shoe_whole(start_sim: Callable[..., SimProcess]) -> None:
    sim = start_sim("--seed", "5", "--decks", "1")
    with sim.control() as ctl:
        ctl.request("deal")
        stacked = ctl.request("stack", cards=["AS", "K", "9H"])
        assert stacked["ok"] and stacked["cards"][0] == "AS" and stacked["cards"][1][0] == "K"
        dealt = [ctl.request("deal")["card"] for _ in range(51)]
        assert dealt[:3] == stacked["cards"]
        assert ctl.request("deal") == {"ok": False, "error": "empty"}
        assert len(set(dealt)) == 51  # one deck: nothing seen twice, nothing lost
        ctl.request("shuffle")
        refused = ctl.request("stack", cards=["AS", "AS"])  # one deck holds one ace of spades
        assert refused["ok"] is False and "'AS'" in refused["error"]
        assert ctl.request("stack", cards="AS")["ok"] is False


def test_shoe_sim_pack_36_deals_six_to_ace_and_the_dealer_can_load_other_packs(
        start_sim: Callable[..., SimProcess]) -> None:
    sim = start_sim("--seed", "8", "--decks", "2", "--pack", "36")
    with sim.control() as ctl:
        status = ctl.request("status")
        assert (status["pack"], status["decks"], status["cards_left"]) == (36, 2, 72)
        dealt = [ctl.request("deal")["card"] for _ in range(72)]
        assert dealt == shuffled_shoe(8, 1, 2, pack=36) and {c[0] for c in dealt} == set("6789TJQKA")
        assert ctl.request("deal") == {"ok": False, "error": "empty"}
        back = ctl.request("shuffle", pack=52, decks=1)
        assert (back["cards"], back["pack"], back["decks"]) == (52, 52, 1)
        assert "36 or 52" in ctl.request("shuffle", pack=40)["error"]
        assert "decks" in ctl.request("shuffle", decks=0)["error"]
        assert "whole number" in ctl.request("shuffle", pack="36")["error"]
        assert ctl.request("status")["pack"] == 52  # a refused load changes nothing


def test_cut_at_means_the_card_the_cut_card_lies_before_everywhere(start_sim: Callable[..., SimProcess]) -> None:
    """Issue 38: `--cut-at 234` places the cut card before card 234: 233 cards come out before it. The deal that
    brings it out is card 233's, the status and a shuffle's answer say 234, and the wire's CUT_CARD names card 234
    as the one now next (docs/shoe-protocol.md 7 and 13)."""
    sim = start_sim("--seed", "5", "--cut-at", "234")
    with sim.control() as ctl:
        answers = [ctl.request("deal") for _ in range(233)]
        assert [a["position"] for a in answers if a.get("cut_card")] == [233]
        status = ctl.request("status")
        assert status["cut_at"] == 234 and status["cut_card_out"] is True and status["position"] == 233


def test_the_default_cut_card_falls_where_ru_standard_puts_it(start_sim: Callable[..., SimProcess]) -> None:
    """Without --cut-at, each shoe's cut card is drawn (seeded) so that 200 to 220 of 312 cards come out before it, as
    ru-standard's rules place it (rules.md), not at 75 % (card 234); --cut-zone sets another zone."""
    sim = start_sim("--seed", "6")
    with sim.control() as ctl:
        cuts = [ctl.request("status")["cut_at"]] + [ctl.request("shuffle")["cut_at"] for _ in range(12)]
    assert all(200 <= cut - 1 <= 220 for cut in cuts) and len(set(cuts)) > 3, cuts
    other = start_sim("--seed", "6", "--cut-zone", "150-151")
    with other.control() as ctl:
        assert ctl.request("status")["cut_at"] - 1 in (150, 151)
