"""`tablectl run --check`: is this table ready to run? Every part checked, nothing made, nothing served.

Each check gives one `Finding`: a line a person can act on, and the exit status `tablectl run`
would end with on that fault (docs/service.md, "Exit statuses"). Nothing is created: no key,
no journal (a new table's is made by `tablectl journal init`), no pin claimed. The journal is
opened as the service opens it (every MAC verified, the folder's room and writability probed,
nothing written) and replayed without a byte written back; the API's port is bound and let go;
the shoe's port is opened and, with the `framed` codec, its STATUS heard, but no card is
acknowledged: the shoe keeps every card for the service.

The shoe is reported, not required (a warning, exit 0): the service runs without it, showing
`LInE OFF`, until it is plugged in.
"""

from __future__ import annotations

import os
import stat
import sys
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from controller.journal import JournalError, JournalKey, JournalKeyError, ReadOnlyStorage, journal_exists

if TYPE_CHECKING:  # pragma: no cover  (pydantic-settings only for annotations: `journal init --db` needs none)
    from .config import Settings

from .exits import EXIT_CONFIG, EXIT_HARDWARE, EXIT_JOURNAL, EXIT_LISTEN, EXIT_STORAGE, exit_status

OK = 0


@dataclass(frozen=True)
class Finding:
    """One part's verdict: `status` 0 (fine) or the exit status its fault gives; `warning`: worth a look, not a fault."""

    part: str
    status: int
    text: str
    warning: bool = False

    @property
    def ok(self) -> bool:
        """No fault (a warning is no fault)."""
        return self.status == OK


def check_key(settings: Settings, warn: Callable[[str], None]) -> tuple[Finding, JournalKey | None]:
    """The key file: a regular file of 64 hex digits (its mode warned about when wider than 0600)."""
    path, journal = settings.journal.key_path, settings.journal.path
    if not path.exists() and not path.is_symlink():
        if not journal_exists(journal):
            return Finding("key", EXIT_JOURNAL, f"no key at {path} and no journal at {journal}: a new table; make "
                           "both with `tablectl journal init --config FILE` as the service's user (or start the "
                           "service once)"), None
        return Finding("key", EXIT_JOURNAL, f"the journal {journal} exists but its key file {path} is missing: put "
                       "the key back from the safe (never a new key for an old journal)"), None
    try:
        key = JournalKey.load(path, warn=warn)
    except JournalKeyError as exc:
        return Finding("key", EXIT_JOURNAL, f"{exc}: put the table's key back from the safe"), None
    mode = stat.S_IMODE(os.stat(path).st_mode)
    return Finding("key", OK, f"key {path}: a key file, mode {mode:04o}, key id {key.key_id}"), key


def check_journal(settings: Settings, key: JournalKey) -> list[Finding]:
    """The journal: there, whole, every MAC verified, every row replayable, its folder writable with room; and its
    rules (the table's) the config's."""
    from controller.authority import replay_journal
    from controller.engine import Table
    from controller.journal import Journal


    path = settings.journal.path
    if not journal_exists(path):
        if not os.access(path.parent, os.W_OK):  # (the service could not make it either)
            exc = ReadOnlyStorage(f"{ReadOnlyStorage.cause}: cannot create a journal in {path.parent}: making "
                                  f"{path} (it cannot be written)")
            return [Finding("journal", EXIT_STORAGE, str(exc))]
        return [Finding("journal", EXIT_JOURNAL, f"no journal at {path}: a new table's journal is made by `tablectl "
                        "journal init --config FILE` (as the service's user; or by the service's first start); a "
                        "table that has played: the journal path is wrong, or the journal was moved")]
    try:
        journal = Journal(path, key)  # (never create=True: opened and verified as the service opens it)
        try:
            table = replay_journal(journal, Table(settings.table.rules()))
            seq, mac = journal.head()
        finally:
            journal.close()
    except JournalError as exc:
        return [Finding("journal", exit_status(exc), str(exc))]
    found = [Finding("journal", OK, f"journal {path}: verified, {seq} rows, head MAC {mac}, phase {table.phase.value}")]
    from .config import rules_differ

    differ = rules_differ(table.rules, settings)
    found.append(Finding("rules", EXIT_CONFIG, str(differ)) if differ is not None else
                 Finding("rules", OK, f"rules: {table.rules.name}, the journal's and the config's"))
    return found


def check_gpio(settings: Settings) -> list[Finding]:
    """The pin factory importable and the board recognised; the SPI device of the displays there and usable."""
    from display.factory import GpioUnavailable, make_pin_factory, spi_device
    from display.wiring import PinFactoryName

    wiring = settings.gpio
    if wiring.pin_factory is PinFactoryName.MOCK:
        return [Finding("gpio", OK, 'gpio: pin_factory = "mock": mock pins, no hardware checked')]
    try:
        factory = make_pin_factory(wiring.pin_factory)
    except GpioUnavailable as exc:
        return [Finding("gpio", EXIT_HARDWARE, str(exc))]
    try:
        board = getattr(factory, "board_info", None)
        model = f"Raspberry Pi {board.model} rev {board.revision}" if board is not None else "a Raspberry Pi"
    except Exception:  # (the board's details are for the line only)
        model = "a Raspberry Pi"
    finally:
        factory.close()
    found = [Finding("gpio", OK, f'gpio: pin_factory = "lgpio" on {model}')]
    device = spi_device(wiring)
    if device is not None:
        found.append(_check_spi(device))
    return found


