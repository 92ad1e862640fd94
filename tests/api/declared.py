#!/usr/bin/env python3
"""Names of the functions the public headers declare (not static inline, not typedefs):
reads the headers with comments already removed on stdin, prints one name a line."""
import re
import sys

s = sys.stdin.read()
s = re.sub(r'^extern "C" \{$|^\}$(?=\n#endif)', "", s, flags=re.M)
s = re.sub(r"^#.*$", "", s, flags=re.M)
s = re.sub(r"\bTAKT_API_(BEGIN|END)\b", ";", s)
flat, depth = [], 0
for ch in s:                      # bodies of structs, enums and inline functions out
    if ch == "{":
        depth += 1
    elif ch == "}":
        depth -= 1
        if depth == 0:
            flat.append(";")
    elif depth == 0:
        flat.append(ch)
for st in "".join(flat).split(";"):
    st = " ".join(st.split())
    if not st or st.startswith("typedef") or st.startswith("static"):
        continue
    m = re.match(r"^[^(]*?\b([A-Za-z_]\w*)\s*\(", st)
    if m:
        print(m.group(1))
