"""The virtual smart shoe: speaks the framed shoe protocol on a pseudo-terminal.

Modules: ``deck`` (deterministic shuffles), ``core`` (the shoe's firmware
logic, sans I/O), ``faults`` (line fault injection), ``pty_link`` (the
pseudo-terminal "cable" and its unplugging), ``control`` (the JSON-lines
control channel a virtual dealer uses), ``server`` (the event loop tying them
together) and ``client`` (a small client for the control channel).
"""
