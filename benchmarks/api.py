"""Requests per second the read endpoints sustain on loopback.

    .venv/bin/python benchmarks/api.py [--seconds S] [--concurrency C]

Starts a whole table (virtual shoe and `tablectl run` as processes, real uvicorn), plays a
few rounds so the reads have content, then loads each read endpoint with C keep-alive
clients for S seconds from this process (which shares the machine's cores with the server).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = os.path.join(os.path.dirname(__file__), "..")
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests", "service"))

import httpx  # noqa: E402
from harness import DEALER_KEY, VIEWER_KEY, Table  # noqa: E402

from simulators.virtual_dealer import VirtualDealer  # noqa: E402

ENDPOINTS = ["/healthz", "/api/table", "/api/rounds?size=20", "/api/rounds/5", "/api/shoe", "/api/alerts"]


async def load(api: str, path: str, seconds: float, concurrency: int) -> tuple[int, int]:
    headers = {"Authorization": f"Bearer {VIEWER_KEY}"}
    done = 0
    errors = 0
    end = time.perf_counter() + seconds
    async with httpx.AsyncClient(base_url=api, headers=headers, timeout=10) as client:
        async def worker() -> None:
            nonlocal done, errors
            while time.perf_counter() < end:
                r = await client.get(path)
                done += 1
                errors += r.status_code != 200
        await asyncio.gather(*(worker() for _ in range(concurrency)))
    return done, errors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, Table(Path(tmp), seed=3) as table:
        VirtualDealer(table.api, DEALER_KEY, table.shoe.control_path, seed=1, max_boxes=4).run(30, timeout=120)
        print(f"{'endpoint':<24} {'req/s':>8} {'errors':>7}")
        for path in ENDPOINTS:
            done, errors = asyncio.run(load(table.api, path, args.seconds, args.concurrency))
            print(f"{path:<24} {done / args.seconds:>8.0f} {errors:>7}")


if __name__ == "__main__":
    main()
