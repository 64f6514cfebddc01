"""MkDocs hooks (``hooks:`` in mkdocs.yml): the pages generated from the code, and links that leave docs/.

- ``reference/cli.md``: every command and option, from the command line's own parser
  (:func:`harness.cli.reference.render`); ``reference/glossary.md``: the glossary, from the
  docstring of :mod:`harness`.  Both are made at build time and never committed, so they
  cannot go stale.
- Links from a page to a file outside ``docs/`` (``../../reports/solbat/summary.md``) work
  on GitHub but not in the site: they point at the repository (``repo_url``) when
  mkdocs.yml sets it, else they are shown as the path.
"""

from __future__ import annotations

import posixpath
import re

from mkdocs.structure.files import File

GENERATED = {"reference/cli.md", "reference/glossary.md"}


def _glossary() -> str:
    import harness

    doc = harness.__doc__ or ""
    lines = doc.splitlines()
    out = ["# Glossary", "",
           "The project's vocabulary: each word below has exactly this meaning in the code, the store's "
           "columns, the reports and these pages. This page is generated from the docstring of "
           "`harness/__init__.py` each time the site is built.", ""]
    first_term = next(i for i, line in enumerate(lines)
                      if line and not line[0].isspace() and i + 1 < len(lines) and lines[i + 1].startswith("    "))
    intro = " ".join(" ".join(lines[1:first_term]).split())
    out += [_rst(intro), ""]
    term, body = None, []

    def flush() -> None:
        if term is not None:
            out.extend([f"**{term}**", f":   {_rst(' '.join(' '.join(body).split()))}", ""])

    for line in lines[first_term:]:
        if line and not line[0].isspace():
            flush()
            term, body = line.strip(), []
        elif line.strip():
            body.append(line.strip())
    flush()
    return "\n".join(out)


def _rst(text: str) -> str:
    """reStructuredText inline markup (``code``) as Markdown."""
    return re.sub(r"``(.+?)``", r"`\1`", text)


def on_files(files, config):
    from harness.cli.reference import render

    for uri, content in (("reference/cli.md", render()), ("reference/glossary.md", _glossary())):
        old = files.get_file_from_path(uri)
        if old is not None:  # a stray committed copy: the generated page wins
            files.remove(old)
        files.append(File.generated(config, uri, content=content))
    return files


_LINK = re.compile(r"(?<!!)\[([^\]\n]+)\]\(([^)\s]+)\)")


def on_page_markdown(markdown, page, config, files):
    base = posixpath.dirname(page.file.src_uri)
    repo = (config.get("repo_url") or "").rstrip("/")

    def fix(match: re.Match) -> str:
        text, target = match.group(1), match.group(2)
        if re.match(r"^[a-z]+:|^#|^/", target):
            return match.group(0)
        path, _, anchor = target.partition("#")
        inside = posixpath.normpath(posixpath.join(base, path))
        if not inside.startswith("../"):
            return match.group(0)
        in_repo = posixpath.normpath(posixpath.join("docs", inside))
        if repo:
            kind = "tree" if path.endswith("/") else "blob"
            return f"[{text}]({repo}/{kind}/HEAD/{in_repo}{'#' + anchor if anchor else ''})"
        shown = f"`{in_repo}`"
        return shown if text.strip("`") in (in_repo, path, in_repo.rstrip("/")) else f"{text} ({shown})"

    parts = re.split(r"(^```.*?^```)", markdown, flags=re.S | re.M)
    return "".join(part if part.startswith("```") else _LINK.sub(fix, part) for part in parts)
