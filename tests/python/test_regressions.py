"""Configs that once ended wrong, each kept as found by an adversarial campaign (tests/configs/regressions):
every one must now complete with the digest oracle holding.
- global_commit_before_detection_*: a replacement that had restored nothing took part in a checkpoint
  before its failure was detected, which then committed an empty state (a livelock of empty checkpoints).
- lineage_* and campaign-lineage-*: re-sent versions that arrived before their receiver applied its plan were dropped; a GO of an
  older round released the pins of a newer inventory; a node counted twice as a replacement kept waiting
  for re-executions a later plan had superseded (deadlocks ending at the time limit).
- global_buddy_multi_buddy_unrecoverable: the extra buddies of an explicit list got no replica.
- lineage_recovered_before_replaced: a failure heard while the previous plan's last DONEs were on their way
  was recorded recovered with that plan, before its node was replaced (recovered_at < replaced_at)."""
import json
from pathlib import Path

import pytest

REGRESSIONS = sorted((Path(__file__).resolve().parents[1] / "configs" / "regressions").glob("*.json"))


@pytest.mark.parametrize("config", REGRESSIONS, ids=[c.stem for c in REGRESSIONS])
def test_regression_completes_with_the_oracle(ftsim, config, tmp_path):
    result = ftsim("run", config, "-o", tmp_path, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["complete"] and results["oracle"]["ok"]
    assert all(n["inputs_missing_at_start"] == 0 for n in results["nodes"])
    for f in results["failures"]:
        assert f["recovered_at"] >= f["replaced_at"] >= f["time"], f


def test_there_are_regressions():
    assert len(REGRESSIONS) >= 8
