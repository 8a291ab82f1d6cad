"""Basic strategy computed from a rule profile (not hand-charted).

How it is computed
------------------
The strategy is *total-dependent* (what a player sees: his total, soft or
hard, pair or not, and the dealer's up card), derived from expected values
computed for the profile's actual rules:

* **Two-card decisions** (stand / hit / double / split / surrender) are solved
  for every two-card composition and up card with the *finite shoe minus the
  player's two cards and the up card* (the profile's number of decks), then
  averaged over the compositions of the same total, weighted by how often each
  is dealt. Removing those three cards is what makes single-deck strategy
  differ from six-deck strategy (e.g. 11 v A, 9 v 2, 8-8 v 10); the residual
  effect of later cards is far smaller, so after the three cards the draws are
  taken with fixed probabilities. That keeps a build to ~0.1-0.3 s of pure
  Python (a fully depleting solver would take minutes).
* **Hit/stand on three or more cards** uses the shoe minus the up card.
* Pairs get their own rows (the pair composition is solved on its own), so
  "can't split" falls back to the best play of that very pair.
* **Dealer blackjack.** Where the dealer peeks (hole card; ace or ace/ten),
  every expectation is conditioned on the dealer not having blackjack.
  Otherwise (no hole card, or an unpeeked up card) each action is valued as
  ``P(bj)·v_bj + (1-P(bj))·v_nbj``: with ``dealer_bj_takes = all`` a hand
  loses its whole stake (doubles, every split hand); with ``original`` the box
  loses one bet in all. A surrendered hand keeps half whatever the dealer
  makes (it is settled at once), so early surrender against a ten or ace in a
  no-hole-card game is valued as the exact -0.5 it is.
* **Splits**: up to ``max_hands`` with resplits (aces only if
  ``resplit_aces``), double after split when allowed, split aces one card;
  the number of hands comes from a small resplit recursion.
* **Three sevens** (``rules.three_sevens``): hitting an original 7-7 draws a
  third seven with probability ``q7`` and is then paid at once (3:1, 5:1
  suited, suit odds exact for the deck count) whatever the dealer makes. This
  is in the 7-7 row's hit value, so the strategy hits 7-7 wherever that beats
  splitting or standing.

Insurance and even money are never taken (basic strategy).

The house edge of a profile under this strategy is computed separately by
``simulators.strategy_edge`` with full finite-shoe depletion; run
``python -m simulators.strategy_cli --rules PROFILE`` for the chart and the edge.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence

from controller.legality import Action
from .blackjack_terms import BlackjackTerms

from .strategy_model import (
    BlackjackLoss,
    HouseRules,
    Tables,
    dealer_distribution,
    hit_stand_tables,
    normalise,
    playing_total,
)


HIT, STAND, DOUBLE, SPLIT, SURRENDER = Action.HIT, Action.STAND, Action.DOUBLE, Action.SPLIT, Action.SURRENDER
_LETTER = {HIT: "H", STAND: "S", DOUBLE: "D", SPLIT: "P", SURRENDER: "R"}
Ranking = tuple[Action, ...]


class _Situation:
    """One solved composition: draw probabilities, dealer odds, and hit/stand tables."""

    __slots__ = ("house", "up", "q", "p_bj", "loss", "t")

    def __init__(self, house: HouseRules, counts: list[int], up: int) -> None:
        self.house = house
        self.up = up
        self.q = q = normalise(counts)
        full = dealer_distribution(q, up, house.hits_soft17)
        no_bj = 1.0 - full[6]
        d = [p / no_bj for p in full[:6]]
        self.loss = house.blackjack_loss(up)
        # Peeked (or impossible) blackjack: play happens only when there is none.
        self.p_bj = 0.0 if self.loss is BlackjackLoss.NONE else full[6]
        self.t: Tables = hit_stand_tables(q, d)

    def combine(self, v_bj: float, v_nbj: float) -> float:
        return self.p_bj * v_bj + (1.0 - self.p_bj) * v_nbj

    # ---- original (unsplit) two-card hand
    def original(self, a: int, b: int) -> dict[Action, float]:
        """Combined EV of each legal action on an original two-card hand (not a blackjack)."""
        house, t = self.house, self.t
        hard, ace = a + b, a == 1 or b == 1
        total = playing_total(hard, ace)
        evs = {STAND: self.combine(-1.0, t.stand[total]), HIT: self.combine(-1.0, t.hit[hard][ace])}
        if house.three_sevens and a == b == 7:
            evs[HIT] = self._hit_seven_seven()
        if house.may_double(hard, ace):
            ev, bust = t.double(hard, ace)
            lose = -2.0 if self.loss is BlackjackLoss.STAKE else -2.0 * bust - (1.0 - bust)
            evs[DOUBLE] = self.combine(lose, ev)
        if house.may_surrender(self.up):
            evs[SURRENDER] = -0.5
        if a == b and house.max_hands >= 2:
            evs[SPLIT] = self.split(a, 1)
        return evs

    def _hit_seven_seven(self) -> float:
        q, best = self.q, self.t.best
        bonus = self.house.sevens_bonus(self.up)
        rest = sum(q[x] * (-1.0 if 14 + x > 21 else best[14 + x][x == 1]) for x in range(1, 11) if x != 7)
        return q[7] * bonus + self.combine(-(1.0 - q[7]), rest)

    # ---- split hands
    def split_hand(self, c: int, x: int) -> dict[Action, float]:
        """Combined EV per action of one split hand holding c, x (no further split)."""
        house, t = self.house, self.t
        hard, ace = c + x, c == 1 or x == 1
        total = playing_total(hard, ace)
        # Per-hand stake at risk to a later dealer blackjack; under "original" the
        # box's single lost bet is added once in split().
        stake = -1.0 if self.loss is BlackjackLoss.STAKE else 0.0
        if c == 1:  # split aces take one card
            return {STAND: self.combine(stake, t.stand[total])}
        evs = {STAND: self.combine(stake, t.stand[total]), HIT: self.combine(stake, t.hit[hard][ace])}
        if house.das and house.may_double(hard, ace):
            evs[DOUBLE] = self.combine(2 * stake, t.double(hard, ace)[0])
        return evs

    def split(self, c: int, hands: int) -> float:
        """Combined EV of splitting c-c when the box already plays ``hands`` hands."""
        house, q = self.house, self.q
        p = q[c] / 4 if house.split_by_rank and c == 10 else q[c]
        value = [0.0] * 11
        for x in range(1, 11):
            if q[x]:
                value[x] = max(self.split_hand(c, x).values())
        mix = sum(q[x] * value[x] for x in range(1, 11))
        pair_value = value[c]
        other = (mix - p * pair_value) / (1.0 - p) if p < 1.0 else 0.0
        may_resplit = c != 1 or house.resplit_aces
        non_pair, pairs = _split_hands(p, house.max_hands if may_resplit else 0, hands + 1, 2, {})
        ev = non_pair * other + pairs * pair_value
        if self.loss is BlackjackLoss.ORIGINAL:
            ev -= self.p_bj
        return ev


def _split_hands(p: float, max_hands: int, n_hands: int, pending: int,
                 memo: dict[tuple[int, int], tuple[float, float]]) -> tuple[float, float]:
    """(expected hands ending with a non-pair card, expected hands ending as an unsplittable pair) of a box
    playing ``n_hands`` hands with ``pending`` still to take their second card, each of which pairs with
    chance ``p`` and is split again while the box has fewer than ``max_hands`` (0: never)."""
    # A module function with its memo, not a recursive closure under lru_cache: mypyc 2.4 miscompiles
    # that (the build of tablectl/compiled_engine.py compiles this module).
    key = (n_hands, pending)
    found = memo.get(key)
    if found is not None:
        return found
    if pending == 0:
        out = 0.0, 0.0
    else:
        a_done, p_done = _split_hands(p, max_hands, n_hands, pending - 1, memo)
        if n_hands < max_hands:
            a_re, p_re = _split_hands(p, max_hands, n_hands + 1, pending + 1, memo)
            out = (1 - p) * (a_done + 1) + p * a_re, (1 - p) * p_done + p * p_re
        else:
            out = a_done + (1 - p), p_done + p
    memo[key] = out
    return out


def _rank(evs: dict[Action, float]) -> Ranking:
    ranked = tuple(sorted(evs, key=lambda a: -evs[a]))
    # Stand and hit are always legal; keep everything after the first of them out.
    out: list[Action] = []
    for a in ranked:
        out.append(a)
        if a is HIT or a is STAND:
            break
    if out[-1] is HIT:
        out.append(STAND)
    elif HIT in evs:
        out.append(HIT)
    return tuple(out)


class BasicStrategy:
    """Basic strategy for one rule profile: decision tables built once, then O(1) lookups."""

    def __init__(self, rules: BlackjackTerms) -> None:
        self.rules = rules
        self.house = house = HouseRules.of(rules)
        self.max_hands = rules.max_hands
        shoe = house.shoe()
        # Flat tables, indexed for speed: hit/stand by (hard, ace, up); two-card
        # rankings by (hard, ace, up); pair rankings by (value, up, hands_in_box).
        self._multi: list[Action] = [STAND] * (32 * 2 * 11)
        self._two: list[Ranking] = [(STAND,)] * (32 * 2 * 11)
        self._two_split: list[Ranking] = [(STAND,)] * (32 * 2 * 11)
        self._pair: list[Ranking] = [(STAND,)] * (11 * 11 * (self.max_hands + 1))
        self._evs: dict[tuple[str, int, int, int], dict[Action, float]] = {}  # for chart(), tests and action_evs
        self._generic: dict[int, _Situation] = {}  # per up card: the shoe less it (three-card hit/stand values)
        for up in range(1, 11):
            self._build_up(shoe, up)

    @staticmethod
    def _idx(hard: int, ace: bool, up: int) -> int:
        return (hard * 2 + ace) * 11 + up

    def _pidx(self, c: int, up: int, hands: int) -> int:
        return (c * 11 + up) * (self.max_hands + 1) + hands

    def _build_up(self, shoe: list[int], up: int) -> None:
        house = self.house
        rest = shoe.copy()
        rest[up] -= 1
        generic = _Situation(house, rest, up)
        self._generic[up] = generic
        t = generic.t
        for hard in range(2, 22):
            for ace in (False, True):
                hit = t.hit[hard][ace] > t.stand[playing_total(hard, ace)]
                self._multi[self._idx(hard, ace, up)] = HIT if hit else STAND
                if (3 if ace else 4) <= hard and playing_total(hard, ace) < 21:
                    split_evs = self._split_two(generic, hard, ace)
                    self._evs[("split-soft" if ace else "split-hard", hard, up, 1)] = split_evs
                    self._two_split[self._idx(hard, ace, up)] = _rank(split_evs)

        sums: dict[tuple[int, bool], dict[Action, float]] = {}
        weights: dict[tuple[int, bool], float] = {}
        for a in range(1, 11):
            for b in range(a, 11):
                if (a, b) == (1, 10):
                    continue  # blackjack: no decision
                counts = rest.copy()
                counts[a] -= 1
                counts[b] -= 1
                if min(counts) < 0:
                    continue
                w = rest[a] * (rest[b] - (a == b))
                if w <= 0:
                    continue
                sit = _Situation(house, counts, up)
                evs = sit.original(a, b)
                if a == b:
                    self._evs[("pair", a, up, 1)] = evs
                    self._pair[self._pidx(a, up, 1)] = _rank(evs)
                    self._build_split_pair(sit, a, up)
                    continue
                key = (a + b, a == 1)
                acc = sums.setdefault(key, dict.fromkeys(evs, 0.0))
                for act, ev in evs.items():
                    acc[act] += w * ev
                weights[key] = weights.get(key, 0.0) + w
        for (hard, ace), acc in sums.items():
            evs = {act: ev / weights[(hard, ace)] for act, ev in acc.items()}
            self._evs[("soft" if ace else "hard", hard, up, 1)] = evs
            self._two[self._idx(hard, ace, up)] = _rank(evs)

    def _split_two(self, sit: _Situation, hard: int, ace: bool) -> dict[Action, float]:
        """Rank stand/hit/double for a two-card split hand of this total (non-pair, not aces)."""
        # split_hand(c, x) only needs the total: any non-ace c giving it will do.
        if ace:
            return sit.split_hand(hard - 1, 1)
        c = min(10, hard - 2)
        return sit.split_hand(c, hard - c)

    def _build_split_pair(self, sit: _Situation, c: int, up: int) -> None:
        per_hand = sit.split_hand(c, c)
        for hands in range(2, self.max_hands + 1):
            evs = dict(per_hand)
            if hands < self.max_hands and (c != 1 or self.house.resplit_aces):
                evs[SPLIT] = sit.split(c, hands)
            self._evs[("split-pair", c, up, hands)] = evs
            if c == 1:
                self._pair[self._pidx(c, up, hands)] = (SPLIT, STAND)  # split aces: resplit or stand
            else:
                self._pair[self._pidx(c, up, hands)] = _rank(evs)

    # ------------------------------------------------------------------ the hot path
    def decide(
        self,
        values: Sequence[int],
        dealer_up: int,
        *,
        can_double: bool,
        can_split: bool,
        can_surrender: bool,
        hands_in_box: int = 1,
        is_split_hand: bool = False,
    ) -> Action:
        """The basic-strategy action for a hand, always legal given the flags.

        ``values``: the hand's card values (ace = 1, tens = 10), in the order dealt;
        ``dealer_up``: 1..10. Double falls back to hit or stand, split to the pair's
        best other play, surrender to the best of the rest (all by expected value).
        A split-aces hand (``is_split_hand`` and first card an ace) only splits or stands.
        """
        if len(values) == 2:
            a, b = values
            if is_split_hand and a == 1:
                return SPLIT if (b == 1 and can_split) else STAND
            if a == b:
                ranking = self._pair[
                    (a * 11 + dealer_up) * (self.max_hands + 1)
                    + (min(hands_in_box, self.max_hands) if is_split_hand else 1)
                ]
            else:
                hard = a + b
                ace = a == 1 or b == 1
                if hard == 11 and ace:
                    return STAND
                table = self._two_split if is_split_hand else self._two
                ranking = table[(hard * 2 + ace) * 11 + dealer_up]
            for act in ranking:
                if act is HIT or act is STAND:
                    return act
                if act is DOUBLE:
                    if can_double:
                        return act
                elif act is SPLIT:
                    if can_split:
                        return act
                elif can_surrender:
                    return act
            return STAND
        hard = sum(values)
        if hard >= 21:
            return STAND
        return self._multi[(hard * 2 + (1 in values)) * 11 + dealer_up]

    def take_insurance(self) -> bool:
        """Basic strategy never insures (the bet loses ~7% of itself off the top of a shoe)."""
        return False

    def take_even_money(self) -> bool:
        """Even money is insurance on a blackjack: basic strategy declines it."""
        return False

    # ------------------------------------------------------------------ inspection
    def evs(self, kind: str, value: int, up: int, hands: int = 1) -> dict[Action, float]:
        """The expected values behind one chart cell (kind: hard, soft, pair, split-pair).

        ``value`` is the hard total for hard/soft rows (A-7 is soft with value 8), the
        pair card for pairs. Values are per unit of the original bet.
        """
        return dict(self._evs[(kind, value, up, hands)])

    def action_evs(self, values: Sequence[int], dealer_up: int, *, hands_in_box: int = 1,
                   is_split_hand: bool = False) -> dict[Action, float]:
        """The expected value of each play of this hand that `decide` chose among, per unit of the initial bet.

        The values `decide`'s tables were built from (so basic strategy's play is the best of them where it is
        legal): a two-card hand's of its chart cell, a hand of three cards or more hit or stand with the shoe
        less the up card, each weighed with the dealer's blackjack as the rules settle it. Empty where the
        hand has no decision (a two-card 21 after a split, a total over 21). The rating slip prices a
        player's mistakes with these (`controller.ratings`)."""
        up = dealer_up
        if len(values) == 2:
            a, b = values
            hard, ace = a + b, a == 1 or b == 1
            if a == b:
                if is_split_hand:
                    key = ("split-pair", a, up, max(2, min(hands_in_box, self.max_hands)))
                else:
                    key = ("pair", a, up, 1)
            elif is_split_hand:
                key = ("split-soft" if ace else "split-hard", hard, up, 1)
            else:
                key = ("soft" if ace else "hard", hard, up, 1)
            found = self._evs.get(key)
            return dict(found) if found is not None else {}
        hard = sum(values)
        ace = 1 in values
        sit = self._generic.get(up)
        if sit is None or hard >= 21:
            return {}
        t = sit.t
        return {STAND: sit.combine(-1.0, t.stand[playing_total(hard, ace)]), HIT: sit.combine(-1.0, t.hit[hard][ace])}


