"""Runs the quick-start of README.md against the live server, so it cannot rot."""
import re
from pathlib import Path


def test_readme_quickstart_runs(capsys):
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    code = re.search(r"```python\n(.*?)```", readme, re.S).group(1)
    exec(compile(code, "README.md", "exec"), {})
    assert re.fullmatch(r"sent \d+, unique opens \d+\n404 not_found\nwebhook\.test\n", capsys.readouterr().out)
