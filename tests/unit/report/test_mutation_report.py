"""report/html_summary.py's mutation section: the suite table, a row per property family, each miss with its parameters."""

from __future__ import annotations

from bs4 import BeautifulSoup

from pytest_visioneval.report.html_summary import mutation
from pytest_visioneval.results.mutation import mutation_summary
from tests.unit.results.test_mutation import RECORDS


def rows_after(soup: BeautifulSoup, heading: str) -> list[list[str]]:
    title = soup.find(["h2", "h3"], string=heading)
    assert title is not None
    return [[td.get_text() for td in tr.select("td")] for tr in title.find_next("table").select("tbody tr")]  # type: ignore[union-attr]


def test_the_html_section_has_a_row_per_family_and_each_miss_with_its_parameters() -> None:
    soup = BeautifulSoup(mutation(mutation_summary(RECORDS)), "html.parser")
    assert "Seed 4, 2 mutants per family and case." in soup.get_text()
    assert rows_after(soup, "Mutation self-test") == [["logo", "1", "-", "-", "1/1"], ["ui", "2", "3/4", "75.0%", "0/1"]]
    assert rows_after(soup, "Per property family") == [
        ["logo", "legitimate", "-", "-", "1/1", "-"],
        ["ui", "degenerate", "1/1", "100.0%", "-", "0"],
        ["ui", "legitimate", "-", "-", "0/1", "-"],
        ["ui", "photometric", "2/2", "100.0%", "-", "1"],
        ["ui", "text", "0/1", "0.0%", "-", "0"],
    ]
    items = [li.get_text() for li in soup.select("li")]
    assert items == [
        "missed: ui/a: text/typo(line=Pay, letter=1) (the typo mutant): the suite cannot see this",
        "brittle: ui/b: legitimate/jpeg(quality=71) (the jpeg mutant) failed text.x: text.x failed",
    ]
    assert mutation({"suites": {}}) == ""