@lru_cache(maxsize=32)
def strategy_for(rules: BlackjackTerms) -> BasicStrategy:
    """The BasicStrategy of a profile, built once per distinct set of rules."""
    return BasicStrategy(rules)


_UPS = (2, 3, 4, 5, 6, 7, 8, 9, 10, 1)


def _code(ranking: Ranking) -> str:
    best = ranking[0]
    if best in (DOUBLE, SPLIT, SURRENDER):
        return _LETTER[best] + _LETTER[ranking[1]].lower()
    return _LETTER[best]


def chart(rules: BlackjackTerms) -> str:
    """A readable chart: hard, soft and pair rows by dealer up card, plus 3+-card hit/stand exceptions.

    Codes: H hit, S stand, D double, P split, R surrender; a second lowercase
    letter is the play when the first is not allowed (Dh, Ds, Rh, Rs, Rp, Ph...).
    """
    s = strategy_for(rules)
    head = "       " + " ".join(f"{('A' if u == 1 else str(u)):>3}" for u in _UPS)
    lines = [f"Basic strategy for {rules.name}", head]

    def row(label: str, cells: list[str]) -> None:
        lines.append(f"{label:<7}" + " ".join(f"{c:>3}" for c in cells))

    lines.append("hard")
    for hard in range(5, 20):
        row(f"{hard}", [_code(s._two[s._idx(hard, False, u)]) for u in _UPS])
    lines.append("soft")
    for x in range(2, 10):
        row(f"A-{x}", [_code(s._two[s._idx(1 + x, True, u)]) for u in _UPS])
    lines.append("pairs")
    for c in (2, 3, 4, 5, 6, 7, 8, 9, 10, 1):
        name = "A" if c == 1 else ("T" if c == 10 else str(c))
        row(f"{name}-{name}", [_code(s._pair[s._pidx(c, u, 1)]) for u in _UPS])
    exceptions = []
    for ace in (False, True):
        for hard in range(4, 21):
            total = playing_total(hard, ace)
            if total >= 21:
                continue
            for u in _UPS:
                multi = s._multi[s._idx(hard, ace, u)]
                two = s._two[s._idx(hard, ace, u)]
                if len(two) == 1 and two[0] is STAND and not s._evs.get(("soft" if ace else "hard", hard, u, 1)):
                    continue  # no two-card hand of this kind
                first = next(a for a in two if a in (HIT, STAND))
                if multi is not first:
                    kind = "soft" if ace and hard <= 11 else "hard"
                    exceptions.append(f"{kind} {total} v {'A' if u == 1 else u}: {multi.value}")
    if exceptions:
        lines.append("3+ cards (differs from the two-card row): " + "; ".join(exceptions))
    return "\n".join(lines)
