"""The exact expectation of every baccarat bet on the next coup, from the cards left in the shoe (pure).

Full enumeration without replacement, in whole numbers: the first four cards (Player, Banker, Player, Banker)
and the third cards the tableau calls for, by value (ace 1, 2-9, tens and faces 0), each path weighted by how
many cards of those values are left. Totals, the Dragon 7 and the Panda 8 need only values; a pair needs ranks,
and its chance is exchangeable (any two of the cards left): ``sum n_r (n_r - 1) / (N (N - 1))``.

A coup's probabilities are exact fractions (one common denominator, N (N-1) ... (N-5)); each bet's
expectation per unit staked follows from the rules' payouts, the commission taken as its exact rate (a
rounding to the cent or the chip is the house's per bet, not the bet's expectation). The figures off the
top of 8 decks are those published (Wizard of Odds, "Baccarat": Banker -1.0579 %, Player -1.2351 %, Tie 8:1
-14.3596 %; EZ Banker -1.0183 %, Dragon 7 -7.6113 %, Panda 8 -10.1894 %; pairs 11:1 -10.3614 %):
tests/games/baccarat/test_exact.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from controller.cards import RANKS

from .rules import BaccaratRules
from .tableau import banker_draws

_VALUE_OF_RANK = {r: (1 if r == "A" else 0 if r in "TJQK" else int(r)) for r in RANKS}


@dataclass(frozen=True, slots=True)
class CoupOdds:
    """The next coup's chances, exact: Player win, Banker win, tie, a Banker win on a three-card 7 (Dragon 7),
    a Player win on a three-card 8 (Panda 8), and each pair."""

    player: Fraction
    banker: Fraction
    tie: Fraction
    dragon7: Fraction
    panda8: Fraction
    player_pair: Fraction
    banker_pair: Fraction


def by_value(ranks_left: dict[str, int]) -> list[int]:
    """Cards left by value 0..9 (tens and faces 0) from cards left by rank."""
    v = [0] * 10
    for rank, n in ranks_left.items():
        v[_VALUE_OF_RANK[rank]] += n
    return v


def full_shoe(decks: int) -> dict[str, int]:
    """A whole shoe of ``decks`` decks, by rank."""
    return {r: 4 * decks for r in RANKS}


def coup_odds(ranks_left: dict[str, int]) -> CoupOdds:
    """The exact chances of the next coup dealt from the cards left (by rank). At least six cards must be left."""
    v = by_value(ranks_left)
    n = sum(v)
    if n < 6:
        raise ValueError(f"a coup needs up to six cards; {n} are left")
    # Weights in whole numbers over the common denominator n (n-1) ... (n-5): a path that ends after four cards
    # counts (n-4)(n-5) times its product, after five (n-5) times.
    after4 = (n - 4) * (n - 5)
    after5 = n - 5
    pw = bw = tw = d7 = p8 = 0
    rng = range(10)
    for p1 in rng:
        c1 = v[p1]
        if not c1:
            continue
        v[p1] -= 1
        for b1 in rng:
            c2 = v[b1]
            if not c2:
                continue
            v[b1] -= 1
            w2 = c1 * c2
            for p2 in rng:
                c3 = v[p2]
                if not c3:
                    continue
                v[p2] -= 1
                w3 = w2 * c3
                pt = (p1 + p2) % 10
                for b2 in rng:
                    c4 = v[b2]
                    if not c4:
                        continue
                    w4 = w3 * c4
                    bt = (b1 + b2) % 10
                    if pt >= 8 or bt >= 8 or (pt >= 6 and bt >= 6):
                        w = w4 * after4
                        if pt > bt:
                            pw += w
                        elif bt > pt:
                            bw += w
                        else:
                            tw += w
                        continue
                    v[b2] -= 1
                    if pt <= 5:
                        for p3 in rng:
                            c5 = v[p3]
                            if not c5:
                                continue
                            w5 = w4 * c5
                            pt3 = (pt + p3) % 10
                            if banker_draws(bt, p3):
                                v[p3] -= 1
                                for b3 in rng:
                                    c6 = v[b3]
                                    if not c6:
                                        continue
                                    w = w5 * c6
                                    bt3 = (bt + b3) % 10
                                    if pt3 > bt3:
                                        pw += w
                                        if pt3 == 8:
                                            p8 += w
                                    elif bt3 > pt3:
                                        bw += w
                                        if bt3 == 7:
                                            d7 += w
                                    else:
                                        tw += w
                                v[p3] += 1
                            else:
                                w = w5 * after5
                                if pt3 > bt:
                                    pw += w
                                    if pt3 == 8:
                                        p8 += w
                                elif bt > pt3:
                                    bw += w
                                else:
                                    tw += w
                    else:  # the Player stands on 6 or 7; the Banker draws on 0-5
                        for b3 in rng:
                            c6 = v[b3]
                            if not c6:
                                continue
                            w = w4 * c6 * after5
                            bt3 = (bt + b3) % 10
                            if pt > bt3:
                                pw += w
                            elif bt3 > pt:
                                bw += w
                                if bt3 == 7:
                                    d7 += w
                            else:
                                tw += w
                    v[b2] += 1
                v[p2] += 1
            v[b1] += 1
        v[p1] += 1
    total = n * (n - 1) * (n - 2) * (n - 3) * (n - 4) * (n - 5)
    pair = Fraction(sum(k * (k - 1) for k in ranks_left.values()), n * (n - 1))
    return CoupOdds(Fraction(pw, total), Fraction(bw, total), Fraction(tw, total), Fraction(d7, total),
                    Fraction(p8, total), pair, pair)


def expectations(ranks_left: dict[str, int], rules: BaccaratRules) -> dict[str, float]:
    """Each bet's expectation per unit staked on the next coup (negative: the house's edge), by spot; the side
    bets the table does not offer are left out."""
    o = coup_odds(ranks_left)
    rate = Fraction(rules.commission_rate)
    banker_win = o.banker - (o.dragon7 if rules.ez_push_banker_three_card_seven else 0)
    out = {
        "player": o.player - o.banker,
        "banker": banker_win * (1 - rate) - o.player,
        "tie": o.tie * rules.tie_pays - (1 - o.tie),
        "player_pair": o.player_pair * rules.pair_pays - (1 - o.player_pair),
        "banker_pair": o.banker_pair * rules.pair_pays - (1 - o.banker_pair),
    }
    if rules.dragon7:
        out["dragon7"] = o.dragon7 * rules.dragon7_pays - (1 - o.dragon7)
    if rules.panda8:
        out["panda8"] = o.panda8 * rules.panda8_pays - (1 - o.panda8)
    return {k: float(x) for k, x in out.items()}
