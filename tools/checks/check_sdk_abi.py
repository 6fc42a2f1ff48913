#!/usr/bin/env python3
"""The SDK's ABI check (CTest SdkAbi): the layout of every type a plugin shares with pacer, read by
libabigail's abidw from the debug information of tests/abi/sdk_surface.cpp's library, against the
committed baseline tests/abi/sdk_layout.txt.

    tools/checks/check_sdk_abi.py build/tests/libpacer_sdk_surface.so            # the check
    tools/checks/check_sdk_abi.py build/tests/libpacer_sdk_surface.so --update   # record a change

For each class of namespace pacer: its size, its bases and their offsets, every field (type, name,
offset in bits) and every virtual function with its vtable slot. A field reordered, retyped,
added or removed, a virtual function added anywhere (the slots after it move) or removed, a base
changed: the check fails and prints the difference. `--update` then records the new layout and,
when an existing class changed or went away (a plugin built before would misread it), raises
kSdkAbiVersion in src/algorithms/plugin_manifest.h itself, so that pacer refuses such plugins by
number; a class that is only new, or a field only renamed (same type, same offset), keeps the version. abidiff alone is not used: it compares
functions that have ELF symbols, and an inline virtual function added to TrainingAlgorithm has
none (measured: exit 0 for that change; the layout lines above see it).
"""
import argparse
import difflib
import pathlib
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

ROOT = pathlib.Path(__file__).resolve().parents[2]
BASELINE = ROOT / "tests" / "abi" / "sdk_layout.txt"
MANIFEST = ROOT / "src" / "algorithms" / "plugin_manifest.h"
VERSION = re.compile(r"constexpr int kSdkAbiVersion = (\d+);")


def layout(library):
    abidw = shutil.which("abidw")
    if not abidw:  # CTest counts 77 as a skip (SKIP_RETURN_CODE), as the Chromium tests skip without it
        print("check_sdk_abi: abidw is missing (Debian's abigail-tools; scripts/setup.sh installs it): skipped")
        sys.exit(77)
    xml = subprocess.run([abidw, library], check=True, capture_output=True).stdout
    root = ET.fromstring(xml)
    parent, by_id = {}, {}
    for el in root.iter():
        for child in el:
            parent[child] = el
        if "id" in el.attrib:
            by_id[el.attrib["id"]] = el

    def type_name(type_id, depth=0):
        el = by_id.get(type_id)
        if el is None or depth > 8:
            return "?"
        inner = el.get("type-id")
        if el.tag == "pointer-type-def":
            return type_name(inner, depth + 1) + "*"
        if el.tag == "reference-type-def":
            return type_name(inner, depth + 1) + ("&&" if el.get("kind") == "rvalue" else "&")
        if el.tag == "qualified-type-def":
            return ("const " if el.get("const") == "yes" else "") + type_name(inner, depth + 1)
        if el.tag == "array-type-def":
            return type_name(el.get("element-type-id"), depth + 1) + "[%s]" % el.get("size-in-bits", "?")
        return el.get("name", el.tag)

    def scope(el):
        names = []
        p = parent.get(el)
        while p is not None:
            if p.tag in ("namespace-decl", "class-decl") and p.get("name"):
                names.append(p.get("name"))
            p = parent.get(p)
        return "::".join(reversed(names))

    classes = {}
    for cls in root.iter("class-decl"):
        if cls.get("is-declaration-only") == "yes" or not cls.get("name"):
            continue
        where = scope(cls)
        if where != "pacer" and not where.startswith("pacer::"):
            continue
        name = where + "::" + cls.get("name")
        lines = ["%s size %s" % (name, cls.get("size-in-bits"))]
        for base in cls.findall("base-class"):
            lines.append("  base %s at %s" % (type_name(base.get("type-id")), base.get("layout-offset-in-bits")))
        for member in cls.findall("data-member"):
            if member.get("static") == "yes":
                continue
            var = member.find("var-decl")
            lines.append("  field %s %s at %s" % (type_name(var.get("type-id")), var.get("name"),
                                                  member.get("layout-offset-in-bits")))
        for function in cls.findall("member-function"):
            if function.get("vtable-offset") is None:
                continue
            lines.append("  virtual %s at %s" % (function.find("function-decl").get("name"),
                                                 function.get("vtable-offset")))
        classes[name] = "\n".join(lines)
    if not classes:
        sys.exit("check_sdk_abi: no class of namespace pacer in %s (built without debug information?)" % library)
    return classes


