"""graders/page_kept.py: the words a page's source writes, still on the page at the capture."""

from __future__ import annotations

from pytest_visioneval.graders.page_kept import MIN_SOURCE_WORDS, text_kept_gate, words_of

SOURCE = """<!doctype html><html><head><title>Ignored title words</title><style>.price{color:red}</style></head>
<body><h1>Harbor mug</h1><p>A stoneware mug that keeps coffee warm.</p><button>Add to cart</button>
<script>const hidden = "script words never count";</script><template><p>template words</p></template></body></html>"""


def test_the_words_are_the_body_text_less_scripts_styles_templates_and_placeholders() -> None:
    assert words_of(SOURCE) == {"harbor", "mug", "stoneware", "that", "keeps", "coffee", "warm", "add", "cart"}
    assert words_of("<p>Hello {{ user.name }}, your ${ total } is due</p>") == {"hello", "your", "due"}


def test_a_page_that_keeps_its_words_passes_hidden_or_not() -> None:
    dom = SOURCE.replace("<p>A stoneware", '<p style="display:none">A stoneware')
    gate = text_kept_gate(SOURCE, dom, "page.html")
    assert gate is not None and gate.passed
    assert gate.reason == "9 of the 9 words page.html writes are on the page at the capture (100%)"


def test_a_page_whose_script_takes_its_content_away_fails() -> None:
    wiped = "<html><body><p>Loading...</p></body></html>"
    gate = text_kept_gate(SOURCE, wiped, "page.html")
    assert gate is not None and not gate.passed
    assert gate.reason.startswith("0 of the 9 words page.html writes are on the page at the capture (0%); need 30%")
    assert "(gone: add, cart, coffee, harbor, keeps, mug ...)" in gate.reason
    # every letter turned into an x: the words are gone though the text is as long
    lettered = "".join("x" if c.isalpha() else c for c in SOURCE.split("<body>")[1])
    gate = text_kept_gate(SOURCE, "<html><body>" + lettered, "page.html")
    assert gate is not None and not gate.passed


def test_a_page_that_builds_more_than_it_replaced_passes() -> None:
    source = "<html><body><div id='app'>Loading your order history, please wait</div></body></html>"
    built = (
        "<html><body>"
        + "".join(f"<p>Order {n}: {w} delivered on time</p>" for n, w in enumerate("mug lamp tee kettle".split()))
        + "</body></html>"
    )
    gate = text_kept_gate(source, built, "page.html")
    assert gate is not None and gate.passed and "its scripts put more in their place" in gate.reason


def test_a_source_with_too_few_words_is_not_judged() -> None:
    source = (
        "<html><body><div id='app'>"
        + " ".join(["Loading", "data", "now", "please"][: MIN_SOURCE_WORDS - 1])
        + "</div></body></html>"
    )
    assert text_kept_gate(source, "<html><body></body></html>", "page.html") is None
