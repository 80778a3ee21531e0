"""The global protocol against checkpointing theory: bench/theory_global.py --quick (a reduced
sweep: 3 periods x 6 seeds, about 20 s) must find the simulated waste within 15% of the
first-order model and the best period within 20% of Daly's optimum. docs/theory.md has the full
sweep."""
import os
import subprocess
import sys
from pathlib import Path


def test_global_waste_follows_first_order_model_and_daly(source_dir):
    binary = Path(os.environ.get("FTSIM_BINARY", source_dir / "build" / "ftsim"))
    env = dict(os.environ, FTSIM_BUILD_DIR=str(binary.parent))
    result = subprocess.run([sys.executable, str(source_dir / "bench" / "theory_global.py"), "--quick"],
                            capture_output=True, text=True, env=env, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "check 1" in result.stdout and "check 2" in result.stdout
