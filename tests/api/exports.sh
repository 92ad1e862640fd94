#!/usr/bin/env bash
# libtakt.so exports the public API and nothing else: every symbol `nm -D --defined-only`
# lists must be declared in include/takt/*.h, and every function declared there must be
# exported. The declared names come from the headers themselves (declared.py: function
# declarations once comments are gone, not the static inline ones), so a new public
# function needs no edit here, an internal one that leaks is caught and so is a public
# one left hidden.
# Usage: exports.sh LIBTAKT_SO INCLUDE_DIR
set -u
so=$1 inc=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
for t in nm cc python3; do
    command -v $t >/dev/null || { echo "SKIP: $t is missing" >&2; exit 77; }
done
[ -f "$so" ] || fail "no shared library at $so"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# comments out (the preprocessor alone, no includes expanded), then the declarations
for h in "$inc"/takt/*.h; do
    cc -fpreprocessed -dD -E -P "$h" 2>/dev/null || fail "cannot read $h"
done | python3 "$(dirname "$0")/declared.py" | sort -u >"$tmp/declared"
[ -s "$tmp/declared" ] || fail "no function declared in $inc/takt/*.h"

nm -D --defined-only "$so" | awk '{print $NF}' | sed 's/@.*//' | sort -u >"$tmp/exported"
[ -s "$tmp/exported" ] || fail "nm -D lists no symbol in $so"
comm -23 "$tmp/exported" "$tmp/declared" >"$tmp/extra"
n=$(wc -l <"$tmp/extra")
if [ "$n" -gt 0 ]; then
    echo "FAIL: $(basename "$so") exports $n symbols that no public header declares" \
         "(expected only the API of include/takt/*.h):" >&2
    head -40 "$tmp/extra" | sed 's/^/  /' >&2
    [ "$n" -gt 40 ] && echo "  ... and $((n - 40)) more" >&2
    exit 1
fi
comm -13 "$tmp/exported" "$tmp/declared" >"$tmp/missing"
if [ -s "$tmp/missing" ]; then
    echo "FAIL: $(basename "$so") hides $(wc -l <"$tmp/missing") functions that include/takt/*.h" \
         "declares (is the header included where they are defined?):" >&2
    head -40 "$tmp/missing" | sed 's/^/  /' >&2
    exit 1
fi
# the library starts no shell: bench, check and their child processes are the takt
# binary's tools (src/bench), never libtakt's
shell=$(nm -D --undefined-only "$so" | awk '{print $NF}' | sed 's/@.*//' | grep -xE 'system|popen' | tr '\n' ' ')
[ -z "$shell" ] || fail "$(basename "$so") calls $shell(a shell); expected none in the library"
echo "ok: $(wc -l <"$tmp/exported") symbols exported, all declared in include/takt/*.h"