def _check_spi(device: str) -> Finding:
    try:
        st = os.stat(device)
    except FileNotFoundError:
        return Finding("spi", EXIT_HARDWARE, f"the displays' SPI device {device} is not there: SPI is off; sudo "
                       "raspi-config nonint do_spi 0 (plain Debian: dtparam=spi=on in /boot/firmware/config.txt), "
                       "then reboot (deploy/README.md, section 1)")
    except OSError as exc:
        return Finding("spi", EXIT_HARDWARE, f"the displays' SPI device {device}: {exc.strerror}")
    if not stat.S_ISCHR(st.st_mode):
        return Finding("spi", EXIT_HARDWARE, f"the displays' SPI device {device} is not a device")
    if not os.access(device, os.R_OK | os.W_OK):
        return Finding("spi", EXIT_HARDWARE, f"the displays' SPI device {device} cannot be opened by this user: "
                       "the service's user must be in the spi group (deploy/install.sh)")
    return Finding("spi", OK, f"spi: {device} for the displays")


def check_api(settings: Settings) -> Finding:
    """The API's TLS pair loads and its address is free (bound, then let go)."""
    from .listening import ListenError, bind, check_tls

    a = settings.api
    try:
        check_tls(a)
        bind(a, 1).close()
    except ListenError as exc:
        return Finding("api", EXIT_LISTEN, f"{exc}; is the service running already (systemctl status tablectl)?")
    return Finding("api", OK, f"api: {a.host}:{a.port} is free")


def check_shoe(settings: Settings, listen_seconds: float = 3.0) -> Finding:
    """The shoe's port is there and opens; with the framed codec, the shoe answers with its STATUS.

    Never a fault: the service runs without its shoe. `listen_seconds` bounds the wait for a
    STATUS (a shoe sends one at least every second, docs/shoe-protocol.md section 6).
    """
    import firmware_bridge as fb
    from firmware_bridge.port import Port, PortError

    s = settings.shoe
    try:
        Port(s.port, s.baudrate).close()
    except PortError as exc:
        return Finding("shoe", OK, f"shoe: {exc} ({exc.reason}): the service runs without it (LInE OFF) until it "
                       "is there; deploy/README.md, section 4", warning=True)
    if s.codec != "framed":
        return Finding("shoe", OK, f"shoe: {s.port} opens; the {s.codec} codec sends no STATUS: `tablectl bringup "
                       "shoe` shows its cards")
    link = fb.ShoeLink(s.port, codec=s.codec, baudrate=s.baudrate)
    link.start()
    status = None
    try:
        end = time.monotonic() + listen_seconds
        while status is None and (left := end - time.monotonic()) > 0:
            try:
                msg = link.get_blocking(timeout=left)
            except TimeoutError:
                break
            if isinstance(msg, fb.Status):
                status = msg
    finally:
        link.stop()
    if status is None:
        return Finding("shoe", OK, f"shoe: {s.port} opens but no STATUS came in {listen_seconds:g} s: is the shoe "
                       f"on, and does it speak {s.codec} at {s.baudrate} baud ([shoe] codec, baudrate)?", warning=True)
    left_text = "unknown" if status.cards_left is None else str(status.cards_left)
    return Finding("shoe", OK, f"shoe: {s.port} answers: shoe {status.shoe_id or '(none loaded)'}, position "
                   f"{status.position}, cards left {left_text}{', locked' if status.locked else ''}")


def run_checks(settings: Settings, *, gpio: bool = True, api: bool = True, shoe_seconds: float = 3.0,
               warn: Callable[[str], None] | None = None) -> list[Finding]:
    """Every check, in the order a technician fixes things: the journal's key and file, the pins, the API, the shoe.

    The shoe is listened to only when the API's port is free: a taken port most likely means the
    service is running, and the shoe's port is then its own.
    """
    found: list[Finding] = []
    key_finding, key = check_key(settings, warn or (lambda message: print(f"warning: {message}", file=sys.stderr)))
    found.append(key_finding)
    if key is not None:
        found += check_journal(settings, key)
    if gpio:
        found += check_gpio(settings)
    api_finding = check_api(settings) if api else None
    if api_finding is not None:
        found.append(api_finding)
    if api_finding is not None and not api_finding.ok:
        found.append(Finding("shoe", OK, "shoe: not listened to while the API's port is taken (the service may "
                             "hold the shoe's port)", warning=True))
    else:
        found.append(check_shoe(settings, shoe_seconds))
    return found
