from __future__ import annotations

from pytest_visioneval.plugin.shard import in_shard, shard_of

IDS = [f"cases/s{i % 7}.eval.yaml::s{i % 7}/case-{i}" for i in range(1000)]


def test_every_item_is_in_exactly_one_shard() -> None:
    for n in (1, 2, 3, 8):
        for nodeid in IDS:
            assert sum(in_shard(nodeid, k, n) for k in range(1, n + 1)) == 1


def test_split_is_stable_and_roughly_even() -> None:
    assert [shard_of(i, 4) for i in IDS] == [shard_of(i, 4) for i in IDS]
    assert shard_of("cases/a.eval.yaml::a/x", 4) == 0  # fixed: the same on every machine and Python run
    sizes = [sum(shard_of(i, 4) == k for i in IDS) for k in range(4)]
    assert all(200 <= size <= 300 for size in sizes), sizes


def test_adding_a_case_moves_no_other_case() -> None:
    before = {i: shard_of(i, 3) for i in IDS}
    after = {i: shard_of(i, 3) for i in [*IDS, "cases/new.eval.yaml::new/one"]}
    assert all(after[i] == before[i] for i in IDS)
