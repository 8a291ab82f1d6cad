"""Game protection: what the order of the cards says about the shuffle. Pure: cards in, findings out.

* ``slug``: a block of the previous shoe left unshuffled (a false shuffle), caught while it is dealt;
* ``discards``: the order the dealer picks the cards up in, the other order a slug can keep;
* ``quality``: how well a shoe was shuffled, as statistics with known distributions under a fair shuffle;
* ``preferential``: whether the house shuffles early when the count favours the players;
* ``findings``: what the room reports, each with a level and a line for the pit;
* ``shoes`` and ``live``: each shoe as the table dealt it, and the live table's watch;
* ``dealers``: each dealer's pace, corrections and shoes per shift;
* ``advantage``: each player's and box's advantage-play evidence (bets against the count, index plays,
  wonging, first-card and hole-card knowledge), signal by signal with its sample size and p-value.

docs/protection.md gives each statistic's null distribution and what the pit does on each finding.
"""
