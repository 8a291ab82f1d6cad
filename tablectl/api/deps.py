"""Dependencies the routers share: the table service the app was built for."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from fastapi import Depends, Request

if TYPE_CHECKING:  # pragma: no cover
    from tablectl.service import TableService


async def get_service(request: Request) -> "TableService":
    """The one table service behind this app."""
    return request.app.state.service


Service = Annotated["TableService", Depends(get_service)]
