#!/usr/bin/env python3
"""Checks that every relative link in README.md and docs/*.md resolves (run by CTest as DocLinks).

A link is [text](target) or an image ![alt](target); web links (http, https, mailto) and pure
anchors (#...) are not followed; for a target with an anchor (file.md#part) the file must exist
and, for Markdown files, a heading must produce the anchor (GitHub's rule: lower case, spaces to
dashes, punctuation other than - and _ dropped). Prints every broken link as FILE:LINE: message
and exits 1 if there is any.
"""
import pathlib
import re
import sys

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")


def anchors(path):
    found = set()
    in_code = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_code = not in_code
            continue
        m = None if in_code else HEADING.match(line)
        if m:
            text = re.sub(r"[^\w\- ]", "", m.group(1).lower().replace("`", ""))
            found.add(text.replace(" ", "-"))
    return found


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[2])
    files = [root / "README.md"] + sorted((root / "docs").glob("*.md"))
    problems = []
    for doc in files:
        in_code = False
        for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
            if line.startswith("```"):
                in_code = not in_code
            if in_code:
                continue
            for target in LINK.findall(line):
                if re.match(r"^(https?|mailto):", target) or target.startswith("#"):
                    continue
                file_part, _, anchor = target.partition("#")
                path = (doc.parent / file_part).resolve()
                if not path.exists():
                    problems.append(f"{doc.relative_to(root)}:{number}: '{target}' does not exist")
                elif anchor and path.suffix == ".md" and anchor not in anchors(path):
                    problems.append(f"{doc.relative_to(root)}:{number}: '{target}': no heading makes '#{anchor}'")
    for p in problems:
        print(p)
    print(f"checked {len(files)} files: {len(problems)} broken link(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
