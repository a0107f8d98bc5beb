"""cli/help_text.py: docstrings shown in --help without their reStructuredText markup."""

from __future__ import annotations

from pytest_visioneval.cli.help_text import description, details, plain, prog


def test_plain_drops_literal_and_role_markup() -> None:
    assert plain("run ``visioneval diff A B`` (see :func:`pytest_visioneval.results.compare`)") == (
        "run visioneval diff A B (see pytest_visioneval.results.compare)"
    )
    assert plain(":class:`~a.b.Side` and `x`") == "Side and x"


def test_description_is_the_first_paragraph_on_one_line_and_details_the_rest() -> None:
    doc = "Compare runs:\n``visioneval compare A B``.\n\nMore, with ``code``.\n"
    assert description(doc) == "Compare runs: visioneval compare A B."
    assert details(doc) == "More, with code."
    assert description(None) == "" and details("One line.") == ""


def test_prog_is_the_console_script_and_the_command() -> None:
    assert prog("diff") == "visioneval diff"
