"""Mutants of an HTML output: a broken page (a script error, a hidden body, images that are not images,
copied showcases), showcase pictures that are the source photo transformed, and a reformatted page.

The visibility and timing families live in :mod:`.page_visibility`; this
module also holds :class:`PageSubject`, the page as those families see it.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from functools import cached_property

from PIL import Image

from ..artifacts import Artifact
from ..graders.rendered import screenshot_name
from . import seen_by
from .base import Family, MutantClass, NotApplicable, Subject, Variant, decoded, png, replaced
from .photometric import hue_rotated

_IMG_SRC = re.compile(r"(<img\b[^>]*?\bsrc\s*=\s*)(\"[^\"]*\"|'[^']*'|[^\s>]+)", re.IGNORECASE)
_CAPTURE = screenshot_name(1)  # what the renderer writes next to the page
_FENCED = re.compile(r"```[^\n`]*\n(.*?)```", re.DOTALL)
_SCRIPT_ERROR = "<script>throw new Error('injected by the mutation self-test')</script>"


class PageSubject(Subject):
    """A page output: the HTML to mutate (inside the reply's code block when the output is a reply)."""

    @cached_property
    def page(self) -> Artifact | None:
        return next((a for a in self.artifacts if a.kind == "html"), None) or next(
            (a for a in self.artifacts if a.kind == "text"), None
        )

    @cached_property
    def reply(self) -> str:
        return self.page.data.decode("utf-8", errors="replace") if self.page is not None else ""

    @cached_property
    def block(self) -> tuple[int, int] | None:
        # A reply (reply.md) holds the page in a fenced code block: mutate inside it, where extraction will look.
        return _page_block(self.reply) if self.page is not None and self.page.kind == "text" else None

    @property
    def html(self) -> str:
        return self.reply if self.block is None else self.reply[self.block[0] : self.block[1]]

    @property
    def rendered(self) -> bool:
        return self.case.render is not None

    def with_html(self, text: str, others: tuple[tuple[Artifact, Artifact], ...] = ()) -> tuple[Artifact, ...]:
        """The output with the page's HTML replaced by ``text`` and the files in ``others`` swapped."""
        assert self.page is not None
        if self.block is not None:
            text = self.reply[: self.block[0]] + text + self.reply[self.block[1] :]
        base = replaced(self.artifacts, self.page, Artifact(self.page.name, text.encode("utf-8"), self.page.mime))
        for old, new in others:
            base = tuple(new if a.name == old.name else a for a in base)
        return base


def no_page(family: str) -> Family:
    return [], [NotApplicable(family, "the known-good output holds no page or reply")]


def broken_page(subject: PageSubject) -> Family:
    family = "broken_page"
    if subject.page is None:
        return no_page(family)
    html = subject.html
    made: list[MutantClass] = []
    skipped: list[NotApplicable] = []

    def add(name: str, breaks: str, seen: frozenset[str], description: str, text: str) -> None:
        made.append(MutantClass(family, name, True, breaks, seen, lambda rng: Variant({}, description, subject.with_html(text))))

    if subject.rendered:
        add(
            "script_error",
            "the page runs",
            seen_by.PAGE,
            "an uncaught exception thrown on load",
            before_body_end(html, _SCRIPT_ERROR),
        )
        hidden = before_body_end(html, "<style>body{display:none !important}</style>")
        add("hidden_body", "the page shows", seen_by.PAGE | {"html"}, "body { display: none }", hidden)
    else:
        skipped.append(NotApplicable(f"{family}/script_error", "the page is not rendered (no 'render' on the case)"))
    if _IMG_SRC.search(html):
        self_name = "page.html" if subject.page.kind == "text" else subject.page.name
        add(
            "img_is_the_page",
            "its images are images",
            seen_by.PAGE_IMAGES,
            f'the first <img> shows "{self_name}", the page itself',
            _first_src(html, self_name),
        )
        if subject.rendered:
            add(
                "img_is_a_capture",
                "its images are images",
                seen_by.PAGE_IMAGES,
                f'the first <img> shows "{_CAPTURE}", a capture',
                _first_src(html, _CAPTURE),
            )
    else:
        skipped.append(NotApplicable(f"{family}/img_is_the_page", "the page has no <img>"))
    targets = _showcases(subject)
    if targets:

        def copied(rng: random.Random) -> Variant | None:
            pairs, _ = _replaced(subject, targets, lambda image, r: (image, {}), rng)
            return (
                Variant({}, "every showcase image is the source image again", subject.with_html(html, pairs)) if pairs else None
            )

        made.append(MutantClass(family, "showcase_copies_source", True, SHOWCASE, seen_by.SHOWCASE, copied))
    else:
        skipped.append(NotApplicable(f"{family}/showcase_copies_source", "no source image and showcase images to copy"))
    return made, skipped


def showcase_identity(subject: PageSubject) -> Family:
    """Showcase pictures that are the source photo mirrored, rotated, cropped or hue-shifted."""
    family = "identity"
    if subject.page is None:
        return no_page(family)
    targets = _showcases(subject)
    if not targets:
        return [], [NotApplicable(f"{family}/showcase_transformed", "no source image and showcase images to transform")]

    def make(rng: random.Random) -> Variant | None:
        pairs, how = _replaced(subject, targets, _transformed, rng)
        if not pairs:
            return None
        description = "every showcase image is the source photo " + ", ".join(str(h["how"]) for h in how.values())
        return Variant({"showcases": how}, description, subject.with_html(subject.html, pairs))

    return [MutantClass(family, "showcase_transformed", True, SHOWCASE, seen_by.SHOWCASE, make)], []


def reformatted_page(subject: PageSubject) -> Family:
    family = "legitimate"
    if subject.page is None:
        return no_page(family)

    def make(rng: random.Random) -> Variant:
        indent = rng.choice((0, 2, 4, 8))
        text = "<!-- reformatted -->\n" + re.sub(r">\s*\n\s*<", ">\n" + " " * indent + "<", subject.html)
        return Variant({"indent": indent}, f"the same page, re-indented by {indent} and with a comment", subject.with_html(text))

    return [MutantClass(family, "reformatted", False, "what a person sees", frozenset(), make)], []


def before_body_end(html: str, snippet: str) -> str:
    """``snippet`` at the end of the body (or inside an SVG's root element, where it runs and styles too)."""
    lower = html.lower()
    at = lower.rfind("</body>")
    if at < 0:
        at = lower.rfind("</svg>")
    return html[:at] + snippet + html[at:] if at >= 0 else html + snippet


def _page_block(reply: str) -> tuple[int, int] | None:
    """Start and end of the content of the reply's code block that holds the page (css and js blocks
    are merged into it by extraction), else of its largest block; None without blocks."""
    blocks = [m.span(1) for m in _FENCED.finditer(reply)]
    pages = [s for s in blocks if any(tag in reply[s[0] : s[1]].lower() for tag in ("<body", "<html", "<svg"))]
    chosen = pages or blocks
    return max(chosen, key=lambda span: span[1] - span[0]) if chosen else None


def _first_src(html: str, target: str) -> str:
    return _IMG_SRC.sub(lambda m: f'{m.group(1)}"{target}"', html, count=1)


Transform = Callable[[Image.Image, random.Random], tuple[Image.Image, dict[str, object]]]
SHOWCASE = "showcase pictures differ from the source"


def _showcases(subject: PageSubject) -> list[Artifact]:
    """For a page built around a source image, the output's other image files; empty with fewer than two."""
    if not subject.case.images:
        return []
    source = subject.case.images[0].read_bytes()
    images = [a for a in subject.artifacts if a.kind == "image" and a.data != source]
    return images if len(images) >= 2 else []


def _replaced(
    subject: PageSubject, targets: list[Artifact], transform: Transform, rng: random.Random
) -> tuple[tuple[tuple[Artifact, Artifact], ...], dict[str, dict[str, object]]]:
    """Each target replaced by the source image passed through ``transform``, and how each was made."""
    source = subject.case.images[0]
    image = decoded(Artifact(source.name, source.read_bytes()))
    if image is None:
        return (), {}
    pairs, how = [], {}
    for artifact in targets:
        changed, params = transform(image.convert("RGB"), rng)
        how[artifact.name] = params
        pairs.append((artifact, Artifact(artifact.name, png(changed), artifact.mime)))
    return tuple(pairs), how


def _transformed(image: Image.Image, rng: random.Random) -> tuple[Image.Image, dict[str, object]]:
    how = rng.choice(("mirrored", "rotated", "cropped", "hue_shifted"))
    if how == "mirrored":
        return image.transpose(Image.Transpose.FLIP_LEFT_RIGHT), {"how": how}
    if how == "rotated":
        degrees = rng.choice((90, 180, 270, rng.randint(10, 30)))
        return image.rotate(degrees, expand=degrees % 90 == 0, fillcolor=(255, 255, 255)), {"how": how, "degrees": degrees}
    if how == "cropped":
        share = round(rng.uniform(0.6, 0.85), 2)
        width, height = round(image.width * share), round(image.height * share)
        left, top = rng.randint(0, image.width - width), rng.randint(0, image.height - height)
        return image.crop((left, top, left + width, top + height)), {"how": how, "share": share}
    degrees = rng.randint(40, 180)
    return hue_rotated(image, degrees), {"how": how, "degrees": degrees}
