"""Pure rendering: every state renders to drawable text of exactly the display's width."""

from __future__ import annotations

import itertools
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from display.glyphs import cell_count, is_drawable
from display.model import (
    BoxView,
    DealerView,
    HandOutcome,
    HandView,
    MessageScope,
    TableMessage,
    TableView,
)
from display.render import (
    MESSAGE_TEXTS,
    display_ids,
    fit,
    render_box,
    render_dealer,
    render_hand,
    render_message,
    render_table,
)

H = HandView


def box(*hands: HandView) -> BoxView:
    return BoxView(number=1, active=True, hands=hands)


# -- golden examples: what a player reads --------------------------------------

@pytest.mark.parametrize(
    ("hand", "digits", "shown"),
    [
        (H(2, 17), 8, "      17"),
        (H(2, 7, 17), 8, "    7-17"),  # soft: "7 or 17"
        (H(2, 7, 17, done=True), 8, "      17"),  # stood on soft 17: best total
        (H(3, 11, 21), 8, "      21"),  # soft 21 is simply 21
        (H(2, 11, 21, is_blackjack=True), 8, "      bJ"),
        (H(3, 24, is_bust=True), 8, "    bUSt"),
        (H(3, 24, is_bust=True), 2, "bU"),
        (H(3, 19, doubled=True, done=True), 8, "    d 19"),
        (H(2, 11, doubled=True, in_play=True), 4, "d 11."),
        (H(3, 19, doubled=True, done=True), 2, "19"),
        (H(2, 16, surrendered=True), 8, "    SUrr"),
        (H(2, 20, outcome=HandOutcome.WIN, done=True), 8, " 20 PAId"),
        (H(2, 20, outcome=HandOutcome.WIN, done=True), 4, "PAId"),
        (H(2, 18, outcome=HandOutcome.LOSE, done=True), 8, " 18 LOSt"),
        (H(2, 18, outcome=HandOutcome.PUSH, done=True), 8, " 18 PUSH"),
        (H(2, 18, outcome=HandOutcome.PUSH, done=True), 2, "PU"),
        (H(2, 10, 20), 4, "  20"),  # "10-20" needs 5 digits: best total
        (H(2, 13, in_play=True), 8, "      13."),  # lit dot: this hand is being played
        (H(0), 8, "      --"),
    ],
)
def test_single_hand_box(hand: HandView, digits: int, shown: str) -> None:
    assert render_box(box(hand), digits) == shown


def test_inactive_box_is_blank() -> None:
    assert render_box(BoxView(number=3), 8) == " " * 8


def test_box_with_bet_but_no_cards_shows_placeholder() -> None:
    assert render_box(BoxView(number=3, active=True), 4) == "  --"


def test_split_shows_both_hands_and_marks_the_one_in_play() -> None:
    first_in_play = box(H(2, 7, 17, in_play=True), H(1, 8))
    assert render_box(first_in_play, 8) == "7-17.   8"
    second_in_play = box(H(3, 19, done=True), H(2, 7, 17, in_play=True))
    # the spare cell goes to the hand in play, so its soft total still fits
    assert render_box(second_in_play, 8) == " 19 7-17."


def test_split_hand_waiting_for_its_second_card() -> None:
    assert render_box(box(H(2, 19, in_play=True), H(1, 10)), 8) == "  19.  10"
    assert render_box(box(H(2, 19, in_play=True), H(0)), 8) == "  19.  --"


def test_resplit_to_four_hands_on_eight_digits_packs_two_digit_slots() -> None:
    hands = box(H(2, 19, done=True), H(2, 10, in_play=True), H(0), H(2, 20))
    assert render_box(hands, 8) == "1910.--20"


def test_split_on_four_digits() -> None:
    assert render_box(box(H(2, 19, done=True), H(2, 12, in_play=True)), 4) == "1912."
    three = box(H(2, 19, done=True), H(2, 12, in_play=True), H(1, 5))
    assert render_box(three, 4) == "  12."  # only the hand in play fits
    settled = box(H(2, 19, done=True), H(2, 12, done=True), H(2, 15, done=True))
    assert render_box(settled, 4) == "SPL3"


# -- dealer --------------------------------------------------------------------

def test_hole_card_game_shows_up_card_only_until_turned() -> None:
    hidden = DealerView(up_card=10, card_count=2, hard_total=16, hole_card_hidden=True)
    assert render_dealer(hidden, 8) == "      10"
    turned = DealerView(up_card=10, card_count=2, hard_total=16)
    assert render_dealer(turned, 8) == "      16"


