#!/usr/bin/env python3
"""Whether two runs measured the same thing: their eval_measurements.csv compared cell by cell,
times left out, over the rows both have (a run stopped at its goal is a prefix of the whole run).

For checking that a change of how runs execute (a faster communicator, stopping at the goal)
leaves every measured value as it was: the same bits in every column but the clock's.

  tools/analysis/same_measurements.py [--whole] OLD_RUN NEW_RUN [OLD_RUN2 NEW_RUN2 ...]

Each argument pair: two run folders holding eval_measurements.csv. Prints one line per pair and
exits 0 when every pair agrees on every measured cell of their common rows (and on at least one
row), 1 otherwise, 2 for a missing or unreadable file. --whole: the two runs must also have the
same rows (tools/checks/numerics_check.sh compares whole runs so).
"""
import csv
import sys

# Columns that hold times or counts of the clock, not measurements of the model (and any other
# column whose name says time).
TIME_COLUMNS = {"score", "total_duration", "preemption_count"}


def is_time(column):
    return column in TIME_COLUMNS or "time" in column


def fail(message):
    print("same_measurements.py: " + message, file=sys.stderr)
    sys.exit(2)


def read_rows(folder):
    path = folder.rstrip("/") + "/eval_measurements.csv"
    try:
        with open(path, newline="") as f:
            return list(csv.DictReader(f))
    except OSError as e:
        fail(f"{path}: {e.strerror}")


def compare(old_folder, new_folder, whole=False):
    old, new = read_rows(old_folder), read_rows(new_folder)
    if not old or not new:
        return False, f"{old_folder} vs {new_folder}: no rows to compare ({len(old)} and {len(new)})"
    columns = [c for c in old[0] if not is_time(c)]
    missing = [c for c in columns if c not in new[0]]
    if missing:
        return False, f"{old_folder} vs {new_folder}: {new_folder} lacks columns {', '.join(missing)}"
    common = min(len(old), len(new))
    if whole and len(old) != len(new):
        return False, f"{old_folder} vs {new_folder}: {len(old)} and {len(new)} rows"
    for i in range(common):
        for c in columns:
            if old[i][c] != new[i][c]:
                return False, (f"{old_folder} vs {new_folder}: row {i + 1} (step {old[i].get('global_step')}) "
                               f"differs in {c}: {old[i][c]} vs {new[i][c]}")
    last = old[common - 1].get("global_step")
    return True, (f"{old_folder} vs {new_folder}: {common} rows identical in {len(columns)} measured columns "
                  f"(up to step {last}; {len(old)} and {len(new)} rows in all)")


def main():
    args = sys.argv[1:]
    whole = "--whole" in args
    args = [a for a in args if a != "--whole"]
    if not args or len(args) % 2:
        fail("usage: same_measurements.py [--whole] OLD_RUN NEW_RUN [OLD_RUN2 NEW_RUN2 ...]")
    ok = True
    for old, new in zip(args[::2], args[1::2]):
        same, line = compare(old, new, whole)
        print(("same: " if same else "DIFFERENT: ") + line)
        ok = ok and same
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
