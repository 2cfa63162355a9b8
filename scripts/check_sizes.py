#!/usr/bin/env python3
"""Checks ge's size limits: no C++ source over 600 lines, no function over 100 lines.

Scans the .cpp/.hpp files under src/, include/, bench/, examples/ and tests/support/ (or
the files and folders given), prints each offender as

    path: N lines
    path:line: function of N lines (name)

and exits 1 when there is one. Files listed in scripts/check_sizes.allow (one path
relative to the source root a line; `#` starts a comment) are not checked.

A function's length counts the lines from its body's opening brace to its closing one.
The parse is a heuristic, not a C++ parser: comments, string and character literals
(raw ones too) and preprocessor lines are blanked first; then a brace block outside
any function is a function body when the text before it ends in a parameter list
(with qualifiers, a trailing return type, a requires clause or a constructor's
initialiser list after it) or is a lambda; namespace, class, struct, union and enum
bodies and brace initialisers are not. Everything inside a function body, lambdas and
local classes included, counts toward that function.

    --self-test FILE  checks the heuristic instead: every function of FILE must be
                      marked by a comment `// size: N` on the line of its opening
                      brace, and nothing else may be found.
"""
import argparse
import bisect
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
DIRS = ("src", "include", "bench", "examples", "tests/support")
SUFFIXES = (".cpp", ".hpp")
IDENT = re.compile(r"[A-Za-z0-9_]")


def blank(src):
  """The source with comments, literals and preprocessor lines replaced by spaces (newlines kept)."""
  out = list(src)
  n = len(src)

  def clear(a, b):  # blanks src[a:b], keeping its newlines
    for j in range(a, b):
      if out[j] != "\n":
        out[j] = " "

  i = 0
  line_start = True  # only whitespace since the last newline
  while i < n:
    c = src[i]
    if c == "\n":
      line_start = True
      i += 1
      continue
    if c in " \t\r\f\v":
      i += 1
      continue
    if line_start and c == "#":  # a preprocessor line, with its continuations
      j = i
      while j < n and src[j] != "\n":
        if src.startswith("/*", j):  # a block comment may run past the line's end
          k = src.find("*/", j + 2)
          j = n if k < 0 else k + 2
          continue
        j += 2 if src[j] == "\\" else 1
      clear(i, j)
      i = j
      continue
    line_start = False
    if src.startswith("//", i):
      j = src.find("\n", i)
      j = n if j < 0 else j
      clear(i, j)
      i = j
    elif src.startswith("/*", i):
      j = src.find("*/", i + 2)
      j = n if j < 0 else j + 2
      clear(i, j)
      i = j
    elif c == '"' or c == "'":
      k = i - 1  # the token this quote ends: a raw-string or encoding prefix, or a number's digit separator
      while k >= 0 and (IDENT.match(src[k]) or src[k] == "."):
        k -= 1
      token = src[k + 1:i]
      if c == "'" and token[:1].isdigit():
        i += 1  # 1'000'000
        continue
      if c == '"' and token in ("R", "u8R", "uR", "UR", "LR"):
        m = re.compile(r'"([^()\\ ]{0,16})\(').match(src, i)
        end = src.find(")" + m.group(1) + '"', m.end()) if m else -1
        j = n if end < 0 else end + len(m.group(1)) + 2
      else:
        j = i + 1
        while j < n and src[j] != c and src[j] != "\n":
          j += 2 if src[j] == "\\" else 1
        j += 1
      clear(i + 1, j - 1)
      i = j
    else:
      i += 1
  return "".join(out)


def collapse(text, open_, close):
  """text with the inside of each outermost open_..close pair dropped."""
  out, depth = [], 0
  for c in text:
    if c == open_:
      if depth == 0:
        out.append(c)
      depth += 1
    elif c == close and depth > 0:
      depth -= 1
      if depth == 0:
        out.append(c)
    elif depth == 0:
      out.append(c)
  return "".join(out)


QUALIFIERS = r"(?:const|volatile|&&|&|noexcept(?:\(\))?|override|final|mutable|constexpr|consteval|static|try|throw\(\))"
AFTER_PARAMS = re.compile(r"\s*(?:" + QUALIFIERS + r"\s*)*(?:->[^;]*|requires\b[^;]*|:(?!:)[^;]*)?\s*$")
LAMBDA = re.compile(r"(?:^|[=(,]|\breturn)\s*\[[^\[\]]*\]\s*(?:\(\))?\s*(?:(?:mutable|constexpr|noexcept)\s*)*(?:->[^;]*)?$")
NOT_A_NAME = {"__attribute__", "alignas", "decltype", "noexcept", "sizeof", "alignof", "requires", "static_assert",
              "__declspec", "template", "if", "for", "while", "switch", "catch", "return"}
SCOPE = re.compile(r"^(?:(?:export|inline)\s+)*namespace\b|^extern\s*\"\s*\"$")
TYPE = re.compile(r"^(?:\[\[[^\]]*\]\]\s*)*(?:class|struct|union|enum)\b")