def test_hole_card_hidden_behind_an_ace_shows_its_two_values() -> None:
    ace = DealerView(up_card=1, card_count=2, hard_total=11, soft_total=21, hole_card_hidden=True)
    assert render_dealer(ace, 8) == "    1-11"  # and never the blackjack under it
    assert render_dealer(ace, 4) == "1-11"


@pytest.mark.parametrize(
    ("dealer", "shown"),
    [
        (DealerView(), "        "),
        (DealerView(up_card=6, card_count=1, hard_total=6), "       6"),
        (DealerView(up_card=1, card_count=2, hard_total=7, soft_total=17), "    7-17"),
        (DealerView(up_card=1, card_count=2, hard_total=7, soft_total=17, done=True), "      17"),
        (DealerView(up_card=1, card_count=2, hard_total=11, soft_total=21, is_blackjack=True), "      bJ"),
        (DealerView(up_card=6, card_count=3, hard_total=26, is_bust=True), "    bUSt"),
    ],
)
def test_dealer(dealer: DealerView, shown: str) -> None:
    assert render_dealer(dealer, 8) == shown


# -- messages --------------------------------------------------------------------

@pytest.mark.parametrize(
    ("message", "digits", "shown"),
    [
        (TableMessage.SHUFFLE_DUE, 8, "ShuFFLE "),
        (TableMessage.SHUFFLE_DUE, 4, "SHUF"),
        (TableMessage.CUT_CARD_OUT, 8, "Cut CArd"),
        (TableMessage.CUT_CARD_OUT, 4, "Cut "),
        (TableMessage.ATTENTION, 8, "  Attn  "),
        (TableMessage.LINK_DOWN, 8, "LInE OFF"),
        (TableMessage.LINK_DOWN, 4, "LInE"),
        (TableMessage.SHOE_FAULT, 8, "SHOE Err"),
        (TableMessage.SHOE_FAULT, 4, "S.Err"),
        (TableMessage.PIT_CALLED, 8, "CALL PIt"),
        (TableMessage.PLACE_BETS, 8, "  bEtS  "),
    ],
)
def test_message_texts(message: TableMessage, digits: int, shown: str) -> None:
    assert render_message(message, digits) == shown


def test_dealer_message_sits_beside_the_dealer_total_when_it_fits() -> None:
    dealer = DealerView(up_card=10, card_count=2, hard_total=17)
    assert render_dealer(dealer, 8, TableMessage.CUT_CARD_OUT) == "Cut   17"
    # four digits: the total is what the display is for
    assert render_dealer(dealer, 4, TableMessage.CUT_CARD_OUT) == "  17"


def test_alarm_messages_take_over_every_display() -> None:
    view = TableView(
        boxes=(BoxView(1, True, (H(2, 17),)), BoxView(2)),
        dealer=DealerView(up_card=10, card_count=1, hard_total=10),
        messages=frozenset({TableMessage.LINK_DOWN, TableMessage.SHUFFLE_DUE}),
    )
    assert render_table(view, 8) == {"box1": "LInE OFF", "box2": "LInE OFF", "dealer": "LInE OFF"}


def test_highest_priority_message_wins() -> None:
    view = TableView.empty(2)
    both = TableView(boxes=view.boxes, messages=frozenset({TableMessage.SHUFFLE_DUE, TableMessage.ATTENTION}))
    assert render_table(both, 4)["dealer"] == "Attn"


def test_render_table_names_every_display() -> None:
    view = TableView.empty(7)
    assert list(render_table(view, 8)) == display_ids(7)
    assert display_ids(2) == ["box1", "box2", "dealer"]


# -- width degradation -------------------------------------------------------------

def test_fit_takes_the_first_candidate_that_fits_then_cuts_the_last() -> None:
    assert fit(["7-17", "17"], 4) == "7-17"
    assert fit(["7-17", "17"], 3) == "17"
    assert fit(["LInE OFF", "LInE"], 3) == "LIn"
    assert fit(["S.Err"], 2) == "S.E"  # the dot belongs to S and costs no digit


@pytest.mark.parametrize("digits", [1, 9])
def test_unsupported_widths_are_refused(digits: int) -> None:
    with pytest.raises(ValueError):
        render_box(BoxView(1), digits)


# -- exhaustive and property checks over the whole input model -----------------------

