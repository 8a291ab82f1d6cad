"""Every error answer of the API has one shape: ``{"error": {"code", "message", "field"}}``.

Handlers raise :class:`ApiError`; the framework's own errors (validation, an
unknown path, a wrong method, a malformed request) are translated here, once,
into the same envelope, so no client ever has to parse two kinds of error.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

log = logging.getLogger(__name__)


class ErrorBody(BaseModel):
    """Every error answer: a machine code and a message a person can act on."""

    code: str
    message: str
    field: str | None = None


class ErrorResponse(BaseModel):
    """The envelope of an error answer."""

    error: ErrorBody


ERRORS: dict[int | str, dict[str, Any]] = {  # the type of FastAPI's `responses`
    401: {"model": ErrorResponse, "description": "no API key, or an unknown one"},
    403: {"model": ErrorResponse, "description": "the key's role may not do this"},
    422: {"model": ErrorResponse, "description": "the request is malformed; `field` names what is wrong"},
}


class ApiError(Exception):
    """An error answer raised from inside a handler or a dependency."""

    def __init__(self, status: int, code: str, message: str, field: str | None = None,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.field = status, code, message, field
        self.headers = headers  # e.g. Retry-After on a 429


def error_response(status: int, code: str, message: str, field: str | None = None,
                   headers: dict[str, str] | None = None) -> JSONResponse:
    """The documented error envelope as a response."""
    return JSONResponse(status_code=status, content={"error": {"code": code, "message": message, "field": field}},
                        headers=headers)


_HTTP_CODES = {
    400: ("bad_request", "the request is malformed"),
    404: ("not_found", "there is nothing at this address"),
    405: ("method_not_allowed", "this address does not take that method"),
    408: ("too_slow", "the request body did not arrive in time"),
    413: ("too_large", "the request body is too large"),
}


def install_error_handlers(app: FastAPI) -> None:
    """Translate every error the app can raise into the documented envelope."""

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> JSONResponse:
        return error_response(exc.status, exc.code, exc.message, exc.field, exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = exc.errors()
        err = errors[0] if errors else {"loc": (), "msg": "invalid request"}
        field = ".".join(str(p) for p in err.get("loc", ()) if p not in ("body",)) or None
        return error_response(422, "invalid_request", str(err.get("msg")), field)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code, message = _HTTP_CODES.get(exc.status_code, ("http_error", str(exc.detail)))
        return error_response(exc.status_code, code, message, headers=getattr(exc, "headers", None))

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        # A bug, never an expected answer: logged with its traceback, answered in the same shape.
        log.exception("unexpected error answering %s %s", request.method, request.url.path)
        return error_response(500, "internal_error", "the table could not answer; the error is in its log")
