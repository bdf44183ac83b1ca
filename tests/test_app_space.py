"""The Space deploy files agree with the project: front matter, pins, and an app that builds without torch."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from test_app_data import sample_rows, write_dataset

ROOT = Path(__file__).parents[1]
SPACE = ROOT / "space"


def front_matter() -> dict[str, str]:
    text = (SPACE / "README.md").read_text()
    assert text.startswith("---\n")
    block = text.split("---\n")[1]
    return {k.strip(): v.strip().strip('"') for k, v in (line.split(":", 1) for line in block.splitlines())}


def pins(path: Path) -> dict[str, str]:
    lines = [line.split("#")[0].strip() for line in path.read_text().splitlines()]
    return dict(line.split("==") for line in lines if "==" in line)


def test_front_matter_names_the_gradio_sdk_and_app():
    meta = front_matter()
    assert meta["sdk"] == "gradio" and (SPACE / meta["app_file"]).is_file()
    assert meta["sdk_version"] == pins(ROOT / "requirements.txt")["gradio"]


def test_space_pins_match_the_project():
    project, space = pins(ROOT / "requirements.txt"), pins(SPACE / "requirements.txt")
    assert space and all(project[name] == version for name, version in space.items())
    assert "torch" not in (SPACE / "requirements.txt").read_text().split("#", 1)[0]


def test_space_app_builds_and_never_imports_torch(tmp_path):
    data = write_dataset(tmp_path / "ds", sample_rows())
    code = ("import sys, app; from fastapi.testclient import TestClient; "
            "r = TestClient(app.build()).get('/api/models/Qwen/Qwen3-0.6B'); "
            "print(r.status_code, r.json()['result'], 'torch' in sys.modules, 'transformers' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], cwd=SPACE, capture_output=True, text=True, timeout=120,
                          env={"PATH": "/usr/bin:/bin", "MODELCOMPAT_DATA": str(data), "HF_HUB_OFFLINE": "1",
                               "GRADIO_ANALYTICS_ENABLED": "False", "HOME": str(tmp_path)})
    assert done.stdout.split() == ["200", "PASS", "False", "False"], done.stderr[-2000:]
