"""The README's quick start runs as written and prints what it claims."""
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_quick_start_runs_and_the_uniform_vote_has_c_bound_one():
    text = (ROOT / "README.md").read_text()
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    # the uniform vote over a self-complemented pool is identically 0: its C-bound is 1
    assert "C-bound of the uniform vote: 1.0\n" in out.stdout
    assert "c_bound" in out.stdout
