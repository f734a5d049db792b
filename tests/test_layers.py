"""The package's layers (.importlinter, issue #27): no import runs upward, no import cycle, no
Streamlit below the UI layer.  import-linter checks the contracts from the source (no import
of the package); a broken one fails with the linter's own report naming every offending line."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / ".importlinter"

# The `lint-imports` command's own entry point, run by this interpreter (no PATH needed).
LINT = ("import sys; from importlib.metadata import entry_points; "
        "sys.exit(entry_points(group='console_scripts', name='lint-imports')['lint-imports']"
        ".load()())")


def test_the_import_contracts_are_kept():
    out = subprocess.run([sys.executable, "-c", LINT, "--config", str(CONFIG), "--no-cache"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    report = out.stdout[out.stdout.find("Contracts\n"):]   # the report, without the logo
    assert out.returncode == 0 and "0 broken" in out.stdout, \
        f"import contract broken (.importlinter):\n{report}\n{out.stderr}"

