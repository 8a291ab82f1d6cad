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
from tablectl.parts import PartError, static_dir
from tablectl.web.errors import ApiError

STATIC = Path(__file__).with_name("static")
GENERIC_FELT = STATIC / "felt-generic.js"  # the felt of a view kind no game ships a renderer for: the shared parts

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


def felt_folders() -> dict[str, Path | None]:
    """Each loaded game's view kind -> the folder of its renderer (the game's ``static`` part), or None for a
    kind whose games ship none: the dashboard draws those with the generic felt (the shared parts only). A table
    shows only the game it plays, whose engine its rules loaded.

    Two games may share a kind (the club games) only with one folder: PartError names both otherwise."""
    kinds: dict[str, Path | None] = {}
    owner: dict[str, str] = {}
    for game in [e.name for e in registry.loaded()]:
        kind = registry.game(game).view_kind
        folder = static_dir(game) if "static" in registry.entry(game).parts else None
        if kind in kinds and kinds[kind] != folder:
            raise PartError(f"the games {owner[kind]!r} and {game!r} share the view kind {kind!r} but not its "
                            f"renderer ({kinds[kind]} and {folder})")
        kinds[kind], owner[kind] = folder, game
    return kinds


@router.get("/games/{kind}/{name}", include_in_schema=False)
async def game_static(kind: str, name: str) -> FileResponse:
    """A file of the renderer of the view kind ``kind`` (``felt.js`` and what it imports), from the game's own
    folder, or the generic felt for a kind whose games ship none; 404 for anything else (no path leaves the
    folder: only a file directly in it is served, by its name)."""
    kinds = felt_folders()
    if kind in kinds:
        folder = kinds[kind]
        if folder is None:
            if name == "felt.js":
                return FileResponse(GENERIC_FELT, media_type="text/javascript", headers={"Cache-Control": "no-cache"})
        elif name in {p.name for p in folder.iterdir() if p.is_file()}:
            return FileResponse(folder / name, headers={"Cache-Control": "no-cache"})
    raise ApiError(404, "not_found", f"no file {name!r} for the view kind {kind!r}")


def mount_static(app: FastAPI) -> None:
    """Serve the page's files under /dashboard/ (each game's felt renderer is served by `game_static` under
    /games/<kind>/: the dashboard loads the renderer the view names, never asking which game is played). The
    games' renderers are checked now, so a game whose ``static`` part is wrong stops the app from being made."""
    app.mount("/dashboard", StaticFiles(directory=STATIC), name="dashboard")
    felt_folders()
