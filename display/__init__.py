"""Box-total displays, the bell and the dealer console (gpiozero).

Import the parts from their modules: :mod:`display.model` (input model),
:mod:`display.render` (pure rendering), :mod:`display.chain` and
:mod:`display.drivers` (displays), :mod:`display.bell`, :mod:`display.console`,
:mod:`display.wiring` (config) and :mod:`display.factory` (``build_outputs``).
This package never imports the engine (``controller``).
"""
