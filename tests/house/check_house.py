#!/usr/bin/env python3
"""Checks of the house's structure over the production sources (CONTRIBUTING.md, "Layer
rules" and "Size"):

  check_house.py layers [--self-test] FILE...
  check_house.py sizes [--self-test] FILE...

FILE is a source (.h/.cc) as a path that starts with its folder ("daemon/x.cc"); tests
(*_test.cc) and test doubles (fake_*) are not production and are skipped.

layers: a file includes only its own folder's headers and those of folders on lower floors
  (FLOORS). Prints one line per back-include and fails on any, on a file whose folder is on no
  floor, and on a floor's folder of which no file was given (its //FOLDER:sources is missing
  from tests/house/BUILD.bazel).
sizes: no production file over MAX_FILE_LINES lines and no function over MAX_FUNCTION_LINES
  (benchmarks/ programs are exempt), unless the file says why in a line
  "// house: <reason>" (one line per exception, anywhere in the file).
  A function is counted from its signature at column 0 to its closing brace at column 0, as
  the project's format writes them.
--self-test first checks the rule itself on made-up files, good and bad.
Exit 0 when clean, 1 otherwise.
"""
import re
import sys

# Bottom first. A folder may include its own headers and those of every folder on a lower
# floor; folders on one floor do not include each other.
FLOORS = [
    ["proto", "io"],
    ["spec", "core", "process"],
    ["report"],
    ["devices"],
    ["workloads"],
    ["passes"],
    ["experiment"],
    ["worker"],
    ["daemon"],
    ["client"],
    ["benchmarks"],
]
FLOOR = {folder: i for i, floor in enumerate(FLOORS) for folder in floor}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_0-9]+)/[^"]+"')
MAX_FILE_LINES = 450
MAX_FUNCTION_LINES = 80
EXCEPTION = re.compile(r"//\s*house:\s*\S")
SIZE_EXEMPT_FOLDERS = {"benchmarks"}


def back_includes(files):
    """(file, line number, text, problem) for each include that breaks the rule."""
    found = []
    for path, text in files:
        folder = path.split("/", 1)[0]
        if folder not in FLOOR:
            found.append((path, 0, "", f"{folder}/ is on no floor: add it to FLOORS in "
                          "tests/house/check_house.py and to CONTRIBUTING.md's layer table"))
            continue
        for number, line in enumerate(text.splitlines(), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            target = m.group(1)
            if target == folder or target not in FLOOR:  # own folder; generated or system
                continue
            if FLOOR[target] >= FLOOR[folder]:
                where = "beside" if FLOOR[target] == FLOOR[folder] else "above"
                found.append((path, number, line.strip(), f"{target}/ is {where} {folder}/"))
    given = {path.split("/", 1)[0] for path, _ in files}
    for folder in sorted(set(FLOOR) - given):
        found.append((f"{folder}/", 0, "", "no file of it was checked: add //%s:sources to "
                      "tests/house/BUILD.bazel" % folder))
    return found


def functions(text):
    """(first line, line count, signature) of each function defined at column 0."""
    lines = text.splitlines()
    found, start = [], None
    for i, line in enumerate(lines):
        if start is None:
            if not line or line[0].isspace() or line[0] in "#/}" or line.rstrip().endswith(";"):
                continue
            if re.match(r"(namespace|using|class|struct|enum|union|template|typedef|extern)\b", line):
                continue
            for j in range(i, min(i + 12, len(lines))):
                code = lines[j].split("//", 1)[0].rstrip()
                if code.endswith(";") and "{" not in code:
                    break
                if code.endswith("{"):
                    start = i
                    break
        elif line.startswith("}"):
            found.append((start + 1, i - start + 1, lines[start].strip()))
            start = None
    return found


def oversized(files):
    """(file, line, problem) for each production file or function over its size."""
    found = []
    for path, text in files:
        if path.split("/", 1)[0] in SIZE_EXEMPT_FOLDERS:
            continue
        excused = len(EXCEPTION.findall(text))
        problems = []
        count = len(text.splitlines())
        if count > MAX_FILE_LINES:
            problems.append((0, f"{count} lines, more than {MAX_FILE_LINES}: split it by purpose"))
        if path.endswith(".cc"):
            for first, length, signature in functions(text):
                if length > MAX_FUNCTION_LINES:
                    problems.append((first, f"{signature[:60]} is {length} lines, more than "
                                     f"{MAX_FUNCTION_LINES}: split it into named steps"))
        if len(problems) > excused:
            found += [(path, n, why + (f" (the file gives {excused} '// house:' reasons for "
                                       f"{len(problems)} exceptions)" if excused else ""))
                      for n, why in problems]
    return found


def self_test():
    clean = [(f"{folder}/x.h", "") for folder in FLOOR]
    clean += [("core/a.cc", '#include "core/a.h"\n#include "io/file_io.h"\n'),
              ("daemon/b.cc", '#include "worker/state_folder.h"\n#include <vector>\n')]
    dirty = clean + [("core/c.cc", '#include "io/file_io.h"\n  #include "daemon/daemon.h"\n'),
                     ("spec/d.cc", '#include "core/statistics.h"\n'),
                     ("newfolder/e.cc", "")]
    assert back_includes(clean) == [], back_includes(clean)
    got = [(f, n) for f, n, _, _ in back_includes(dirty)]
    assert got == [("core/c.cc", 2), ("spec/d.cc", 1), ("newfolder/e.cc", 0)], got
    assert back_includes(clean[:-3])[0][0] == list(FLOOR)[-1] + "/"  # a floor with no file
    body = "int F() {\n" + "  x();\n" * 80 + "}\n"  # 82 lines
    short = "int G(int a,\n      int b) {\n  return a + b;\n}\n"
    assert [n for _, n, _ in oversized([("core/f.cc", body + short)])] == [1]
    assert oversized([("core/f.cc", "// house: one table, read top to bottom\n" + body)]) == []
    assert oversized([("benchmarks/f.cc", body)]) == []
    assert [n for _, n, _ in oversized([("core/g.h", "//\n" * 451)])] == [0]


def main(argv):
    if not argv or argv[0] not in ("layers", "sizes"):
        print(__doc__)
        return 2
    mode, argv = argv[0], argv[1:]
    if argv and argv[0] == "--self-test":
        self_test()
        argv = argv[1:]
    files = []
    for path in argv:
        name = path.rsplit("/", 1)[-1]
        if name.endswith("_test.cc") or name.startswith("fake_"):
            continue
        with open(path, encoding="utf-8") as f:
            files.append((path, f.read()))
    if mode == "layers":
        problems = [(p, n, f"{t} -- {why}" if t else why) for p, n, t, why in back_includes(files)]
    else:
        problems = oversized(files)
    for path, number, why in problems:
        print(f"{path}:{number}: {why}" if number else f"{path}: {why}")
    if mode == "layers" and problems:
        print("floors, bottom first: " + " < ".join(", ".join(f) for f in FLOORS))
    print(f"{mode}: {len(files)} production files, {len(problems)} problems")
    return 1 if problems or not files else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