def classify(head):
  """'scope' (namespace, class), ('func', name) or 'other' (enum, initialiser) for the text before a brace."""
  flat = collapse(head, "{", "}")
  flat = re.sub(r"\s+", " ", flat).strip()
  flat = re.sub(r"^(?:(?:public|private|protected)\s*:\s*)+", "", flat)
  bare = re.sub(r"^template\s*<", "<", flat)
  if bare.startswith("<"):  # drop a leading template parameter list
    depth = 0
    for k, c in enumerate(bare):
      depth += (c == "<") - (c == ">")
      if depth == 0:
        bare = bare[k + 1:].strip()
        break
  if SCOPE.search(bare):
    return "scope"
  if TYPE.search(bare):
    return "other" if bare.startswith("enum") else "scope"
  groups = collapse(flat, "(", ")")  # each outermost (...) emptied to ()
  if LAMBDA.search(groups):
    return ("func", "lambda")
  for m in re.finditer(r"\(\)", groups):
    if not AFTER_PARAMS.match(groups, m.end()):
      continue
    before = groups[:m.start()].rstrip()
    if before.endswith("]"):
      return ("func", "lambda")
    op = re.search(r"(~?[\w:]*operator\s*(?:\(\)|[^\w\s(]+|\w[\w:<>]*))\s*$", before)
    if op:
      return ("func", re.sub(r"\s+", "", op.group(1)))
    name = re.search(r"(~?[A-Za-z_][\w:]*(?:<[^()]*>)?)\s*$", before)
    if name and name.group(1).split("<")[0] not in NOT_A_NAME:
      return ("func", name.group(1))
  return "other"


def functions(src):
  """(name, line of the opening brace, lines) of each function of src."""
  text = blank(src)
  newlines = [k for k, c in enumerate(text) if c == "\n"]
  line_of = lambda pos: bisect.bisect_left(newlines, pos) + 1
  found = []
  stack = []  # (kind, name, position of the brace); kind: scope, func, other, inner
  head = 0  # where the text before the next brace at scope level starts
  for k, c in enumerate(text):
    inside = stack and stack[-1][0] in ("func", "other", "inner")
    if c == "{":
      if inside:
        stack.append(("inner", None, k))
        continue
      kind = classify(text[head:k])
      if kind == "scope":
        stack.append(("scope", None, k))
        head = k + 1
      elif kind == "other":
        stack.append(("other", None, k))
      else:
        stack.append(("func", kind[1], k))
    elif c == "}":
      if not stack:
        continue
      kind, name, start = stack.pop()
      if kind == "func":
        found.append((name, line_of(start), line_of(k) - line_of(start) + 1))
      if kind in ("scope", "func"):
        head = k + 1
    elif c == ";" and not inside:
      head = k + 1
  return found


def sources(paths):
  for p in paths:
    if p.is_dir():
      yield from sorted(f for f in p.rglob("*") if f.suffix in SUFFIXES and f.is_file())
    elif p.suffix in SUFFIXES:
      yield p


def read_allow(path):
  if not path.exists():
    return set()
  lines = (line.split("#", 1)[0].strip() for line in path.read_text().splitlines())
  return {line for line in lines if line}


def self_test(path):
  """0 when the functions found in path are exactly those marked `// size: N`."""
  src = path.read_text()
  want = {n + 1: int(m.group(1)) for n, line in enumerate(src.splitlines())
          for m in [re.search(r"//.*\bsize: (\d+)", line)] if m}
  got = {line: length for _, line, length in functions(src)}
  bad = [f"{path}:{line}: found {got.get(line)}, marked {want.get(line)}"
         for line in sorted(set(want) | set(got)) if want.get(line) != got.get(line)]
  print("\n".join(bad) if bad else f"{path}: {len(got)} functions as marked")
  return 1 if bad else 0


def main():
  ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  ap.add_argument("paths", nargs="*", type=pathlib.Path, help="files or folders (default: " + ", ".join(DIRS) + ")")
  ap.add_argument("--max-file-lines", type=int, default=600)
  ap.add_argument("--max-function-lines", type=int, default=100)
  ap.add_argument("--allow", type=pathlib.Path, default=ROOT / "scripts" / "check_sizes.allow")
  ap.add_argument("--self-test", type=pathlib.Path, metavar="FILE")
  args = ap.parse_args()
  if args.self_test:
    return self_test(args.self_test)
  allow = read_allow(args.allow)
  paths = args.paths or [ROOT / d for d in DIRS]
  offences, allowed_passing = [], set()
  for f in sources(paths):
    f = f.resolve()
    rel = f.relative_to(ROOT).as_posix() if f.is_relative_to(ROOT) else str(f)
    src = f.read_text(encoding="utf-8", errors="replace")
    mine = []
    lines = len(src.splitlines())
    if lines > args.max_file_lines:
      mine.append(f"{rel}: {lines} lines")
    for name, line, length in functions(src):
      if length > args.max_function_lines:
        mine.append(f"{rel}:{line}: function of {length} lines ({name})")
    if rel in allow:
      allowed_passing.update([] if mine else [rel])
    else:
      offences += mine
  for rel in sorted(allowed_passing):
    print(f"note: {rel} is within the limits now; drop it from {args.allow.name}")
  if offences:
    print("\n".join(offences))
    print(f"{len(offences)} over the limits (files {args.max_file_lines} lines, functions "
          f"{args.max_function_lines}); split them, or see {args.allow.name}")
    return 1
  return 0


if __name__ == "__main__":
  sys.exit(main())
