"""The explorer: a read-only Gradio app with a JSON API and status badges, over the query layer."""

from .server import create_app, serve

__all__ = ["create_app", "serve"]
