"""Display drivers: one small synchronous interface, several back ends.

:class:`~display.drivers.base.DisplayDriver` is what a back end implements;
:class:`~display.chain.DisplayChain` wraps any of them in a worker thread so the
engine never waits for the hardware.
"""
