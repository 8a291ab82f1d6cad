"""`tablectl replay` on a generated 100,000-round session: rounds per second and seconds.

    .venv/bin/python benchmarks/replay.py [--rounds N] [--keep FILE]

The session is played by the simulator (ru-standard, one box, basic strategy) and written
in the session format, every event the table accepted; then it is replayed twice: through
`replay_lines` in this process (parsing and validating every line, building every round's
record), and as `tablectl replay FILE --json` in a fresh process (with its start-up and output).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.append(os.path.join(os.path.dirname(__file__), ".."))  # after PYTHONPATH: a compiled build wins

from controller import events as ev  # noqa: E402
from controller.event_codec import dump_event  # noqa: E402
from controller.replay import replay_lines  # noqa: E402
from controller.rules import build_rules  # noqa: E402
from games.blackjack.simulate import play_chunk  # noqa: E402


def write_session(path: Path, rounds: int) -> int:
    """Play `rounds` rounds and write their events; returns the number of lines."""
    rules = build_rules("ru-standard")
    lines = [json.dumps(dump_event(ev.SetRules(profile=rules.name)))]
    play_chunk(rules, rounds, "replay-benchmark", record=lambda e: lines.append(json.dumps(dump_event(e))))
    path.write_text("\n".join(lines) + "\n")
    return len(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=100_000)
    parser.add_argument("--keep", type=Path, help="write the session here (and keep it)")
    args = parser.parse_args()
    path = args.keep or Path(tempfile.mkdtemp()) / "session.jsonl"
    started = time.perf_counter()
    n = write_session(path, args.rounds)
    print(f"session: {args.rounds} rounds, {n} lines, {path.stat().st_size / 1e6:.1f} MB "
          f"(written in {time.perf_counter() - started:.1f} s)")
    text = path.read_text().splitlines()
    started = time.perf_counter()
    result = replay_lines(text)
    elapsed = time.perf_counter() - started
    assert result.error is None and len(result.rounds) == args.rounds, result.error
    print(f"replay_lines (in process):         {elapsed:6.2f} s  {args.rounds / elapsed:>9.0f} rounds/s "
          f"{n / elapsed:>9.0f} lines/s")
    started = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "tablectl.cli", "replay", str(path), "--json"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
    elapsed = time.perf_counter() - started
    assert out.returncode == 0, out.stderr
    print(f"tablectl replay --json (process): {elapsed:6.2f} s  {args.rounds / elapsed:>9.0f} rounds/s")
    print("(the service's start-up on such a journal is measured with the journal work, which is changing it)")


if __name__ == "__main__":
    main()