def all_hands() -> list[HandView]:
    """Every hand state the engine can produce (totals x flags x outcomes)."""
    hands = []
    for cards, hard in [(0, 0)] + [(c, h) for c in (1, 2, 3) for h in range(1, 31)]:
        if cards == 1 and hard > 11:
            continue
        softs = [None] + ([hard + 10] if hard + 10 <= 21 and cards > 0 else [])
        for soft in softs:
            bjs = [False, True] if cards == 2 and soft == 21 else [False]
            for bj, doubled, surrendered, in_play, done, outcome in itertools.product(
                bjs, (False, True), (False, True), (False, True), (False, True), [None, *HandOutcome]
            ):
                hands.append(
                    HandView(cards, hard, soft, bj, hard > 21, doubled, surrendered, in_play, done, outcome)
                )
    return hands


ALL_HANDS = all_hands()


@pytest.mark.parametrize("digits", [2, 3, 4, 8])
def test_every_hand_state_renders_drawable_and_within_width(digits: int) -> None:
    assert len(ALL_HANDS) > 5000
    for hand in ALL_HANDS:
        text = render_hand(hand, digits)
        assert text, hand
        assert is_drawable(text), (hand, text)
        assert cell_count(text) <= digits, (hand, digits, text)
        assert text.endswith(".") == hand.in_play, (hand, text)
        shown = render_box(box(hand), digits)
        assert cell_count(shown) == digits


def test_distinct_states_read_distinctly_on_eight_digits() -> None:
    """The states a player must tell apart never render alike."""
    samples = {
        "hard": H(2, 17), "soft": H(2, 7, 17), "bj": H(2, 11, 21, is_blackjack=True),
        "bust": H(3, 22, is_bust=True), "doubled": H(3, 17, doubled=True, done=True),
        "surrendered": H(2, 17, surrendered=True), "no cards": H(0),
        "win": H(2, 17, outcome=HandOutcome.WIN), "lose": H(2, 17, outcome=HandOutcome.LOSE),
        "push": H(2, 17, outcome=HandOutcome.PUSH), "in play": H(2, 17, in_play=True),
    }
    rendered = {name: render_box(box(h), 8) for name, h in samples.items()}
    assert len(set(rendered.values())) == len(rendered), rendered


@st.composite
def hands(draw: st.DrawFn) -> HandView:
    return draw(st.sampled_from(ALL_HANDS))


@st.composite
def dealers(draw: st.DrawFn) -> DealerView:
    cards = draw(st.integers(0, 5))
    if cards == 0:
        return DealerView()
    up = draw(st.integers(1, 10))
    hard = draw(st.integers(up, 26)) if cards > 1 else up
    soft = draw(st.sampled_from([None, hard + 10])) if hard + 10 <= 21 else None
    return DealerView(
        up_card=up, card_count=cards, hard_total=hard, soft_total=soft,
        is_blackjack=cards == 2 and soft == 21 and draw(st.booleans()),
        is_bust=hard > 21, hole_card_hidden=cards == 2 and draw(st.booleans()), done=draw(st.booleans()),
    )


def payouts() -> st.SearchStrategy[Decimal]:
    """Settled amounts: whole chips, halves (3:2 on odd bets) and cents, up to a large shift's round."""
    return st.decimals(min_value=-10**7, max_value=10**7, places=2, allow_nan=False, allow_infinity=False)


@st.composite
def tables(draw: st.DrawFn) -> TableView:
    n = draw(st.integers(1, 9))
    boxes = []
    for number in range(1, n + 1):
        active = draw(st.booleans())
        hs = draw(st.lists(hands(), max_size=4)) if active else []
        # at most one hand in play per box
        seen = False
        fixed = []
        for h in hs:
            if h.in_play and seen:
                h = HandView(**{**{f: getattr(h, f) for f in HandView.__slots__}, "in_play": False})
            seen = seen or h.in_play
            fixed.append(h)
        payout = draw(st.none() | payouts()) if active else None
        boxes.append(BoxView(number, active, tuple(fixed), payout))
    messages = draw(st.frozensets(st.sampled_from(list(TableMessage))))
    dealer = draw(dealers())
    if draw(st.booleans()):
        dealer = DealerView(**{**{f: getattr(dealer, f) for f in DealerView.__slots__}, "payout": draw(payouts())})
    return TableView(tuple(boxes), dealer, messages)


@settings(max_examples=200, deadline=None)
@given(tables(), st.sampled_from([4, 5, 6, 7, 8]))
def test_any_table_renders_every_display_drawable_and_exactly_wide(view: TableView, digits: int) -> None:
    texts = render_table(view, digits)
    assert set(texts) == set(display_ids(len(view.boxes)))
    for display_id, text in texts.items():
        assert is_drawable(text), (display_id, text)
        assert cell_count(text) == digits, (display_id, text)
    top = view.top_message
    if top is not None and top.scope is MessageScope.ALL:
        assert set(texts.values()) == {render_message(top, digits)}
    for b in view.boxes:
        if not b.active and (top is None or top.scope is MessageScope.DEALER):
            assert texts[f"box{b.number}"] == " " * digits


