"""The JSON API and the status badge, on the same server as the web app. Read-only: GET routes only.
Parameters reach SQL only through the query layer, as bound parameters."""

from __future__ import annotations

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse, Response

from .. import errors, query
from .badge import model_badge
from .explorer import Explorer, banner

NO_STORE = {"Cache-Control": "no-cache"}


def problem(status: int, text: str) -> JSONResponse:
    return JSONResponse({"error": text}, status_code=status)


def unavailable(ex: Explorer) -> JSONResponse | None:
    """503 when the dataset could not be opened at all (an empty dataset is fine: it has no rows)."""
    return problem(503, " ".join(ex.problems)) if ex.problems else None


def api_router(ex: Explorer) -> APIRouter:
    router = APIRouter()

    @router.get("/api/versions")
    def versions() -> Response:
        return unavailable(ex) or JSONResponse({"versions": [] if ex.ds.empty else query.versions(ex.ds),
                                                "warnings": banner(ex)})

    @router.get("/api/models")
    def models(q: str = "", status: str | None = None, task: str | None = None, target: str | None = None,
               compiler_version: str | None = None, transformers: str | None = None,
               limit: int = Query(100, ge=1, le=1000)) -> Response:
        if ex.problems:
            return unavailable(ex)
        try:
            rows = [] if ex.ds.empty else query.search(ex.ds, q, status, task, target, compiler_version,
                                                       transformers, limit)
        except errors.ModelcompatError as exc:
            return problem(400, errors.message(exc))
        return JSONResponse({"models": rows, "count": len(rows), "warnings": banner(ex)})

    @router.get("/api/models/{model_id:path}")
    def model(model_id: str, compiler_version: str | None = None, transformers: str | None = None,
              task: str | None = None, target: str | None = None) -> Response:
        row = None if ex.ds.empty else query.detail(ex.ds, model_id, compiler_version, transformers, task, target)
        if row is None:
            return unavailable(ex) or problem(404, not_found(model_id, compiler_version, transformers, task))
        return JSONResponse({**row.to_dict(), "reproduce_command": query.reproduce_command(row)})

    @router.get("/badge/{model_id:path}.svg")
    def badge(model_id: str, compiler_version: str | None = None, transformers: str | None = None) -> Response:
        row = None if ex.ds.empty else query.detail(ex.ds, model_id, compiler_version, transformers)
        return Response(model_badge(row), status_code=200 if row else 404, media_type="image/svg+xml",
                        headers=NO_STORE)

    return router


def not_found(model_id: str, *filters: str | None) -> str:
    names = ("compiler_version", "transformers", "task")
    given = ", ".join(f"{n}={v}" for n, v in zip(names, filters) if v)
    return errors.message(errors.NoResult(model_id, f" ({given})" if given else ""))
