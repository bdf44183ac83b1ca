"""One server for the explorer: the JSON API and the badge on FastAPI, with the Gradio app mounted at `/`."""

from __future__ import annotations

from pathlib import Path

from .api import api_router
from .explorer import open_explorer
from .render import CSS

# System fonts only: the default theme links Google Fonts, which a machine without internet waits for.
FONTS = {"font": ["system-ui", "sans-serif"], "font_mono": ["ui-monospace", "monospace"]}


def create_app(data: str | Path, catalog_where: object | None = None):
    """The explorer over the dataset at `data` (a folder or hf://datasets/ORG/NAME) as a FastAPI app.
    State lives in the returned app (app.state.explorer) and in the closures of its routes and events."""
    import gradio as gr
    from fastapi import FastAPI

    from .ui import FOLLOW_LINKS_JS, HIDDEN_CSS, build_ui

    explorer = open_explorer(data, catalog_where)
    app = FastAPI(title="modelcompat explorer", docs_url="/api/docs", openapi_url="/api/openapi.json")
    app.state.explorer = explorer
    app.include_router(api_router(explorer))
    theme = gr.themes.Default(**FONTS)
    return gr.mount_gradio_app(app, build_ui(explorer), path="/", theme=theme, css=CSS + HIDDEN_CSS,
                               head=FOLLOW_LINKS_JS,
                               ssr_mode=False, footer_links=["api"], mcp_server=False)


def serve(data: str | Path, host: str = "127.0.0.1", port: int = 7860) -> None:
    """Run the explorer until interrupted."""
    import uvicorn

    app = create_app(data)
    print(f"explorer: http://{host}:{port} over {data} (Ctrl-C to stop)", flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")  # no line per request
