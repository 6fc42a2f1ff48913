#!/usr/bin/env python3
"""Checks that every flag README.md and docs/*.md show for a pacer command exists (run by CTest as DocFlags).

Usage: check_doc_flags.py ROOT PACER_BINARY

Looks at code: fenced blocks (``` or ~~~), indented code blocks and inline code spans (which may
wrap over lines). An invocation is a token `pacer` or a path ending in /pacer (build/pacer,
/opt/pacer/bin/pacer, or a shell variable set to one, P=build/pacer ... $P run) followed by a
subcommand of `pacer --help`; a subcommand with subcommands of its own (study) takes one of those
next. A command continued with a trailing backslash is one command; in a code block a comment
line that starts with a pacer invocation is checked too (a commented-out command). The command's
flags are its tokens --name (=value dropped) and -x, up to a shell operator (|, ||, &&, ;, &,
redirections) or a # comment; after a bare -- (pacer launch -n 4 -- build/pacer run ...) they
belong to the inner command, which is checked if it is pacer again. Placeholders (--<flag>) are
skipped. Each flag must be one of the subcommand's `--help` (short or long names, CLI11 format;
--help and -h always are), and a lower-case word after pacer must be a subcommand. Prints every
problem as FILE:LINE: message and exits 1 if there is any (2 if the binary's help cannot be read).
"""
import pathlib
import re
import subprocess
import sys

FENCE = re.compile(r"^\s*(```+|~~~+)")
LIST_ITEM = re.compile(r"^\s{0,3}([-*+]|\d+[.)])\s")
SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)
# A path to pacer, not NAME=path/pacer: that is a value another program's flag takes
# (bench/speed/torch_versions.py --pacer 2.15=build-torch2.15.0/pacer); P=build/pacer is ASSIGN's.
PACER = re.compile(r"^(?:[^\s=]*/)?pacer$")
ASSIGN = re.compile(r"^([A-Za-z_]\w*)=[\"']?((?:\S*/)?pacer)[\"']?;?$")
WORD = re.compile(r"^[a-z][a-z0-9_-]*(\|[a-z][a-z0-9_-]*)*$")
LONG = re.compile(r"^--[A-Za-z0-9][A-Za-z0-9_-]*$")
SHORT = re.compile(r"^-[A-Za-z]$")
OPERATOR = re.compile(r"^(\|\|?|&&?|;|\d?>>?.*|&>.*|<.*|\|&)$")
HELP_OPTION = re.compile(r"^\s{2,8}(-{1,2}[A-Za-z0-9][\w-]*(?:,-{1,2}[A-Za-z0-9][\w-]*)*)(?:\s|$)")
# Examples of mistakes the docs show on purpose (docs/errors.md: an unknown command).
DELIBERATE = {"frobnicate"}


class Help:
    """`pacer ... --help`, read once per command path."""

    def __init__(self, binary):
        self.binary = binary
        self.cache = {}

    def get(self, path):
        if path not in self.cache:
            try:
                out = subprocess.run([self.binary, *path, "--help"], capture_output=True, text=True, timeout=60)
            except (OSError, subprocess.TimeoutExpired) as e:
                print(f"check_doc_flags.py: cannot run {self.binary}: {e}", file=sys.stderr)
                sys.exit(2)
            if out.returncode != 0 or "Options:" not in out.stdout:
                print(f"check_doc_flags.py: '{' '.join([self.binary, *path, '--help'])}' failed "
                      f"(exit {out.returncode}): {out.stderr.strip()}", file=sys.stderr)
                sys.exit(2)
            flags, subcommands, section = {"--help", "-h"}, [], None
            for line in out.stdout.splitlines():
                if re.match(r"^\s*(\[Option Group: .*\]|[A-Z]\w*:)\s*$", line):
                    section = line.strip()
                    continue
                m = HELP_OPTION.match(line)
                if m and section == "Options:":
                    flags.update(m.group(1).split(","))
                elif section == "Subcommands:" and re.match(r"^\s{2}\S", line):
                    subcommands.append(line.split()[0])
            self.cache[path] = (flags, subcommands)
        return self.cache[path]


def clean(token):
    """A token without the quotes, brackets and punctuation prose puts around it ([--set ...],)."""
    return token.strip("\"'").lstrip("([{").rstrip(")]},.:;").strip("\"'")


def unquote(token):
    """A command word without quotes or grouping around it (a trailing colon stays: `pacer: error`)."""
    return token.strip("\"'").lstrip("(").rstrip(");").strip("\"'")


def code_lines(text):
    """(kind, [(line number, text)]) for each code line of a Markdown file: kind 'code' for a line
    of a fenced or indented block (backslash continuations joined), 'prose' for a paragraph."""
    lines = text.splitlines()
    out, paragraph, fence, in_list, prev_blank, in_indented = [], [], None, False, True, False

    def flush():
        if paragraph:
            out.append(("prose", list(paragraph)))
            paragraph.clear()

    pending = []  # a code command continued with backslashes
    for number, line in enumerate(lines, 1):
        m = FENCE.match(line)
        if fence is not None:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not line.strip()[len(m.group(1)):].strip():
                fence = None
                pending = []
            else:
                pending = code_line(out, pending, number, line)
            continue
        if m:
            flush()
            fence, pending = m.group(1), []
            continue
        blank = not line.strip()
        indent = len(line) - len(line.lstrip(" "))
        if LIST_ITEM.match(line):
            in_list = True
        elif not blank and indent == 0:
            in_list = False
        if not blank and indent >= 4 and not in_list and (prev_blank or in_indented):
            flush()
            in_indented = True
            pending = code_line(out, pending, number, line)
        elif blank:  # (a blank line inside an indented block does not end it)
            flush()
            pending = []
        else:
            in_indented = False
            pending = []
            if line.lstrip().startswith("|") or line.lstrip().startswith("#"):
                flush()
                out.append(("prose", [(number, line)]))
            else:
                paragraph.append((number, line))
        prev_blank = blank
    flush()
    return out


