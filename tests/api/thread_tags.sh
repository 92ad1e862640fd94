#!/usr/bin/env bash
# Every function include/takt/*.h declares carries a thread tag "[thread: WHO; HOW]"
# from the vocabulary of include/takt/takt.h (thread_tags.py); and the tag checker finds
# the same functions the export check does (declared.py), so a declaration its parser
# misses cannot slip through untagged.
# Usage: thread_tags.sh INCLUDE_DIR
set -u
inc=$1
fail() { echo "FAIL: $*" >&2; exit 1; }
for t in cc python3; do
    command -v $t >/dev/null || { echo "SKIP: $t is missing" >&2; exit 77; }
done
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for h in "$inc"/takt/*.h; do
    cc -fpreprocessed -dD -E -P "$h" 2>/dev/null || fail "cannot read $h"
done | python3 "$here/declared.py" | sort -u >"$tmp/declared"
[ -s "$tmp/declared" ] || fail "no function declared in $inc/takt/*.h"
python3 - "$inc"/takt/*.h >"$tmp/seen" <<PY || fail "cannot parse the headers"
import sys; sys.path.insert(0, "$here")
import thread_tags
for p in sys.argv[1:]:
    for name, _ in thread_tags.declarations(open(p, encoding="utf-8").read()):
        print(name)
PY
sort -u -o "$tmp/seen" "$tmp/seen"
if ! cmp -s "$tmp/declared" "$tmp/seen"; then
    echo "FAIL: the tag checker and declared.py disagree on the declared functions:" >&2
    diff "$tmp/declared" "$tmp/seen" | sed 's/^/  /' >&2
    exit 1
fi
python3 "$here/thread_tags.py" "$inc"/takt/*.h
