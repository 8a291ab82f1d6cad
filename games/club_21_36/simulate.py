"""club-21-36's simulation (the registry's ``simulate`` part): rounds of duels against a bank, the banker bound to
his totals."""

from ..club.simulate import ClubSimulation

SIMULATE = ClubSimulation(optimal_banker=False, spent_packs=False)
