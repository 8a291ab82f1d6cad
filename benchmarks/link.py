"""Shoe link decode speed versus what a 115,200-baud line can carry.

    .venv/bin/python benchmarks/link.py [--frames N] [--chunk BYTES]

Prints frames decoded per second for (1) the framing layer alone and (2) the
whole host path (framing + packet parsing + session + typed messages + the
owner's ack), each as a ratio to the most CARD frames per second a 115,200
baud 8N1 line can carry. The goal is ~100x, so that a Pi Zero (roughly
10-20x slower than a desktop core) still leaves the line as the bottleneck.
"""

from __future__ import annotations

import argparse
import time

from firmware_bridge.codecs import LinkTiming
from firmware_bridge.framed import FramedSession
from firmware_bridge.framing import FrameDecoder, encode_frame
from firmware_bridge.messages import Card
from firmware_bridge.wire import ButtonEvent, CardEvent, Hello, encode_packet

BAUD = 115_200
BITS_PER_BYTE = 10  # 8N1: start bit, 8 data bits, stop bit
LINE_BYTES_PER_S = BAUD / BITS_PER_BYTE
SHOE_ID = "3FA2B1C0.{}"  # the simulator's id format (boot id . shoe number)
CODES = [r + s for s in "SHDC" for r in "23456789TJQKA"]


def card_stream(n: int) -> bytes:
    """``n`` consecutive CARD frames: 6-deck shoes of 312 cards one after another."""
    return b"".join(
        encode_frame(encode_packet(CardEvent(seq, (seq - 1) % 312 + 1, CODES[seq % 52], SHOE_ID.format((seq - 1) // 312 + 1))))
        for seq in range(1, n + 1)
    )


def chunks(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


def best_of(runs: int, fn: object) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        fn()  # type: ignore[operator]
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=100_000)
    parser.add_argument("--chunk", type=int, default=256, help="bytes per read (256 ~ a 20 ms read at 115,200 baud)")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    n = args.frames

    stream = card_stream(n)
    frame_len = len(stream) / n
    line_fps = LINE_BYTES_PER_S / frame_len
    pieces = chunks(stream, args.chunk)

    def framing_only() -> None:
        decoder = FrameDecoder()
        got = 0
        for piece in pieces:
            got += len(decoder.feed(piece))
        assert got == n, got

    def full_host_path() -> None:
        session = FramedSession(None, LinkTiming())
        session.connected(0.0)
        session.receive(encode_frame(encode_packet(Hello(1, 1, 1, 1, "fw", "sn"))), 0.0)
        got = 0
        for piece in pieces:
            for msg in session.receive(piece, 0.0):
                if type(msg) is Card:
                    session.ack(msg.shoe_id, msg.position)
                    got += 1
            session.take_output()
        assert got == n, got

    tiny = encode_frame(encode_packet(ButtonEvent(1, "")))
    tiny_pieces = chunks(tiny * n, args.chunk)

    def framing_smallest() -> None:
        decoder = FrameDecoder()
        got = 0
        for piece in tiny_pieces:
            got += len(decoder.feed(piece))
        assert got == n, got

    t_framing = best_of(args.runs, framing_only)
    t_full = best_of(args.runs, full_host_path)
    t_tiny = best_of(args.runs, framing_smallest)
    tiny_line_fps = LINE_BYTES_PER_S / len(tiny)

    print(f"line: {BAUD} baud 8N1 = {LINE_BYTES_PER_S:.0f} bytes/s")
    print(f"CARD frame: {frame_len:.1f} bytes on the wire (shoe ids like {SHOE_ID.format(1)!r}) -> line max {line_fps:.0f} frames/s")
    print(f"reads of {args.chunk} bytes, {n} frames, best of {args.runs}")
    print(
        f"framing only      : {n / t_framing:12,.0f} frames/s  = {n / t_framing / line_fps:7.0f}x the line"
    )
    print(
        f"full host path    : {n / t_full:12,.0f} frames/s  = {n / t_full / line_fps:7.0f}x the line"
        "  (decode + parse + session + Card + ack)"
    )
    print(
        f"smallest frame ({len(tiny)} B): {n / t_tiny:12,.0f} frames/s  = {n / t_tiny / tiny_line_fps:7.0f}x the line"
        "  (framing only, worst case for the ratio)"
    )


if __name__ == "__main__":
    main()
