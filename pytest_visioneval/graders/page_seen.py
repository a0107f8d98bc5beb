"""Gates on what a person sees of a rendered page, read from ``render.json``'s ``text``.

The renderer measures it right after the captures (``pages/seen_text.py``): which text is seen, which is
hidden, covered, clipped, off-screen or the colour of what is beneath it, the blocks of unseen text
(with why a block is the page working as meant: a closed menu, a modal, a tab, a screen-reader label),
the elements that cover text and the rendered tables. Used by ``render_check`` (``not_covered``,
``text_shown``, ``tables_filled``) and by ``html``'s ``required_text`` on rendered pages (its reasons).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .base import Gate

MAX_COVERED_SHARE = 0.25
MAX_COVER_VIEWPORT = 0.5
MAX_FAINT_SHARE = 0.1


def seen_record(report: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The ``text`` measurement of the report, or None when the page was not measured."""
    record = (report or {}).get("text")
    if not isinstance(record, dict) or not isinstance(record.get("chars"), dict):
        return None
    return record


def not_measured(name: str, report: Mapping[str, Any] | None) -> Gate:
    why = (report or {}).get("measure_error") or "render.json holds no measurement of the page"
    return Gate(name, False, f"the rendered page could not be measured: {why}")


def at_capture(report: Mapping[str, Any] | None) -> str:
    """When the protocol captures the page: "at the capture (2.0 s after load)".

    The nominal time (the last screenshot's, from the render options), not the measured one: a reason
    reads the same in every run (the measurement follows within a fraction of a second).
    """
    after = (report or {}).get("capture_after_load_s")
    return f"at the capture ({after:.1f} s after load)" if isinstance(after, (int, float)) else "at the capture"


def describe(state: str, why: str, element: str) -> str:
    """Why a piece of text is not seen, as a reader would say it."""
    if state == "covered":
        return f"covered by {element}"
    if state == "hidden":
        if why == "no size":
            return f"hidden ({element} has no size)"
        if why in ("not rendered", "inside a closed <details>"):
            return f"hidden ({why}: {element})"
        return f"hidden ({why} on {element})"
    if state == "clipped":
        return f"clipped away ({why} on {element})"
    if state == "off-screen":
        return f"off-screen ({element} is outside the page)"
    if state == "faint":
        return f"invisible: {why} ({element})"
    return f"{state} ({why}, {element})"


def _painted(chars: Mapping[str, Any]) -> int:
    """Characters laid out on the page (not hidden by CSS): what could be seen, covered or not."""
    return int(chars.get("total", 0)) - int(chars.get("hidden", 0))


def not_covered_gate(report: Mapping[str, Any], max_share: float, max_viewport: float) -> Gate:
    """No element covers much of the page's text, and none that spans most of the viewport covers any."""
    record = seen_record(report)
    if record is None:
        return not_measured("not_covered", report)
    chars = record["chars"]
    covered, painted = int(chars.get("covered", 0)), _painted(chars)
    covering = [c for c in record.get("covering") or () if isinstance(c, dict)]
    pictures = int((record.get("drawn") or {}).get("covered", 0))
    if (not covered or not painted) and not pictures:
        return Gate("not_covered", True, f"no text is covered {at_capture(report)}")
    share = covered / painted if painted else 0.0
    top = covering[0] if covering else {"element": "another element", "viewport_share": 0.0}
    wide = next((c for c in covering if float(c.get("viewport_share", 0)) >= max_viewport), None)
    if wide is not None:
        drawn = int(wide.get("drawn") or 0)
        also = f" and {drawn} picture(s) or drawn shape(s)" if drawn else ""
        return Gate(
            "not_covered",
            False,
            f"{wide['element']} covers {float(wide['viewport_share']):.0%} of the viewport and {int(wide['chars'])} characters "
            f"of the page's text{also} {at_capture(report)} ({share:.0%} of its text is covered; "
            f"an element over {max_viewport:.0%} of the viewport may cover none)",
        )
    if not covered or not painted:  # pictures under something small (a badge, a caption): a page working as meant
        return Gate("not_covered", True, f"no text is covered {at_capture(report)}")
    passed = share <= max_share
    return Gate(
        "not_covered",
        passed,
        f"{share:.0%} of the page's text is covered {at_capture(report)}, most by {top['element']} "
        f"({float(top.get('viewport_share', 0)):.0%} of the viewport); allowed {max_share:.0%}",
    )


