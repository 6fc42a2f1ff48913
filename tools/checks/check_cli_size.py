#!/usr/bin/env python3
"""Checks that the CLI only binds arguments (run by CTest as CliSize; docs/architecture.md).

The use-cases live in the library as a request struct plus a function; a command file binds its
options to the request and prints what comes back. What grows past these limits is logic that
belongs in a layer, where it can be tested in process:

1. No *_command.cpp in apps/pacer/ over MAX_FILE_LINES lines (the issue's "about 120"), except
   those in LONGER_FILES, each with its reason and its own bound.
2. No function in apps/ over MAX_FUNCTION_LINES lines (signature to closing brace, lambdas
   counted in the function that holds them).
3. No function in src/ over MAX_SRC_FUNCTION_LINES lines (issue 46), except those recorded in
   LONGER_SRC_FUNCTIONS with the length they had when the rule came: a ratchet. Such a function may
   shrink, never grow, and leaves the list once it fits (the check says so); a new long function
   is refused.

Prints every violation as FILE:LINE: message and exits 1 if there is any.
  tools/checks/check_cli_size.py [REPO_ROOT] [--list]   (--list: every function's length, longest first)
"""
import pathlib
import re
import sys

MAX_FILE_LINES = 130
# A file that must be longer, with its reason: {"name_command.cpp": bound}. None today.
LONGER_FILES = {}
MAX_FUNCTION_LINES = 60
MAX_SRC_FUNCTION_LINES = 80
# "file:function" -> its length on 2026-11-28, when the rule came (to be split, never to grow).
# dashboard_js is a page's script as one literal: data, split with the script's own modules.
LONGER_SRC_FUNCTIONS = {}

# A block opened after one of these is not a function body: the function check looks inside it.
NOT_A_FUNCTION = re.compile(r"\b(namespace|struct|class|enum|union|extern)\b[^()]*$|=\s*$|^\s*$")


def strip_code(text):
    """The text with comments, string and character literals blanked (newlines kept), so the
    braces counted are code's."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith('R"', i):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(" " * (j + 1 - i))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(text):
    """(first line, last line) of each function body at namespace or class level."""
    code = strip_code(text)
    found, stack = [], []  # stack: True for a function body, False for any other block
    statement_start = 0  # where the code before the next '{' began (after the last ; { or })
    for i, c in enumerate(code):
        if c == "{":
            head = code[statement_start:i]
            in_function = any(stack)
            is_function = not in_function and ")" in head and not NOT_A_FUNCTION.search(head.strip())
            if is_function:
                first = code.count("\n", 0, statement_start + len(head) - len(head.lstrip())) + 1
                names = re.findall(r"[~\w:]+", head[:head.find("(")])
                found.append([first, None, names[-1] if names else "?"])
            stack.append(is_function)
            statement_start = i + 1
        elif c == "}":
            if stack and stack.pop() and not any(stack):
                found[-1][1] = code.count("\n", 0, i) + 1
            statement_start = i + 1
        elif c == ";":
            statement_start = i + 1
    return [(a, b, name) for a, b, name in found if b is not None]


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    root = pathlib.Path(args[0] if args else pathlib.Path(__file__).resolve().parents[2])
    problems, lengths = [], []
    for path in sorted((root / "apps").rglob("*.cpp")):
        rel = path.relative_to(root)
        text = path.read_text()
        lines = text.count("\n")
        limit = LONGER_FILES.get(path.name, MAX_FILE_LINES)
        if path.name.endswith("_command.cpp") and lines > limit:
            problems.append(f"{rel}:1: {lines} lines; a command file binds arguments (at most {limit})")
        for first, last, _ in functions(text):
            length = last - first + 1
            lengths.append((length, f"{rel}:{first}"))
            if length > MAX_FUNCTION_LINES:
                problems.append(f"{rel}:{first}: a function of {length} lines (at most {MAX_FUNCTION_LINES}); "
                                "move its logic into the library")
    seen = set()
    for path in sorted((root / "src").rglob("*.cpp")):
        rel = path.relative_to(root)
        for first, last, name in functions(path.read_text()):
            length = last - first + 1
            key = f"{rel}:{name}"
            lengths.append((length, f"{rel}:{first} {name}"))
            bound = LONGER_SRC_FUNCTIONS.get(key)
            if bound is not None:
                seen.add(key)
                if length > bound:
                    problems.append(f"{rel}:{first}: {name} grew to {length} lines (recorded at {bound}, to be split "
                                    f"below {MAX_SRC_FUNCTION_LINES + 1}); split it instead")
                elif length <= MAX_SRC_FUNCTION_LINES:
                    problems.append(f"{rel}:{first}: {name} fits in {MAX_SRC_FUNCTION_LINES} lines now: remove "
                                    f"'{key}' from LONGER_SRC_FUNCTIONS")
            elif length > MAX_SRC_FUNCTION_LINES:
                problems.append(f"{rel}:{first}: {name}: a function of {length} lines (at most "
                                f"{MAX_SRC_FUNCTION_LINES} in src/); split it")
    for key in sorted(set(LONGER_SRC_FUNCTIONS) - seen):
        problems.append(f"tools/checks/check_cli_size.py:1: '{key}' is in LONGER_SRC_FUNCTIONS but no longer exists: remove it")
    if "--list" in sys.argv:
        for length, where in sorted(lengths, reverse=True):
            print(f"{length:4d} {where}")
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
