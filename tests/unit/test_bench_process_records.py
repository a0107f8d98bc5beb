"""benchmarks/throughput.py: what each measured process reports as it ends (peak memory, CPU, its part)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _throughput() -> ModuleType:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        spec = importlib.util.spec_from_file_location("throughput_under_test", ROOT / "benchmarks" / "throughput.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # its dataclasses look their module up there
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
        sys.modules.pop("throughput_under_test", None)


def test_records_give_the_largest_peak_and_each_parts_cpu() -> None:
    peak, parts = _throughput().read_process_records("120000 2.500 main\n250000 11.250 gw0\n240000 10.750 gw1\n")
    assert peak == 250000
    assert parts == {"main": 2.5, "gw0": 11.25, "gw1": 10.75}


def test_a_peak_alone_counts_and_a_cut_record_is_left_out() -> None:
    # The bare client writes its peak alone; a process killed while writing leaves a partial line.
    peak, parts = _throughput().read_process_records("64000\n300000 1.0\n90000 0.5 main\n")
    assert peak == 90000 and parts == {"main": 0.5}


def test_the_probe_writes_a_record_the_reader_takes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    throughput = _throughput()
    records = tmp_path / "records"
    monkeypatch.setenv(throughput.PEAK_ENV, str(records))
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw3")
    namespace: dict[str, object] = {}
    exec(throughput.PROCESS_RECORD, namespace)
    namespace["_visioneval_bench_record"]()  # type: ignore[operator]
    peak, parts = throughput.read_process_records(records.read_text())
    assert peak > 0 and set(parts) == {"gw3"} and parts["gw3"] > 0


def test_the_split_names_the_controller_and_the_workers_and_nothing_without_workers() -> None:
    split = _throughput().cpu_by_part([{"main": 2.0, "gw0": 10.0, "gw1": 12.0}, {"main": 3.0, "gw0": 11.0, "gw1": 11.0}])
    assert split == "CPU by process: controller 2.50 (2.00-3.00) s, workers together 22.00 (22.00-22.00) s (11.00 (11.00-11.00) s each)"
    assert _throughput().cpu_by_part([{"main": 19.4}, {}]) is None
