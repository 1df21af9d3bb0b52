#!/usr/bin/env python3
"""Checks the guide (docs/src) and the README: every internal link and anchor resolves, in the
Markdown and in the built book, every chapter is in SUMMARY.md, and every example marked
runnable (a ```sh,runnable block) runs.

The built book (docs/book.toml's build-dir, or --book) is read as well: every link and image of
every page must reach a file of the book and, with a `#fragment`, an id in it. mdBook copies
only docs/src, so a relative link from a chapter to a file elsewhere in the repository, which
resolves among the Markdown sources, is broken in the book: link such a file by the repository
URL the book is configured with (`git-repository-url`, then `/blob/main/PATH`), which is checked
against the checkout.

Runnable blocks run in order, chapter by chapter, each chapter in a fresh directory that holds
the repository's `examples/` and `circuits/` (so `qchess game --record examples/castling.pgn`
works and what an example writes stays out of the tree), with the `qchess` given by --qchess
first on PATH and the game store in that directory. A block fails when a command in it exits
non-zero (it runs under `bash -euo pipefail`) or takes longer than --timeout seconds.

Usage: scripts/check-docs.py [--qchess target/release/qchess] [--book DIR] [--no-run]
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "docs" / "src"
LINK = re.compile(r"(?<!\!)\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^(\s*)(```+|~~~+)(.*)$")


def heading_id(text, seen):
    """The anchor mdBook gives a heading: lowercase, spaces to `-`, only letters, digits, `-`
    and `_` kept; a repeated one gets `-1`, `-2`, ..."""
    text = re.sub(r"`([^`]*)`", r"\1", text)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    base = "".join(c for c in text.strip().lower().replace(" ", "-") if c.isalnum() or c in "-_")
    count = seen.get(base, 0)
    seen[base] = count + 1
    return base if count == 0 else f"{base}-{count}"


def outside_code(lines):
    """(line number, line) of the lines outside fenced code blocks."""
    fence = None
    for number, line in enumerate(lines, 1):
        match = FENCE.match(line)
        if match:
            marker = match.group(2)
            if fence is None:
                fence = marker[0] * len(marker)
            elif marker.startswith(fence):
                fence = None
            continue
        if fence is None:
            yield number, line


def anchors(path):
    seen = {}
    found = set()
    for _, line in outside_code(path.read_text().splitlines()):
        match = re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if match:
            found.add(heading_id(match.group(2), seen))
        for anchor in re.findall(r'<a\s+(?:id|name)="([^"]+)"', line):
            found.add(anchor)
    return found


def check_links(files):
    problems = []
    cache = {}
    for path in files:
        for number, line in outside_code(path.read_text().splitlines()):
            line = re.sub(r"`[^`]*`", "", line)
            for target in LINK.findall(line):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                    continue
                file_part, _, anchor = target.partition("#")
                resolved = (path.parent / file_part).resolve() if file_part else path
                where = f"{path.relative_to(ROOT)}:{number}"
                if not resolved.exists():
                    problems.append(f"{where}: link to `{target}`: {file_part} does not exist")
                    continue
                if anchor and resolved.suffix == ".md":
                    if resolved not in cache:
                        cache[resolved] = anchors(resolved)
                    if anchor not in cache[resolved]:
                        problems.append(f"{where}: link to `{target}`: no heading `#{anchor}` in {file_part or path.name}")
    return problems


def book_settings():
    """The built book's directory and the repository URL, from docs/book.toml."""
    config = tomllib.loads((ROOT / "docs" / "book.toml").read_text())
    build_dir = config.get("build", {}).get("build-dir", "book")
    repository = config.get("output", {}).get("html", {}).get("git-repository-url", "").rstrip("/")
    return (ROOT / "docs" / build_dir).resolve(), repository


