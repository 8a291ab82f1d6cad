"""The service's exit statuses (docs/service.md), in one place, and how an ending maps to one.

The unit restarts the service on the transient ones (storage, the API's port) and not on
those a person must fix first (`RestartPreventExitStatus=2 3 7` in deploy/systemd).
"""

from __future__ import annotations

from controller.journal import JournalError, StorageError

from .listening import ListenError

EXIT_OK = 0
EXIT_CONFIG = 2  # the configuration cannot run
EXIT_JOURNAL = 3  # the journal is refused: damaged, altered, foreign, or its key is wrong or missing
EXIT_STORAGE = 4  # the journal's storage failed: disk full, read-only, I/O error
EXIT_INTERNAL = 5  # a bug: the table stopped rather than guess
EXIT_LISTEN = 6  # the API could not listen on its address
EXIT_HARDWARE = 7  # the table's hardware cannot be used: lgpio, the board, the GPIO chip, SPI, a pin in use

# The journal tools' statuses (`status`, `journal export|verify|init|backup`; docs/service.md, "Tools").
EXIT_NOT_VERIFIED = 1  # `verify`, `backup`: a row (or the copy) does not verify
EXIT_CANNOT = 2  # the tool cannot do its job: no file at the path, the key file missing, unusable or not
#                  this journal's, storage, bad arguments
EXIT_REFUSED = EXIT_JOURNAL  # like `run`: the journal itself is refused (not a journal, damaged, altered, empty,
#                              a row this release cannot read); a person must look at the file


def exit_status(exc: BaseException | None) -> int:
    """The documented exit status for how the service ended."""
    if exc is None:
        return EXIT_OK
    if isinstance(exc, StorageError):
        return EXIT_STORAGE
    if isinstance(exc, ListenError):
        return EXIT_LISTEN
    from display.factory import GpioUnavailable  # (only once it ended: gpiozero is not loaded for nothing)

    if isinstance(exc, GpioUnavailable):
        return EXIT_HARDWARE
    if isinstance(exc, JournalError):
        return EXIT_JOURNAL if type(exc) is not JournalError else EXIT_INTERNAL
    from .config import ConfigError  # (a config the journal refuses, its rules not the table's; only then)

    if isinstance(exc, ConfigError):
        return EXIT_CONFIG
    return EXIT_INTERNAL
