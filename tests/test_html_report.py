"""The HTML report and review queue: what they hold, that passages are shown as text, and that the page
works in a real browser, offline."""

from __future__ import annotations

import csv
import json
import shutil

import pytest

from agentkgv.core.verdict import EvidenceRef, Verdict
from agentkgv.data.records import Triple
from agentkgv.eval.html_report import highlight, write_report


def verdicts_file(tmp_path):
    rows = [
        Verdict("t1", Triple("Billy Wilder", "death place", "Beverly Hills, California"), True, "agentkgv", gold=True,
                confidence=0.93, evidence=[EvidenceRef("p1", "Wilder died in Beverly Hills in 2002.", "Wilder")]),
        Verdict("t2", Triple("Billy Wilder", "birth place", "Vienna"), False, "agentkgv", gold=True, confidence=0.55,
                evidence=[EvidenceRef("p2", "<script>alert(1)</script> Wilder was born in Sucha.", "Wilder")]),
        Verdict("t3", Triple("Ada Lovelace", "spouse", "Charles Babbage"), None, "agentkgv", gold=False),
    ]
    path = tmp_path / "verdicts.jsonl"
    path.write_text("".join(json.dumps(v.to_json()) + "\n" for v in rows))
    (tmp_path / "verdicts.jsonl.settings.json").write_text(json.dumps(
        {"method": "agentkgv", "index": {"name": "mine", "fingerprint": "0123456789abcdef"}}))
    return path


def test_report_holds_counts_scores_and_marked_evidence_and_loads_nothing(tmp_path):
    page, queue = tmp_path / "report.html", tmp_path / "review.csv"
    summary = write_report(verdicts_file(tmp_path), page, queue, review_below=0.7)
    html = page.read_text()
    assert summary.triples == 3 and summary.review == 2
    assert 'mark class="object">Beverly Hills</mark>' in html and 'mark class="subject">Wilder</mark>' in html
    assert "&lt;script&gt;alert(1)" in html and "<script>alert(1)" not in html  # passages are data
    assert "mine" in html and "0123456789abcdef" in html and "macro-F1" in html
    assert "http://" not in html and "https://" not in html and "<link" not in html
    rows = list(csv.DictReader(queue.open()))
    assert [(r["id"], r["why"]) for r in rows] == [("t3", "no verdict"), ("t2", "confidence 0.55 < 0.70")]
    assert rows[0]["reviewer_verdict"] == "" and "Sucha" in rows[1]["first_evidence"]


def test_highlight_marks_names_and_their_parts_case_blind():
    marked = str(highlight("born in VIENNA, austria", {"subject": ["x"], "object": ["Vienna, Austria"]}))
    assert marked == 'born in <mark class="object">VIENNA, austria</mark>'
    assert str(highlight("a < b", {"subject": ["Vienna"]})) == "a &lt; b"
    aliased = str(highlight("a Danish painter", {"subject": ["Paul Fischer"], "object": ["Denmark", "Danish"]}))
    assert aliased == 'a <mark class="object">Danish</mark> painter'
    assert str(highlight("he himself", {"object": ["Elf"]})) == "he himself"  # whole words only


def _browser() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    pytest.skip("no Chromium on PATH (Debian: apt-get install chromium); the page is checked only in a real browser")


def test_report_page_searches_and_sorts_in_a_headless_browser(tmp_path):
    executable = _browser()
    playwright = pytest.importorskip("playwright.sync_api", reason="playwright (the dev extra) drives the browser")
    page_path = tmp_path / "report.html"
    write_report(verdicts_file(tmp_path), page_path, tmp_path / "review.csv", review_below=0.7)
    with playwright.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        page = browser.new_page()
        requests, errors = [], []
        page.on("request", lambda request: requests.append(request.url))
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(page_path.as_uri())
        assert page.inner_text("#shown") == "3 of 3 shown"
        page.fill("#search", "beverly")
        assert page.inner_text("#shown") == "1 of 3 shown"
        page.fill("#search", "")
        page.check("#review-only")
        assert page.inner_text("#shown") == "2 of 3 shown"
        page.uncheck("#review-only")
        page.click("#triples th:has-text('Confidence')")  # ascending: the no-confidence row first
        first = lambda: page.inner_text("#triples tbody tr:first-child td:first-child")  # noqa: E731
        assert first() == "t3"
        page.click("#triples th:has-text('Confidence')")
        assert first() == "t1"
        browser.close()
    assert errors == [] and all(url.startswith("file://") for url in requests)
