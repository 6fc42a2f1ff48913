#!/usr/bin/env python3
"""Checks that a binary loads exactly one LibTorch: every libtorch*/libc10* library that `ldd`
resolves for it lies in TORCH_LIB_DIR, and none is missing.

A build against a pip torch on a machine that also has Debian's LibTorch once linked Debian's
libtorch.so.1.13 and libc10.so.1.13 beside the wheel's libtorch.so and libc10.so (TorchConfig's
find_library searched the system's folders first): two LibTorch versions in one process.

    tools/checks/check_one_libtorch.py TORCH_LIB_DIR BINARY...
"""
import os
import re
import subprocess
import sys


def torch_libraries(binary):
    out = subprocess.run(["ldd", binary], capture_output=True, text=True, check=True).stdout
    found = []
    for line in out.splitlines():
        m = re.match(r"\s*(\S+)\s+=>\s+(\S+|not found)", line)
        if m and re.match(r"lib(torch|c10)\w*\.so", m.group(1)):
            found.append((m.group(1), m.group(2)))
    return found


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    want = os.path.realpath(argv[1])
    failures = []
    for binary in argv[2:]:
        libraries = torch_libraries(binary)
        if not libraries:
            failures.append(f"{binary}: ldd lists no LibTorch library")
        for name, path in libraries:
            if path == "not found":
                failures.append(f"{binary}: {name} not found")
            elif os.path.dirname(os.path.realpath(path)) != want:
                failures.append(f"{binary}: {name} => {path}, outside this build's LibTorch ({want})")
        names = [n for n, _ in libraries if n.startswith("libc10.so") or n.startswith("libc10.")]
        if len(names) > 1:
            failures.append(f"{binary}: more than one libc10 ({', '.join(names)})")
    for f in failures:
        print(f, file=sys.stderr)
    if not failures:
        print(f"one LibTorch ({want}) in {len(argv) - 2} binaries")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
