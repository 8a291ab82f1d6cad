"""A stand-in for a table's `GET /api/ledger`, on a real loopback socket, answering as a test tells it to.

`good` answers as the table does (`wire.published_form` of its rows, `masked` as the table's face-down
rows); every other mode is one way a table, or whatever answers at its address, can answer badly:
garbage, too much, too slowly, not at all, a refusal, a redirect, another table's rows, rows not asked
for, compressed, or the wrong content type. `hold` answers well only once `release` is set.
"""

from __future__ import annotations

import asyncio
import gzip
import ssl
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.support.harness import free_port

from tablectl.fleet.wire import LedgerRow, published_form

MODES = ("good", "garbage", "huge", "slow", "silent", "error_500", "refused_401", "redirect", "other_table",
         "wrong_rows", "gzip", "json", "empty", "hold")


class TableApi:
    """One table's ledger route, misbehaving as `mode` says; `requests` records what was asked (path, headers)."""

    def __init__(self, table: str, rows: list[LedgerRow], mode: str = "good", masked: frozenset[int] = frozenset(),
                 redirect_to: str = "", tls: ssl.SSLContext | None = None) -> None:
        assert mode in MODES, mode
        self.table, self.rows, self.mode, self.masked, self.redirect_to = table, rows, mode, masked, redirect_to
        self.port = free_port()
        self.tls = tls
        self.url = f"{'https' if tls else 'http'}://127.0.0.1:{self.port}"
        self.requests: list[tuple[str, dict[str, str]]] = []
        self.release = asyncio.Event()
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()

    async def start(self) -> "TableApi":
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", self.port, ssl=self.tls)
        return self

    async def stop(self) -> None:
        self.release.set()
        for w in list(self._writers):
            w.close()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        try:
            head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
            target = head[0].split(" ")[1]
            headers = {k.strip().lower(): v.strip() for k, _, v in (h.partition(":") for h in head[1:] if h)}
            self.requests.append((target, headers))
            query = parse_qs(urlsplit(target).query)
            after, limit = int(query["after"][0]), int(query["limit"][0])
            await self._answer(writer, after, limit)
        except (ConnectionError, asyncio.IncompleteReadError, ssl.SSLError):
            pass  # the floor hung up (or, over TLS, refused the certificate)
        finally:
            self._writers.discard(writer)
            writer.close()

    def _lines(self, after: int, limit: int, table: str | None = None) -> bytes:
        page = [r for r in self.rows if after < r.seq <= after + limit]
        return b"".join(p + b"\n" for p in published_form(table or self.table, page, self.masked))

    async def _answer(self, writer: asyncio.StreamWriter, after: int, limit: int) -> None:
        mode = self.mode
        ndjson = "application/x-ndjson"
        if mode == "hold":
            await self.release.wait()
            mode = "good"
        if mode == "good":
            await _send(writer, 200, ndjson, self._lines(after, limit))
        elif mode == "garbage":
            await _send(writer, 200, ndjson, b"this is not a ledger row\n\x00\xff{\n")
        elif mode == "other_table":
            await _send(writer, 200, ndjson, self._lines(after, limit, table="t9"))
        elif mode == "wrong_rows":
            await _send(writer, 200, ndjson, self._lines(after + 1, limit))  # one row late: not those asked for
        elif mode == "empty":
            await _send(writer, 200, ndjson, b"")
        elif mode == "gzip":
            await _send(writer, 200, ndjson, gzip.compress(self._lines(after, limit)), {"Content-Encoding": "gzip"})
        elif mode == "json":
            await _send(writer, 200, "application/json", b'{"rows": []}')
        elif mode == "error_500":
            await _send(writer, 500, "text/html", b"<html><body>Internal Server Error</body></html>")
        elif mode == "refused_401":
            await _send(writer, 401, "application/json",
                        b'{"error":{"code":"bad_key","message":"this API key is not known","field":null}}')
        elif mode == "redirect":
            await _send(writer, 302, "text/plain", b"", {"Location": self.redirect_to})
        elif mode == "huge":  # an endless answer: the floor must stop reading, not hold it all
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\n\r\n")
            chunk = b"7" * 65536
            while not writer.is_closing():
                writer.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                await writer.drain()
        elif mode == "slow":  # a byte at a time, each well within any read timeout
            body = self._lines(after, limit)
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\nContent-Length: %d\r\n\r\n"
                         % len(body))
            for i in range(len(body)):
                if writer.is_closing():
                    return
                writer.write(body[i:i + 1])
                await writer.drain()
                await asyncio.sleep(0.05)
        elif mode == "silent":
            await self.release.wait()


async def _send(writer: asyncio.StreamWriter, status: int, kind: str, body: bytes,
                extra: dict[str, Any] | None = None) -> None:
    lines = [f"HTTP/1.1 {status} X", f"Content-Type: {kind}", f"Content-Length: {len(body)}", "Connection: close",
             *(f"{k}: {v}" for k, v in (extra or {}).items())]
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
    await writer.drain()
