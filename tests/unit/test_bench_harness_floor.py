"""benchmarks/throughput.py: pytest alone (the harness floor) and what it leaves of our CPU."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.unit.test_bench_process_records import _throughput


def _run(wall: float, cpu: float, parts: dict[str, float] | None = None) -> Any:
    """A turn of the benchmark's ``Run`` with only what these figures read: wall, CPU and CPU by process."""
    nan = float("nan")
    return _throughput().Run(wall, 0, nan, nan, nan, nan, nan, cpu, parts=parts or {})


def test_our_own_cpu_is_ours_less_the_bare_client_and_pytest_alone_turn_by_turn() -> None:
    ours = [_run(10.0, 20.0), _run(10.0, 24.0)]
    bare = [_run(8.0, 12.0), _run(8.0, 13.0)]
    floor = [_run(2.0, 2.0), _run(2.0, 3.0)]
    # Turn 1: 20 - 12 - 2 = 6 s over 1000 cases; turn 2: 24 - 13 - 3 = 8 s.
    line = _throughput().our_own_cpu(ours, bare, floor, 1000)
    assert line == "ours - bare client - pytest alone: 7.00 (6.00-8.00) ms per case, 0.32 (0.30-0.33) of our CPU"


def test_the_warm_floor_is_pytest_alone_over_our_cold_run() -> None:
    cold = [_run(10.0, 5.0), _run(20.0, 5.0)]
    warm = [_run(2.0, 2.0), _run(3.0, 2.0)]
    floor = [_run(1.0, 1.0), _run(1.6, 1.0)]
    line = _throughput().warm_against_floor(cold, warm, floor)
    assert line.startswith("pytest alone / cold 0.090 (0.080-0.100)")
    assert line.endswith("warm / pytest alone 1.94 (1.88-2.00)")


def test_the_harness_line_says_the_least_ratio_and_splits_xdist_processes() -> None:
    floor = [_run(3.0, 5.0, {"main": 1.0, "gw0": 2.0, "gw1": 2.0})]
    line = _throughput().harness_line(2, floor, [_run(8.0, 10.0)], 1000)
    assert line.startswith("pytest alone -n 2 (1000 trivial tests): CPU 5.00 (5.00-5.00) ms per test; wall 3.00 (3.00-3.00) s")
    assert "with the bare client's CPU: 1.50 (1.50-1.50) x the bare client's" in line
    assert "controller 1.00 (1.00-1.00) s, workers together 4.00" in line
    assert "bare client" not in _throughput().harness_line(0, [_run(1.0, 1.0)], [], 1000)


def test_the_harness_tests_pass_and_are_as_many_as_the_cases(tmp_path: Path) -> None:
    (tmp_path / "test_floor.py").write_text(_throughput().HARNESS_TESTS.format(cases=7))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:visioneval", str(tmp_path / "test_floor.py")],
        cwd=tmp_path, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "7 passed" in done.stdout
