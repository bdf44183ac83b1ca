"""Run every bench/bench_*.py module in turn (another engineer's bench files are picked up as they appear)."""

import importlib
import pkgutil
from pathlib import Path


def main() -> None:
    for module in sorted(m.name for m in pkgutil.iter_modules([str(Path(__file__).parent)])):
        if module.startswith("bench_"):
            print(f"== bench.{module}")
            importlib.import_module(f"bench.{module}").main()


if __name__ == "__main__":
    main()
