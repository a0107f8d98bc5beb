"""graders/trajectory.py: a correct trajectory passes; repeated, duplicated, input-copy and reversed ones fail."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image

from pytest_visioneval.artifacts import Artifact
from pytest_visioneval.cases.spec import CaseSpec
from pytest_visioneval.graders.base import Gate
from pytest_visioneval.graders.trajectory import TrajectoryGrader, natural_key

EXAMPLE = Path(__file__).parents[3] / "cases" / "gebench" / "multi_step"
FRAMES = sorted((EXAMPLE / "trajectory").glob("frame-*.png"), key=lambda p: natural_key(p.name))
FICTION = sorted((EXAMPLE.parent / "fiction_app" / "trajectory").glob("frame-*.png"), key=lambda p: natural_key(p.name))


def as_artifacts(paths: list[Path]) -> tuple[Artifact, ...]:
    return tuple(Artifact(f"frame-{i}.png", p.read_bytes()) for i, p in enumerate(paths, 1))


@pytest.fixture
def case(make_case: Callable[..., CaseSpec]) -> CaseSpec:
    return make_case(task="image_editing", images=(EXAMPLE / "notes-home.png",), reference=EXAMPLE / "trajectory")


def grade(case: CaseSpec, frames: tuple[Artifact, ...], **options: object) -> dict[str, Gate]:
    return {g.name: g for g in TrajectoryGrader(options).grade(case, frames).gates}


def test_the_example_trajectory_passes_every_gate(case: CaseSpec) -> None:
    gates = grade(case, as_artifacts(FRAMES))
    assert set(gates) == {"steps_differ", "no_duplicates", "differs_from_input", "in_order", "like_reference", "stays_in_app"}
    assert all(g.passed for g in gates.values()), gates
    assert gates["in_order"].reason == "the frames look like reference frames 1, 2, 3, 4, 5: in order"


def test_a_re_encoded_trajectory_still_passes(case: CaseSpec) -> None:
    def jpeg(path: Path) -> bytes:
        out = io.BytesIO()
        Image.open(path).convert("RGB").save(out, "JPEG", quality=90)
        return out.getvalue()

    frames = tuple(Artifact(f"frame-{i}.jpg", jpeg(p)) for i, p in enumerate(FRAMES, 1))
    assert all(g.passed for g in grade(case, frames).values())


def test_a_duplicated_step_fails(case: CaseSpec) -> None:
    frames = as_artifacts([FRAMES[0], FRAMES[1], FRAMES[1], FRAMES[3], FRAMES[4]])
    gate = grade(case, frames)["steps_differ"]
    assert not gate.passed
    assert gate.reason == "frame-3.png repeats frame-2.png: a step that shows the same screen is no step"


def test_identical_frames_fail_every_step(case: CaseSpec) -> None:
    gates = grade(case, as_artifacts([FRAMES[2]] * 4))
    assert not gates["steps_differ"].passed
    assert "frame-4.png repeats frame-3.png" in gates["steps_differ"].reason
    assert not gates["no_duplicates"].passed
    assert "frame-3.png is frame-1.png again" in gates["no_duplicates"].reason


def test_a_screen_that_comes_back_later_is_a_duplicate_unless_allowed(case: CaseSpec) -> None:
    frames = as_artifacts([FRAMES[0], FRAMES[1], FRAMES[0], FRAMES[4]])
    assert not grade(case, frames)["no_duplicates"].passed
    assert "no_duplicates" not in grade(case, frames, allow_repeats=True)


def test_a_frame_that_is_the_input_fails(case: CaseSpec) -> None:
    frames = as_artifacts([EXAMPLE / "notes-home.png", *FRAMES[1:]])
    gate = grade(case, frames)["differs_from_input"]
    assert not gate.passed
    assert gate.reason == "frame-1.png show(s) notes-home.png unchanged"


def test_a_reversed_trajectory_fails_in_order(case: CaseSpec) -> None:
    gate = grade(case, as_artifacts(FRAMES[::-1]))["in_order"]
    assert not gate.passed
    assert gate.reason == "the frames look like reference frames 5, 4, 3, 2, 1, in that order: the trajectory goes back"


def test_without_a_reference_folder_order_is_not_judged(make_case: Callable[..., CaseSpec]) -> None:
    case = make_case(task="image_editing", images=(EXAMPLE / "notes-home.png",))
    gates = grade(case, as_artifacts(FRAMES[::-1]))
    assert "in_order" not in gates
    assert all(g.passed for g in gates.values())


def test_natural_order_puts_frame_10_after_frame_2() -> None:
    names = [Path(f"frame-{i}.png") for i in (10, 2, 1)]
    assert [p.name for p in sorted(names, key=lambda p: natural_key(p.name))] == ["frame-1.png", "frame-2.png", "frame-10.png"]


def test_the_example_steps_keep_the_apps_palette(case: CaseSpec) -> None:
    gate = grade(case, as_artifacts(FRAMES))["stays_in_app"]
    assert gate.passed
    assert gate.reason.startswith("every frame keeps the palette of notes-home.png: at most 2.")


def test_another_apps_frames_fail_stays_in_app(case: CaseSpec) -> None:
    gate = grade(case, as_artifacts(FICTION[:5]))["stays_in_app"]
    assert not gate.passed
    assert gate.reason.startswith("frame-1.png (1")
    assert "painted in colours farther than CIEDE2000 12 from every colour of notes-home.png, more than 4%" in gate.reason
    assert gate.reason.endswith("another app's screen")


def test_one_foreign_frame_is_named(case: CaseSpec) -> None:
    gate = grade(case, as_artifacts([*FRAMES[:3], FICTION[2], FRAMES[4]]))["stays_in_app"]
    assert not gate.passed
    assert gate.reason.startswith("frame-4.png (2")
    assert "frame-1.png" not in gate.reason and "frame-5.png" not in gate.reason


def test_without_an_input_the_frames_are_compared_with_the_first(make_case: Callable[..., CaseSpec]) -> None:
    case = make_case(task="image_generation", reference=FICTION[0].parent)
    assert grade(case, as_artifacts(FICTION))["stays_in_app"].passed
    gate = grade(case, as_artifacts([FICTION[0], *FRAMES[2:]]))["stays_in_app"]
    assert not gate.passed
    assert "from every colour of frame-1.png" in gate.reason


def test_stays_in_app_can_be_turned_off(case: CaseSpec) -> None:
    assert "stays_in_app" not in grade(case, as_artifacts(FICTION[:5]), stays_in_app=False)


REAL_APP = EXAMPLE.parent / "real_app" / "trajectory"
CALENDAR = sorted(REAL_APP.glob("frame-*.png"), key=lambda p: natural_key(p.name))


def fitted(path: Path, size: tuple[int, int]) -> Artifact:
    """Another case's screen stretched to the trajectory's frame size, as a frame."""
    buffer = io.BytesIO()
    Image.open(path).convert("RGB").resize(size, Image.Resampling.LANCZOS).save(buffer, "PNG")
    return Artifact(path.name, buffer.getvalue())


@pytest.mark.parametrize("position", [0, 3])
def test_a_screen_set_into_a_trajectory_looks_like_no_reference_frame(make_case: Callable[..., CaseSpec], position: int) -> None:
    # No input screen: stays_in_app takes the first frame as the app, so a foreign first frame has to be caught here.
    case = make_case(task="image_generation", reference=REAL_APP)
    frames = list(as_artifacts(CALENDAR))
    size = Image.open(CALENDAR[0]).size
    frames[position] = fitted(FRAMES[4], size)  # the notes app's last screen: white and grey like the calendar
    gate = grade(case, tuple(frames))["like_reference"]
    assert not gate.passed
    assert gate.reason.startswith(f"{FRAMES[4].name} (")
    assert "look(s) like no reference frame while the others match theirs" in gate.reason
    assert "like_reference" not in grade(case, tuple(frames), like_reference=False)


def test_re_encoded_or_brightened_frames_are_like_the_reference(make_case: Callable[..., CaseSpec]) -> None:
    case = make_case(task="image_generation", reference=REAL_APP)
    brighter = []
    for path in CALENDAR:
        buffer = io.BytesIO()
        Image.eval(Image.open(path).convert("RGB"), lambda v: min(255, v + 5)).save(buffer, "JPEG", quality=70)
        brighter.append(Artifact(path.name, buffer.getvalue()))
    gate = grade(case, tuple(brighter))["like_reference"]
    assert gate.passed, gate.reason


def test_frames_drawn_in_another_style_throughout_are_not_strays(make_case: Callable[..., CaseSpec]) -> None:
    # A model that draws every screen its own way differs from the reference everywhere alike.
    case = make_case(task="image_generation", reference=REAL_APP)
    inverted = []
    for path in CALENDAR:
        buffer = io.BytesIO()
        Image.eval(Image.open(path).convert("RGB"), lambda v: 255 - v).save(buffer, "PNG")
        inverted.append(Artifact(path.name, buffer.getvalue()))
    assert grade(case, tuple(inverted))["like_reference"].passed


def test_likeness_is_not_judged_for_a_short_trajectory(make_case: Callable[..., CaseSpec]) -> None:
    # With one other frame, a given first screen copied as it is would make any drawn step look like a stray.
    case = make_case(task="image_generation", reference=REAL_APP)
    size = Image.open(CALENDAR[0]).size
    frames = (*as_artifacts(CALENDAR[:2]), fitted(FRAMES[4], size))
    assert "like_reference" not in grade(case, frames)