def test_every_message_has_a_form_for_four_digits() -> None:
    for message, forms in MESSAGE_TEXTS.items():
        assert all(is_drawable(f) for f in forms)
        assert cell_count(forms[-1]) <= 4, message


@pytest.mark.parametrize(
    "bad",
    [
        lambda: HandView(2, 7, 16),  # soft must be hard + 10
        lambda: HandView(3, 20, is_bust=True),
        lambda: HandView(3, 11, 21, is_blackjack=True),
        lambda: HandView(0, 5),
        lambda: BoxView(1, False, (HandView(2, 10),)),
        lambda: BoxView(1, True, (HandView(2, 10, in_play=True), HandView(2, 9, in_play=True))),
        lambda: TableView((BoxView(2),)),
        lambda: DealerView(card_count=1, hard_total=5),
        lambda: DealerView(up_card=11, card_count=1, hard_total=11),
    ],
)
def test_inconsistent_views_are_refused(bad) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError):
        bad()


# ---------------------------------------------------------------- payouts (what the dealer pays or takes)

@pytest.mark.parametrize("amount, digits, shown", [
    # pay: P and the amount; a blackjack on 10 pays 15, on 5 pays 7.5
    ("15", 8, "    P 15"), ("15", 4, "P 15"), ("15", 2, "Pd"),
    ("7.5", 8, "    P 7.5"), ("7.5", 4, "P 7.5"), ("7.5", 2, "Pd"),
    ("2.5", 8, "    P 2.5"), ("2.5", 4, "P 2.5"), ("2.5", 2, "Pd"),
    ("150", 8, "   P 150"), ("150", 4, "P150"), ("150", 2, "Pd"),
    ("1500", 8, "  P 1500"), ("1500", 4, "PAId"), ("1500", 2, "Pd"),
    ("1234567", 8, "P1234567"), ("12345678", 8, "    PAId"),
    ("0.01", 8, "   P 0.01"), ("0.01", 4, "P0.01"),
    # take: a minus and the amount; a lost double of 10 takes 20
    ("-20", 8, "     -20"), ("-20", 4, " -20"), ("-20", 2, "Lo"),
    ("-5", 8, "      -5"), ("-5", 4, "  -5"), ("-5", 2, "-5"),
    ("-2.5", 8, "     -2.5"), ("-2.5", 4, " -2.5"), ("-2.5", 2, "Lo"),
    ("-1500", 8, "   -1500"), ("-1500", 4, "LOSt"), ("-1500", 2, "Lo"),
    ("-12345678", 8, "    LOSt"),
    # neither: a push (or a voided round)
    ("0", 8, "    PUSH"), ("0", 4, "PUSH"), ("0", 2, "PU"),
])
def test_a_settled_box_shows_what_the_dealer_pays_or_takes(amount: str, digits: int, shown: str) -> None:
    settled = BoxView(1, True, (H(2, 20, outcome=HandOutcome.WIN, done=True),), payout=Decimal(amount))
    text = render_box(settled, digits)
    assert text == shown and cell_count(text) == digits and is_drawable(text)


@pytest.mark.parametrize("amount, digits, shown", [
    ("35", 8, "    P 35"), ("35", 4, "P 35"), ("35", 2, "Pd"),
    ("-27.5", 8, "    -27.5"), ("-27.5", 4, "-27.5"), ("-27.5", 2, "Lo"),
    ("0", 8, "       0"), ("0", 4, "   0"), ("0", 2, " 0"),
])
def test_the_dealer_shows_the_rounds_total(amount: str, digits: int, shown: str) -> None:
    dealer = DealerView(up_card=10, card_count=2, hard_total=19, done=True, payout=Decimal(amount))
    assert render_dealer(dealer, digits) == shown


def test_the_rounds_total_sits_beside_a_dealer_message_when_it_fits() -> None:
    dealer = DealerView(up_card=10, card_count=2, hard_total=19, done=True, payout=Decimal("-25"))
    assert render_dealer(dealer, 8, TableMessage.PLACE_BETS) == "bEtS -25"
    assert render_dealer(dealer, 4, TableMessage.PLACE_BETS) == " -25"  # the amount wins


def test_payout_on_an_inactive_box_is_refused() -> None:
    with pytest.raises(ValueError, match="payout"):
        BoxView(1, False, payout=Decimal(5))