def code_line(out, pending, number, line):
    """Adds a code line (joined with the lines before it when they end in a backslash); returns
    the lines still waiting for their continuation."""
    body = line.strip()
    commented = body.startswith("#")
    if commented:
        body = body.lstrip("#").strip()
    if not pending and commented:
        first = body.split()[0] if body.split() else ""
        if not PACER.match(clean(first)):
            return []
    joined = pending + [(number, body[:-1] if body.endswith("\\") else body)]
    if body.endswith("\\"):
        return joined
    out.append(("code", joined))
    return []


def tokens_of(numbered):
    """[(line number, token)] of the text [(line number, text)]."""
    return [(number, t) for number, text in numbered for t in text.split()]


def spans(numbered):
    """The inline code spans of a paragraph, each as [(line number, text)]."""
    text = "\n".join(t for _, t in numbered)
    starts = []
    offset = 0
    for number, t in numbered:
        starts.append((offset, number))
        offset += len(t) + 1
    for m in SPAN.finditer(text):
        if "\n\n" in m.group(2):
            continue
        begin = m.start(2)
        first = max(n for o, n in starts if o <= begin)
        result = []
        for k, piece in enumerate(m.group(2).split("\n")):
            result.append((first + k, piece))
        yield result


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    root = pathlib.Path(sys.argv[1])
    help_ = Help(sys.argv[2])
    help_.get(())  # an unusable binary stops here, before any file is read
    files = [root / "README.md"] + sorted((root / "docs").glob("*.md"))
    problems, commands, flags_checked = [], 0, 0

    for doc in files:
        name = doc.relative_to(root).as_posix()
        variables = set()

        def invocation(tokens, i):
            """Checks the pacer command whose `pacer` token is tokens[i]; returns the index after it."""
            nonlocal commands
            path, j = (), i + 1
            while j < len(tokens):
                number, raw = tokens[j]
                word = unquote(raw)
                _, subcommands = help_.get(path)
                if not subcommands or not WORD.match(word):
                    break
                choices = word.split("|")
                unknown = [c for c in choices if c not in subcommands]
                if unknown:
                    if not set(unknown) <= DELIBERATE:
                        parent = " ".join(("pacer",) + path)
                        problems.append(f"{name}:{number}: {parent} {word}: '{unknown[0]}' is not a "
                                        f"subcommand in '{parent} --help'")
                    return j + 1
                if len(choices) > 1:  # pacer study list|show: check the flags against each
                    end = j + 1
                    for c in choices:
                        end = flags(tokens, j + 1, [path + (c,)])
                    commands += 1
                    return end
                path += (word,)
                j += 1
                if raw.endswith(";"):
                    break
            if not path and (j >= len(tokens) or not clean(tokens[j][1]).startswith("-")):
                return j  # `pacer` alone, or followed by prose or a placeholder: no invocation
            commands += 1
            return flags(tokens, j, [path])

        def flags(tokens, j, paths):
            nonlocal flags_checked
            while j < len(tokens):
                number, raw = tokens[j]
                token = clean(raw)
                if raw.startswith("#") or OPERATOR.match(raw):
                    return j + 1
                if raw == "--":
                    return j + 1  # what follows is another command's (pacer launch ... -- CMD)
                flag = token.split("=", 1)[0]
                if LONG.match(flag) or SHORT.match(flag):
                    flags_checked += 1
                    for path in paths:
                        known, _ = help_.get(path)
                        if flag not in known:
                            command = " ".join(("pacer",) + path)
                            problems.append(f"{name}:{number}: {command}: {flag} is not in '{command} --help'")
                j += 1
                if raw.rstrip("\"')").endswith(";"):
                    return j
            return j

        for kind, numbered in code_lines(doc.read_text(encoding="utf-8")):
            pieces = [numbered] if kind == "code" else list(spans(numbered))
            for piece in pieces:
                tokens = tokens_of(piece)
                i = 0
                while i < len(tokens):
                    raw = tokens[i][1]
                    token = unquote(raw)
                    if kind == "code" and raw.startswith("#"):
                        break  # the rest of the line is a comment
                    m = ASSIGN.match(raw)
                    if m:
                        variables.add(m.group(1))
                    var = re.fullmatch(r"\$\{?(\w+)\}?", token)
                    # In a code span pacer starts the command, after environment settings at most
                    # (`not a pacer study store` is prose); in a code block it may be anywhere.
                    starts = kind == "code" or all(re.match(r"^\w+=", t) for _, t in tokens[:i]) \
                        or (i and (tokens[i - 1][1] == "--" or OPERATOR.match(tokens[i - 1][1])))
                    if starts and (PACER.match(token) or (var and var.group(1) in variables)):
                        i = invocation(tokens, i)
                    else:
                        i += 1

    for p in problems:
        print(p)
    print(f"checked {len(files)} files, {commands} pacer commands, {flags_checked} flags: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
