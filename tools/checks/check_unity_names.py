#!/usr/bin/env python3
"""Names that two sources of one unity-built target both define at file scope.

The layers and the CLI compile as unity batches (cmake/PacerUnity.cmake): several .cpp files of a
target become one translation unit. A helper in an anonymous namespace (or `static`) is then
visible to the files after it in the batch. Two helpers with the same signature are a compile
error, but with different parameter types they silently become overloads, and a call in the
second file may resolve to the first file's helper. Whether two files share a batch depends on
the batch size and the order of the sources, so this check refuses any name defined at file scope
in two sources of one target, batched together today or not.

    tools/checks/check_unity_names.py SOURCE_DIR      # exit 1 and one line per shared name

The scan is lexical: a definition starts at column 0 inside `namespace {` ... `}  // namespace`
or with `static`; it sees functions, constants, types and aliases.
"""
import collections
import os
import re
import sys

FUNCTION = re.compile(r"^(?:static\s+|inline\s+|constexpr\s+)*[A-Za-z_][\w:<>,\s*&]*?[\s*&]([A-Za-z_]\w*)\s*\(")
CONSTANT = re.compile(r"^(?:static\s+)?(?:const|constexpr)\s+[\w:<>]+\s+(\w+)\s*[=\[{]")
TYPE = re.compile(r"^(?:struct|class|enum class|enum|using)\s+(\w+)")
KEYWORDS = {"if", "for", "while", "switch", "return", "operator"}


def file_scope_names(path):
    names = set()
    anonymous = 0
    with open(path, encoding="utf-8") as source:
        for line in source:
            if line.startswith("namespace {"):
                anonymous += 1
                continue
            if anonymous and line.startswith("}  // namespace"):
                anonymous -= 1
                continue
            if not (anonymous or line.startswith("static ")):
                continue
            for pattern in (FUNCTION, CONSTANT, TYPE):
                match = pattern.match(line)
                if match and match.group(1) not in KEYWORDS:
                    names.add(match.group(1))
                    break
    return names


def unity_targets(root):
    """Each layer (a folder of src/) and the CLI: the unity-built targets."""
    targets = {}
    src = os.path.join(root, "src")
    for layer in sorted(os.listdir(src)):
        folder = os.path.join(src, layer)
        if os.path.isdir(folder):
            targets["src/" + layer] = folder
    targets["apps/pacer"] = os.path.join(root, "apps", "pacer")
    return targets


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    problems = 0
    for target, folder in unity_targets(root).items():
        defined_in = collections.defaultdict(list)
        for name in sorted(os.listdir(folder)):
            if name.endswith(".cpp"):
                for symbol in file_scope_names(os.path.join(folder, name)):
                    defined_in[symbol].append(name)
        for symbol, files in sorted(defined_in.items()):
            if len(files) > 1:
                problems += 1
                print(f"{target}: '{symbol}' is defined at file scope in {', '.join(files)}: in one unity batch they "
                      "clash or silently overload; give each a specific name or share one definition")
    if problems:
        return 1
    print("unity names: no file-scope name defined twice in a target")
    return 0


if __name__ == "__main__":
    sys.exit(main())
