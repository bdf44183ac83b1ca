"""The modelcompat explorer as a Hugging Face Space (Gradio SDK: the Space runs `python app.py`).

One server: the Gradio app at `/`, the JSON API under `/api/` and status badges under `/badge/`. The dataset is
the Space variable MODELCOMPAT_DATA (a folder in the Space repo, or hf://datasets/ORG/NAME); without it, the
`dataset` folder beside this file. Deploy steps: space/README.md and the project README ("The explorer").
"""

from __future__ import annotations

import os
from pathlib import Path

HERE = Path(__file__).resolve().parent


def data_location() -> str:
    return os.environ.get("MODELCOMPAT_DATA") or str(HERE / "dataset")


def build():
    from modelcompat.app import create_app

    return create_app(data_location())


def main() -> None:
    import uvicorn

    # Spaces set GRADIO_SERVER_NAME=0.0.0.0; a local run stays on this machine unless told otherwise.
    host = os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1")
    port = int(os.environ.get("GRADIO_SERVER_PORT", "7860"))
    uvicorn.run(build(), host=host, port=port)


if __name__ == "__main__":
    main()
