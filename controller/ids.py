"""The one rule for a person's id or name at the table: a dealer's badge id, a player's name (issue 37).

An id is shown on the felt, the pit's screens, the dispute record and the floor, and it is how a person's
rounds are kept together (a dealer's shift, a player's advantage-play evidence). Two ids that look the same
must be the same id, so an id is taken as its NFKC normal form (a full-width ``ｄｅａｌｅｒ１`` is ``dealer1``,
a ligature ``ﬁ`` is ``fi``) with the spaces at its ends stripped, and refused (`BadId`, one reason each) when:

* it is blank (nothing but spaces);
* it holds a control or other unprintable character (a line end in a name could forge a log line);
* it is longer than `MAX_ID` characters once normalised;
* its letters mix scripts: ``dеaler1`` with a Cyrillic ``е`` among Latin letters looks like ``dealer1`` and is
  another id. The letters of an id are of one script; digits, spaces and punctuation go with any. As in
  Unicode's "highly restrictive" profile (UTS #39, section 5.2), Latin may go with Han, Hiragana and Katakana
  (Japanese), with Han and Bopomofo, or with Han and Hangul (Korean): those are written together.

Where ids enter the table this rule is applied: the events a person sends (the API's actions, a session file
given to `tablectl replay`), and the console's badge reader. A row already in a journal is not judged again
when it is read (`controller.events.parse_event(recorded=True)`): it was taken when it was written, its MAC
covers it as it is, and a replay must rebuild the very table that was played (an id normalised on replay would
be another player's).

Python's standard library has no script property; a letter's script is the first word of its Unicode name
(``LATIN SMALL LETTER E``, ``CYRILLIC SMALL LETTER IE``; ``CJK UNIFIED IDEOGRAPH-4E00`` for Han), which names
the script of every letter that NFKC leaves.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

MAX_ID = 64

# Scripts written together in one name (UTS #39 "highly restrictive"), besides a single script alone.
_TOGETHER = (frozenset({"LATIN", "CJK", "HIRAGANA", "KATAKANA"}), frozenset({"LATIN", "CJK", "BOPOMOFO"}),
             frozenset({"LATIN", "CJK", "HANGUL"}))
# Names whose first word is not the script's (the rest of a letter's name starts with its script).
_SCRIPT_OF_WORD = {"HALFWIDTH": None, "FULLWIDTH": None, "MODIFIER": None, "SMALL": None, "CAPITAL": None}


class BadId(ValueError):
    """An id or name that the table does not take; the message is the one reason, in words."""


@lru_cache(maxsize=4096)
def script_of(ch: str) -> str | None:
    """The script of a letter (``LATIN``, ``CYRILLIC``, ``GREEK``, ``CJK`` ...); None for anything else."""
    if not unicodedata.category(ch).startswith("L"):
        return None  # digits, spaces, punctuation, symbols and marks go with any script
    words = unicodedata.name(ch, "").split()
    for word in words:
        if word not in _SCRIPT_OF_WORD:
            return word
    return "UNKNOWN"


def scripts(text: str) -> list[str]:
    """The scripts of the letters of ``text``, each once, in order of appearance."""
    return list(dict.fromkeys(s for s in map(script_of, text) if s is not None))


def person_id(text: str, what: str = "an id") -> str:
    """``text`` as the table keeps it (NFKC, stripped), or BadId with the one reason it is refused."""
    value = unicodedata.normalize("NFKC", text).strip()
    if not value:
        raise BadId(f"{what} must not be blank")
    if not value.isprintable():
        raise BadId(f"{what} is one line of printable characters")
    if len(value) > MAX_ID:
        raise BadId(f"{what} is at most {MAX_ID} characters")
    found = scripts(value)
    if len(found) > 1 and not any(set(found) <= together for together in _TOGETHER):
        raise BadId(f"{what} mixes scripts ({' and '.join(s.title() for s in found)}): its letters are of one "
                    "script, so that no two ids look alike")
    return value
