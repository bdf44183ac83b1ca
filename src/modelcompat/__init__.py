"""modelcompat: does this Hugging Face checkpoint run on this accelerator backend? Evidence included."""

__version__ = "0.1.0"