class Page(HTMLParser):
    """The ids of an HTML page, its links and images (with line numbers), and its <base>."""

    LINKING = {"a": "href", "link": "href", "img": "src", "script": "src", "iframe": "src"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids = set()
        self.links = []
        self.base = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for name in ("id", "name" if tag == "a" else None):
            if name and attrs.get(name):
                self.ids.add(attrs[name])
        if tag == "base" and attrs.get("href"):
            self.base = attrs["href"]
        target = attrs.get(self.LINKING.get(tag, ""))
        if target:
            self.links.append((self.getpos()[0], target))


def read_page(path):
    page = Page()
    page.feed(path.read_text(errors="replace"))
    return page


def check_repository_url(target, repository, where):
    """A link to `repository`/blob/main/PATH (or /tree/main/PATH) must name a file (or folder)
    of the checkout."""
    match = re.match(re.escape(repository) + r"/(blob|tree)/main/([^#?]+)", target) if repository else None
    if not match:
        return []
    path = ROOT / unquote(match.group(2))
    exists = path.is_file() if match.group(1) == "blob" else path.is_dir()
    if not exists:
        return [f"{where}: link to `{target}`: the repository has no {match.group(2)}"]
    return []


def check_book(book, repository):
    """Every link and image of every page of the built book reaches a file of the book (and an
    id in it, for a #fragment); repository URLs name files of the checkout."""
    if not (book / "index.html").is_file():
        return [f"{book}: no built book here; build it first (mdbook build docs)"]
    newest_source = max(p.stat().st_mtime for p in SRC.rglob("*") if p.is_file())
    if (book / "index.html").stat().st_mtime < newest_source:
        return [f"{book}: the built book is older than docs/src; build it again (mdbook build docs)"]
    pages = {path.resolve(): read_page(path) for path in sorted(book.rglob("*.html"))}
    # The sidebar is written into toc.js as HTML text.
    toc = book / "toc.js"
    sidebar = [(1, target) for target in re.findall(r'href="([^"]+)"', toc.read_text())] if toc.exists() else []
    problems = []
    for path, page in [*pages.items(), *([(toc.resolve(), None)] if sidebar else [])]:
        links = page.links if page else sidebar
        base = path.parent if not page or page.base is None else (book if page.base.startswith("/") else path.parent)
        source = SRC / Path(path.relative_to(book)).with_suffix(".md")
        origin = f" (from {source.relative_to(ROOT)})" if source.exists() else ""
        for line, target in links:
            where = f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}:{line}{origin}"
            if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("//"):
                problems += check_repository_url(target, repository, where)
                continue
            file_part, _, anchor = target.partition("#")
            file_part = unquote(file_part.split("?")[0])
            if not file_part:
                resolved = path
            elif file_part.startswith("/"):
                resolved = (book / file_part.lstrip("/")).resolve()
            else:
                resolved = (base / file_part).resolve()
            if resolved.is_dir():
                resolved = resolved / "index.html"
            if not resolved.is_relative_to(book) or not resolved.exists():
                outside = not resolved.is_relative_to(book)
                hint = (f"; it is outside the book, which holds only docs/src: put the file there, or link it "
                        f"by its repository URL ({repository}/blob/main/PATH)" if outside else "")
                problems.append(f"{where}: link to `{target}`: not in the built book{hint}")
                continue
            if anchor and resolved.suffix == ".html":
                ids = pages[resolved].ids if resolved in pages else read_page(resolved).ids
                if unquote(anchor) not in ids:
                    problems.append(f"{where}: link to `{target}`: no id `{anchor}` in {resolved.relative_to(book)}")
    return problems


def check_summary():
    summary = (SRC / "SUMMARY.md").read_text()
    listed = {Path(m) for m in re.findall(r"\]\(([^)#]+\.md)\)", summary)}
    chapters = {p.relative_to(SRC) for p in SRC.rglob("*.md") if p.name != "SUMMARY.md"}
    problems = [f"docs/src/SUMMARY.md: `{p}` is listed but does not exist" for p in sorted(listed - chapters)]
    problems += [f"docs/src/{p}: not in SUMMARY.md" for p in sorted(chapters - listed)]
    return problems


def runnable_blocks(path):
    """(first line number, code) of each ```sh,runnable block."""
    blocks = []
    lines = path.read_text().splitlines()
    index = 0
    while index < len(lines):
        match = FENCE.match(lines[index])
        info = match.group(3).replace(" ", "") if match else ""
        if match and info.split(",")[0] in ("sh", "bash", "console") and "runnable" in info.split(","):
            start = index + 1
            index += 1
            body = []
            while index < len(lines) and not lines[index].strip().startswith(match.group(2)):
                body.append(lines[index])
                index += 1
            blocks.append((start + 1, "\n".join(body)))
        index += 1
    return blocks


def run_examples(files, qchess, timeout):
    problems = []
    ran = 0
    bin_dir = tempfile.mkdtemp(prefix="qchess-docs-bin-")
    os.symlink(Path(qchess).resolve(), Path(bin_dir) / "qchess")
    try:
        for path in files:
            blocks = runnable_blocks(path)
            if not blocks:
                continue
            with tempfile.TemporaryDirectory(prefix="qchess-docs-") as work:
                for name in ("examples", "circuits"):
                    os.symlink(ROOT / name, Path(work) / name)
                env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}", HOME=work,
                           XDG_DATA_HOME=work, QCHESS_DB=str(Path(work) / "games.db"), NO_COLOR="1")
                for line, code in blocks:
                    ran += 1
                    where = f"{path.relative_to(ROOT)}:{line}"
                    try:
                        result = subprocess.run(["bash", "-euo", "pipefail", "-c", code], cwd=work, env=env,
                                                capture_output=True, text=True, timeout=timeout)
                    except subprocess.TimeoutExpired:
                        problems.append(f"{where}: the example did not finish within {timeout} s")
                        continue
                    if result.returncode != 0:
                        tail = (result.stderr or result.stdout).strip().splitlines()[-3:]
                        problems.append(f"{where}: the example exits {result.returncode}: {' / '.join(tail)}")
    finally:
        shutil.rmtree(bin_dir, ignore_errors=True)
    return problems, ran


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--qchess", default=str(ROOT / "target" / "release" / "qchess"))
    parser.add_argument("--book", type=Path, help="the built book (default: docs/book.toml's build-dir)")
    parser.add_argument("--no-run", action="store_true", help="check links and the summary only")
    parser.add_argument("--timeout", type=float, default=120)
    options = parser.parse_args()
    files = [ROOT / "README.md"] + sorted(p for p in SRC.rglob("*.md"))
    book, repository = book_settings()
    book = options.book.resolve() if options.book else book
    problems = check_links(files) + check_summary() + check_book(book, repository)
    ran = 0
    if not options.no_run:
        found, ran = run_examples(files, options.qchess, options.timeout)
        problems += found
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"check-docs: {len(problems)} problems", file=sys.stderr)
        return 1
    print(f"check-docs: {len(files)} files and the built book, every link resolves, {ran} runnable examples ran")
    return 0


if __name__ == "__main__":
    sys.exit(main())
