"""The service's port for the shoe link: every link the service is given has what it needs of one.

The serial link (`firmware_bridge.ShoeLink`), the in-memory wire of the in-process tests
(`tests.support.inprocess.WiredShoe`) and the fleet simulator's shoe (`simulators.memory_table.MemoryShoe`)
are each a `tablectl.service.ShoeLinkPort` (mypy checks the signatures where the service is given one;
this checks the members, for the test's own wire, which mypy does not read).
"""

from __future__ import annotations

import pytest

import firmware_bridge as fb
from simulators.memory_table import MemoryShoe
from tablectl.service import ShoeLinkPort
from tests.support.inprocess import WiredShoe


@pytest.mark.parametrize("link", [
    pytest.param(lambda: fb.ShoeLink("/dev/null-shoe"), id="serial"),
    pytest.param(lambda: WiredShoe(seed=1), id="in-memory wire"),
    pytest.param(lambda: MemoryShoe("T1", 1, 1), id="fleet simulator"),
])
def test_every_link_the_service_takes_is_its_port(link):
    assert isinstance(link(), ShoeLinkPort)


def test_a_thing_without_a_gate_is_not_a_shoe_link():
    class Deaf:
        def start(self, loop=None): ...
        def stop(self): ...
        async def messages(self): ...
        def ack(self, shoe_id, position): ...

    assert not isinstance(Deaf(), ShoeLinkPort)
