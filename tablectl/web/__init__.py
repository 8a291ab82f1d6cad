"""The web layer both HTTP APIs stand on: the table's (`tablectl.api`) and the floor's (`tablectl.floor.api`).

`auth` (the key ring, the roles' dependencies `Viewer`, `Supervisor`, ...), `errors` (the one
error envelope, `ApiError`, `install_error_handlers`) and `guard` (the edge: bounded bodies, the
Host check, capped connections, `serving`). It imports neither API nor the fleet: both APIs
import it, so neither needs the other's modules (tests/test_layers.py holds this).
"""