def read_baseline():
    text = BASELINE.read_text() if BASELINE.exists() else ""
    version = re.search(r"^# kSdkAbiVersion (\d+)$", text, re.M)
    classes = {}
    for block in re.split(r"\n(?=\S)", "\n".join(l for l in text.splitlines() if not l.startswith("#"))):
        if block.strip():
            classes[block.split(" ", 1)[0]] = block.rstrip()
    return (int(version.group(1)) if version else None), classes


def write_baseline(version, classes):
    BASELINE.write_text("# The SDK's layout as tools/checks/check_sdk_abi.py reads it (written by its --update).\n"
                        "# kSdkAbiVersion %d\n%s\n" % (version, "\n".join(classes[k] for k in sorted(classes))))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("library", help="the built libpacer_sdk_surface.so")
    parser.add_argument("--update", action="store_true", help="record the current layout (raising the version if needed)")
    args = parser.parse_args()
    now = layout(args.library)
    version = int(VERSION.search(MANIFEST.read_text()).group(1))
    recorded_version, recorded = read_baseline()
    # A field renamed at the same offset with the same type is a source change, not a binary one:
    # plugins built before still read it right, so it is recorded without raising the version.
    unnamed = lambda block: re.sub(r"^(  field .+) \S+ at (\d+)$", r"\1 at \2", block, flags=re.M)
    renamed = sorted(k for k in recorded if k in now and recorded[k] != now[k] and unnamed(recorded[k]) == unnamed(now[k]))
    changed = sorted(k for k in recorded if k in now and recorded[k] != now[k] and k not in renamed)
    removed = sorted(k for k in recorded if k not in now)
    added = sorted(k for k in now if k not in recorded)
    same_version = recorded_version == version
    if not changed and not removed and not added and not renamed and same_version:
        print("check_sdk_abi: the SDK's layout is as recorded (%d classes, kSdkAbiVersion %d)" % (len(now), version))
        return 0
    if args.update:
        if (changed or removed) and version == recorded_version:
            version += 1
            MANIFEST.write_text(VERSION.sub("constexpr int kSdkAbiVersion = %d;" % version, MANIFEST.read_text(), 1))
            print("check_sdk_abi: kSdkAbiVersion raised to %d in %s" % (version, MANIFEST.relative_to(ROOT)))
        write_baseline(version, now)
        print("check_sdk_abi: recorded %d classes in %s (changed %d, removed %d, added %d, fields renamed %d)" % (
            len(now), BASELINE.relative_to(ROOT), len(changed), len(removed), len(added), len(renamed)))
        return 0
    for name in changed + renamed:
        sys.stdout.writelines(difflib.unified_diff((recorded[name] + "\n").splitlines(True), (now[name] + "\n").splitlines(True),
                                                   "recorded " + name, "now " + name, n=1))
        print()
    for name in removed:
        print("removed: %s" % name)
    for name in added:
        print("added: %s" % name)
    if not same_version:
        print("kSdkAbiVersion is %d in the header, %s in the baseline" % (version, recorded_version))
    print("check_sdk_abi: the SDK's layout changed (%s): plugins built before would %s; run "
          "tools/checks/check_sdk_abi.py %s --update to record it%s" % (
              ", ".join(filter(None, ["%d changed" % len(changed) if changed else "",
                                      "%d removed" % len(removed) if removed else "",
                                      "%d added" % len(added) if added else "",
                                      "%d with fields renamed" % len(renamed) if renamed else ""])) or "the version",
              "misread it" if changed or removed else "still work",
              args.library, " (it raises kSdkAbiVersion)" if changed or removed else ""))
    return 1


if __name__ == "__main__":
    sys.exit(main())
