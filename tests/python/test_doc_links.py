"""Every relative link of the user documentation reaches something (issue 39, item 10: seven anchors were broken):
each `[text](target)` of README.md, configs/papers/README.md and docs/*.md whose target is not a URL names a file or
folder that exists, and its `#anchor`, when it has one and names a Markdown file, is a heading of that file under
GitHub's rule (the rendered text lowercased, every character but letters, digits, `_`, `-` and spaces dropped, spaces
to `-`; the second heading of the same anchor gets `-1`, the third `-2`)."""
import re

import pytest

# A link's target: up to the closing parenthesis or a space (a link title may follow).
LINK = re.compile(r"(?<!!)\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)")
FENCE = re.compile(r"^\s*(```|~~~)")


def documents(source_dir):
    return [source_dir / "README.md", source_dir / "configs" / "papers" / "README.md",
            *sorted((source_dir / "docs").glob("*.md"))]


def prose_lines(text):
    """The lines outside fenced code blocks, and outside inline code spans."""
    inside = False
    for line in text.splitlines():
        if FENCE.match(line):
            inside = not inside
            continue
        if not inside:
            yield line


def rendered(heading):
    """A heading's text as GitHub renders it: links keep their text, code spans and emphasis lose their marks."""
    heading = re.sub(r"!?\[((?:[^\]\[]|\[[^\]]*\])*)\]\([^)]*\)", r"\1", heading)
    return heading.replace("`", "")


def slug(heading):
    text = rendered(heading).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(text):
    """Every anchor of a Markdown file: its headings' slugs, numbered as GitHub numbers duplicates."""
    seen = {}
    result = set()
    for line in prose_lines(text):
        match = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not match:
            continue
        base = slug(match.group(1))
        count = seen.get(base, 0)
        seen[base] = count + 1
        result.add(base if count == 0 else f"{base}-{count}")
    return result


def links(text):
    for line in prose_lines(text):
        line = re.sub(r"`[^`]*`", "", line)
        yield from LINK.findall(line)


def broken_links(source_dir):
    broken = []
    for path in documents(source_dir):
        for target in links(path.read_text(encoding="utf-8")):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                continue
            file_part, _, anchor = target.partition("#")
            linked = (path.parent / file_part).resolve() if file_part else path
            where = f"{path.relative_to(source_dir)}: ({target})"
            if not linked.exists():
                broken.append(f"{where}: no file {file_part}")
            elif anchor and linked.suffix == ".md" and anchor not in anchors(linked.read_text(encoding="utf-8")):
                broken.append(f"{where}: no heading with anchor #{anchor} in {linked.relative_to(source_dir)}")
    return broken


def test_every_relative_link_and_anchor_resolves(source_dir):
    assert broken_links(source_dir) == []


@pytest.mark.parametrize("heading, anchor", [
    ("What a protocol sees (`sim/core/protocol_context.hpp`)", "what-a-protocol-sees-simcoreprotocol_contexthpp"),
    ("`buddy`: asynchronous differential checkpoints in a buddy's memory (Lion & Thibault 2020, Lion 2022)",
     "buddy-asynchronous-differential-checkpoints-in-a-buddys-memory-lion--thibault-2020-lion-2022"),
    ("The papers' figures (`bench/besseron2006.py`)", "the-papers-figures-benchbesseron2006py"),
    ("Against checkpoint/rollback (thesis Table 3.5)", "against-checkpointrollback-thesis-table-35"),
    ("Migration + checkpointing against checkpointing alone", "migration--checkpointing-against-checkpointing-alone"),
    ("See [the results](results.md) — *all* of them", "see-the-results--all-of-them"),
])
def test_anchors_follow_githubs_rule(heading, anchor):
    assert slug(heading) == anchor


def test_duplicate_headings_are_numbered():
    assert anchors("# A\n## Setup\n```\n# not a heading\n```\n## Setup\n### Setup\n") == {"a", "setup", "setup-1", "setup-2"}


def test_a_broken_anchor_is_found(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "configs" / "papers").mkdir(parents=True)
    (tmp_path / "configs" / "papers" / "README.md").write_text("[fine](../../docs/a.md#one)\n")
    (tmp_path / "README.md").write_text("[gone](docs/a.md#two) [missing](docs/b.md) `[code](docs/c.md)`\n")
    (tmp_path / "docs" / "a.md").write_text("# One\n[self](#one) [web](https://example.org/x#y)\n")
    assert broken_links(tmp_path) == ["README.md: (docs/a.md#two): no heading with anchor #two in docs/a.md",
                                      "README.md: (docs/b.md): no file docs/b.md"]


def test_cited_paper_notes_exist(source_dir):
    """The papers and their notes are not in the repository: they sit beside it (`papers/` of the shared folder, as
    in CI). A document cites them as `papers/...` and names a file that is there."""
    papers = source_dir.parent / "shared" / "papers"
    if not papers.is_dir():
        pytest.skip(f"{papers}: the papers' folder is not beside this checkout")
    missing = []
    for path in [source_dir / "README.md", *sorted((source_dir / "docs").glob("*.md"))]:
        for cited in re.findall(r"[\w./-]*notes/[\w.-]+\.md", path.read_text(encoding="utf-8")):
            if not cited.startswith("papers/notes/") or not (papers.parent / cited).is_file():
                missing.append(f"{path.relative_to(source_dir)}: {cited}")
    assert missing == []