def text_shown_gate(report: Mapping[str, Any], max_faint: float) -> Gate:
    """No one unseen block holds as much content as the page shows, and little text is invisible in place."""
    record = seen_record(report)
    if record is None:
        return not_measured("text_shown", report)
    chars = record["chars"]
    shown_items = int(record.get("seen_items", 0))
    blocks = [b for b in record.get("hidden_blocks") or () if isinstance(b, dict) and b.get("exempt") is None]
    biggest = max(blocks, key=lambda b: int(b.get("items", 0)), default=None)
    if biggest is not None:
        what = describe(str(biggest["state"]), str(biggest["why"]), str(biggest.get("by") or biggest["element"]))
        if int(biggest["items"]) >= max(1, shown_items):
            return Gate(
                "text_shown",
                False,
                f"{biggest['element']} is {what} {at_capture(report)}: it holds {int(biggest['items'])} pieces of "
                f"content (text, pictures or drawn shapes; {int(biggest['chars'])} characters of text), "
                f"as many as or more than the {shown_items} the page shows",
            )
        together = sum(int(b.get("items", 0)) for b in blocks)
        if len(blocks) > 1 and together >= max(1, shown_items):
            # Cut into pieces (each section its own block, as when the page's body clips them): counted together.
            return Gate(
                "text_shown",
                False,
                f"{len(blocks)} parts of the page are not seen {at_capture(report)} (the largest, {biggest['element']}, "
                f"is {what}): together they hold {together} pieces of content, as many as or more than the "
                f"{shown_items} the page shows",
            )
    painted = _painted(chars)
    faint = int(chars.get("faint", 0))
    if painted and faint / painted > max_faint:
        example = next((b for b in record.get("hidden_blocks") or () if isinstance(b, dict) and b.get("state") == "faint"), None)
        which = f" ({describe('faint', str(example['why']), str(example['by']))})" if example else ""
        return Gate(
            "text_shown",
            False,
            f"{faint / painted:.0%} of the page's laid-out text is invisible in place{which} {at_capture(report)}; "
            f"allowed {max_faint:.0%}",
        )
    seen, total = int(chars.get("seen", 0)), int(chars.get("total", 0))
    detail = f"; the largest unseen block, {biggest['element']}, holds {int(biggest['items'])}" if biggest is not None else ""
    return Gate(
        "text_shown",
        True,
        f"{seen} of {total} characters of text are seen {at_capture(report)}, {shown_items} pieces of content shown{detail}",
    )


def tables_filled_gate(report: Mapping[str, Any]) -> Gate:
    """Every rendered table with a header shows something in its body cells."""
    record = seen_record(report)
    if record is None:
        return not_measured("tables_filled", report)
    tables = [t for t in record.get("tables") or () if isinstance(t, dict)]
    headed = [t for t in tables if int(t.get("header_cells", 0)) > 0]
    empty = [t for t in headed if int(t.get("filled_cells", 0)) == 0]
    if empty:
        listed = "; ".join(
            f"{t['element']} ({int(t['header_cells'])} header cells, {int(t['body_cells'])} body cells, none showing anything)"
            for t in empty
        )
        return Gate(
            "tables_filled",
            False,
            f"{len(empty)} of {len(headed)} table(s) with a header show no data {at_capture(report)}: {listed}",
        )
    if not headed:
        return Gate("tables_filled", True, "no rendered table with a header")
    return Gate("tables_filled", True, f"all {len(headed)} table(s) with a header show data {at_capture(report)}")


def why_not_seen(report: Mapping[str, Any] | None, wanted: str) -> str:
    """Why ``wanted`` is not in the seen text: where it is and what hides it, or that it is not on the page."""
    record = seen_record(report) or {}
    unseen = [u for u in record.get("unseen") or () if isinstance(u, dict)]
    needle = _normalize(wanted)
    entry = next((u for u in unseen if needle in _normalize(str(u.get("text", "")))), None)
    if entry is None:
        entry = _spanning(unseen, needle)
    if entry is not None:
        return f"{wanted!r} is {describe(str(entry['state']), str(entry['why']), str(entry['element']))} {at_capture(report)}"
    return f"{wanted!r} is not on the page {at_capture(report)}"


def _spanning(unseen: Sequence[Mapping[str, Any]], needle: str) -> Mapping[str, Any] | None:
    """The entry where ``needle`` starts when it runs over several unseen text nodes ("Arc <b>desk</b> lamp")."""
    joined, starts = "", []
    for entry in unseen:
        starts.append(len(joined))
        joined += _normalize(str(entry.get("text", ""))) + " "
    at = joined.find(needle)
    if at < 0:
        return None
    return unseen[max(i for i, start in enumerate(starts) if start <= at)]


def _normalize(text: str) -> str:
    return " ".join(text.split()).casefold()
