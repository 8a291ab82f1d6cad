"""`tablectl status --db PATH`: the table's state from the journal, without the service."""

from .journal_cli import configure_status_parser as configure_parser
from .journal_cli import run_status as run

__all__ = ["configure_parser", "run"]
