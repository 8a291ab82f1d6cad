"""club-21's simulation (the registry's ``simulate`` part): the club games' simulation, the banker free to choose."""

from ..club.simulate import ClubSimulation

SIMULATE = ClubSimulation(optimal_banker=True, spent_packs=True)
