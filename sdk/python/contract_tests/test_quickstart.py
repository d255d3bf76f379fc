"""Runs the quick-start of README.md against the live server, so it cannot rot."""
import re
from pathlib import Path

QUICKSTART_OUTPUT = r"ada@example\.com\ngrace@example\.com\ncontact_exists True\nsent \d+, unique opens \d+\nwebhook\.test\n"


def test_readme_quickstart_runs(capsys):
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    code = re.search(r"```python\n(.*?)```", readme, re.S).group(1)
    exec(compile(code, "README.md", "exec"), {})
    assert re.fullmatch(QUICKSTART_OUTPUT, capsys.readouterr().out)
