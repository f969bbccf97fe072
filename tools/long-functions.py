#!/usr/bin/env python3
"""Lists the C++ functions longer than a limit (default 80 lines), longest first.

    python3 tools/long-functions.py [--limit N] PATH...

A PATH is a file or a folder (its .cpp, .hpp, .h and .cc files). A function
is a body opened at namespace or class scope whose head has a parameter list
(lambdas and classes inside a function count as part of it); its length is
counted from the line of its opening brace to the line of its closing one,
as clang-tidy's readability-function-size counts. It reads the text only
(comments, strings and character literals blanked), so it needs no build;
exits 1 when a function is over the limit.
"""
import argparse
import pathlib
import re
import sys

SOURCE_SUFFIXES = {".cpp", ".cc", ".hpp", ".h"}
CONTROL_WORDS = {"if", "for", "while", "switch", "catch", "do", "else", "try"}
CLASS_HEAD = re.compile(r"\b(struct|class|union|enum)\b[^()]*$")
NAMESPACE_HEAD = re.compile(r"\bnamespace\b|\bextern\s*$")


def blank_literals(text):
    """The text with comments, string and character literals turned to spaces
    (newlines kept, so line numbers hold)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not text[i - 1].isalnum()):
            delimiter = text[i + 2:text.find("(", i + 2)]
            end = text.find(")" + delimiter + '"', i)
            end = n if end < 0 else end + len(delimiter) + 2
        elif c in "\"'" and not (c == "'" and i > 0 and text[i - 1].isalnum()):  # 1'000 is a number
            end = i + 1
            while end < n and text[end] != c:
                end += 2 if text[end] == "\\" else 1
            end = min(end + 1, n)
        else:
            out.append(c)
            i += 1
            continue
        out.append(re.sub(r"[^\n]", " ", text[i:end]))
        i = end
    return "".join(out)


def scope_of(head):
    """What a brace opened after `head` (the text since the last ; { or })
    at namespace or class scope opens: namespace, class, function or other."""
    head = re.sub(r"^\s*(public|private|protected)\s*:", "", head.strip())
    head = re.sub(r"#[^\n]*", "", head).strip()  # preprocessor lines
    if NAMESPACE_HEAD.search(head):
        return "namespace"
    if CLASS_HEAD.search(head) and "(" not in head:
        return "class"
    first_word = re.match(r"[A-Za-z_]\w*", head)
    if first_word and first_word.group(0) in CONTROL_WORDS:
        return "other"
    if ")" in head and not head.endswith("="):
        return "function"
    return "other"


def function_name(head):
    before_parameters = head[:head.find("(")].strip()
    match = re.search(r"([~\w:]+(?:operator\s*\S+)?)\s*$", before_parameters)
    return match.group(1) if match else before_parameters.split()[-1:] or "?"


def long_functions(path, limit):
    text = blank_literals(path.read_text(errors="replace"))
    found, stack, head_start = [], [], 0  # stack: (kind, line of the brace, head)
    for at, c in enumerate(text):
        if c in ";{}" and (not stack or stack[-1][0] in ("namespace", "class")):
            head = text[head_start:at]
        if c == "{":
            if stack and stack[-1][0] not in ("namespace", "class"):
                stack.append(("inner", 0, ""))
            else:
                stack.append((scope_of(head), text.count("\n", 0, at) + 1, head))
        elif c == "}" and stack:
            kind, first_line, opened_by = stack.pop()
            lines = text.count("\n", 0, at) + 1 - first_line + 1
            if kind == "function" and lines > limit:
                found.append((lines, f"{path}:{first_line}", function_name(opened_by)))
        if c in ";{}":
            head_start = at + 1
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=80, help="lines a function may have (default 80)")
    parser.add_argument("paths", nargs="+", type=pathlib.Path)
    options = parser.parse_args()
    if options.limit < 1:
        parser.error(f"--limit {options.limit}: must be a whole number of lines, 1 or more")
    files = []
    for path in options.paths:
        if not path.exists():
            parser.error(f"{path}: no such file or folder")
        files += sorted(p for p in path.rglob("*") if p.suffix in SOURCE_SUFFIXES) if path.is_dir() else [path]
    found = sorted((f for path in files for f in long_functions(path, options.limit)), reverse=True)
    for lines, where, name in found:
        print(f"{lines:5d}  {where}  {name}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
