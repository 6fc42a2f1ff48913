#!/usr/bin/env python3
"""Checks that a binary's references to the C++ standard library bind to libstdc++: every
undefined dynamic symbol that libstdc++ defines must carry libstdc++'s symbol version (GLIBCXX_*,
CXXABI_*), not none.

PyTorch 2.11's libtorch.so exports an unversioned copy of std::filesystem; a link that met it
before libstdc++ bound pacer-train's std::filesystem calls to that copy, whose remove_all called
address 0: `pacer check` crashed removing its work folder (docs/development.md). The top
CMakeLists.txt puts libstdc++ first on every link line; this keeps it so.

    tools/checks/check_std_bindings.py BINARY...     (libstdc++: the one `ldd BINARY` resolves)
"""
import re
import subprocess
import sys


def dynamic_symbols(path):
    """(name, version, defined) of every dynamic symbol, from objdump -T."""
    out = subprocess.run(["objdump", "-T", path], capture_output=True, text=True, check=True).stdout
    symbols = []
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]+\s+.{7}\s+(\S+)\s+[0-9a-f]+\s+(?:\((\S+)\)|(\S+))?\s+(\S+)$", line)
        if not m:
            continue
        section, hidden_version, version, name = m.groups()
        symbols.append((name, hidden_version or version or "", section != "*UND*"))
    return symbols


def libstdcxx_of(binary):
    out = subprocess.run(["ldd", binary], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        m = re.match(r"\s*libstdc\+\+\.so\S*\s+=>\s+(\S+)", line)
        if m:
            return m.group(1)
    return None


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    failures = []
    for binary in argv[1:]:
        library = libstdcxx_of(binary)
        if not library:
            failures.append(f"{binary}: ldd lists no libstdc++")
            continue
        provided = {name for name, _, defined in dynamic_symbols(library) if defined}
        unbound = [name for name, version, defined in dynamic_symbols(binary)
                   if not defined and name in provided and not version.startswith(("GLIBCXX_", "CXXABI_"))]
        if unbound:
            shown = ", ".join(sorted(unbound)[:5])
            failures.append(f"{binary}: {len(unbound)} references to libstdc++'s symbols bind to another library "
                            f"(no GLIBCXX version), e.g. {shown}")
    for f in failures:
        print(f, file=sys.stderr)
    if not failures:
        print(f"every libstdc++ reference of {len(argv) - 1} binaries is versioned")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
