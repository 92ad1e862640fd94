#!/usr/bin/env python3
"""Every function a public header declares says which thread may call it and whether it
may block: a tag "[thread: WHO; HOW]" in a comment between the previous declaration and
this one (the vocabulary is explained in include/takt/takt.h). Reads the headers given
as arguments; prints each function without a valid tag and exits 1, or prints the count
per header. Static inline functions are not declarations of the library and need none."""
import re
import sys

WHO = {"any", "cycle", "idle", "host", "owner"}
HOW = {"non-blocking", "blocking"}
TAG = re.compile(r"\[thread:\s*([^;\]]*);\s*([^\]]*)\]")


def declarations(text):
    """(name, comments before it) for each top-level non-static function declaration."""
    # the C++ linkage block of every header is no scope of its own
    text = re.sub(r'^extern "C" \{$|^\}$(?=\n#endif)', "", text, flags=re.M)
    i, n, depth = 0, len(text), 0
    stmt, comments = [], []
    while i < n:
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            if depth == 0:
                comments.append(text[i:j])
            i = j
            continue
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            if depth == 0:
                comments.append(text[i:j])
            i = j
            continue
        c = text[i]
        if c == "#" and (i == 0 or text[i - 1] == "\n"):
            while True:                       # preprocessor line, with continuations
                j = text.find("\n", i)
                if j < 0:
                    i = n
                    break
                if text[j - 1] != "\\":
                    i = j + 1
                    break
                i = j + 1
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:                    # a struct, enum or inline body ended
                yield from finish(stmt, comments)
                stmt, comments = [], []
        elif depth == 0 and c == ";":
            yield from finish(stmt, comments)
            stmt, comments = [], []
        elif depth == 0:
            stmt.append(c)
        i += 1


def finish(stmt, comments):
    s = " ".join("".join(stmt).split())
    s = re.sub(r'\bTAKT_API_(BEGIN|END)\b|extern "C"', "", s).strip()
    if not s or s.startswith(("typedef", "static")):
        return
    m = re.match(r"^[^(]*?\b([A-Za-z_]\w*)\s*\(", s)
    if m:
        yield m.group(1), " ".join(comments)


def main():
    bad, total = [], 0
    for path in sys.argv[1:]:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        count = 0
        for name, comm in declarations(text):
            count += 1
            tags = TAG.findall(comm)
            if not tags:
                bad.append(f"{path}: {name}: no [thread: WHO; HOW] tag in the comment above it")
                continue
            if len(tags) > 1:
                bad.append(f"{path}: {name}: {len(tags)} thread tags above it (one per function)")
                continue
            who, how = (t.strip() for t in tags[0])
            if who not in WHO or how not in HOW:
                bad.append(f"{path}: {name}: tag [thread: {who}; {how}] outside the vocabulary"
                           f" (WHO one of {sorted(WHO)}, HOW one of {sorted(HOW)})")
        total += count
        print(f"{path.split('/')[-1]}: {count} functions")
    for b in bad:
        print("FAIL: " + b, file=sys.stderr)
    if bad:
        print(f"FAIL: {len(bad)} of {total} public functions lack a valid thread tag", file=sys.stderr)
        return 1
    print(f"ok: {total} public functions tagged")
    return 0


if __name__ == "__main__":
    sys.exit(main())
