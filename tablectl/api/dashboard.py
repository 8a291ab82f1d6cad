"""The pit dashboard: one page served by the service itself (no build step, nothing from a CDN).

The page is at `/`, its files under `/dashboard/...`; everything it shows comes
from the API's own reads and event stream, with the caller's key.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

from controller import registry
from tablectl.parts import static_dir

STATIC = Path(__file__).with_name("static")

router = APIRouter()


@router.get("/", include_in_schema=False)
async def index() -> FileResponse:
    """The dashboard's page."""
    return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})


@router.get("/favicon.ico", include_in_schema=False)
async def favicon() -> FileResponse:
    """The icon browsers ask for on their own (no 404 in the console)."""
    return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml",
                        headers={"Cache-Control": "max-age=86400"})


def mount_static(app: FastAPI) -> None:
    """Serve the page's files under /dashboard/, and each registered game's felt renderer under /games/<kind>/ (its
    view kind: the dashboard loads the renderer the view names, never asking which game is played)."""
    app.mount("/dashboard", StaticFiles(directory=STATIC), name="dashboard")
    kinds: dict[str, Path] = {}
    for game in registry.names():
        kinds.setdefault(registry.game(game).view_kind, static_dir(game))
    for kind, folder in kinds.items():
        app.mount(f"/games/{kind}", StaticFiles(directory=folder), name=f"game-{kind}")
