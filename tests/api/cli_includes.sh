#!/usr/bin/env bash
# The takt binary's commands (src/cli) use the library through its public headers
# only (<takt/*.h>), as an application does. Allowed besides: the commands' own
# headers (cli/) and the binary's tools (bench/: takt bench, check, analyze, which are
# not part of libtakt). A library-internal header ("ecat/...", "plk/...", ...) included
# from src/cli fails, unless the pair is listed in cli_internal.txt: what is still to
# be replaced by public API. A listed pair no longer needed fails too, so the list only
# shrinks and stays true.
# Usage: cli_includes.sh SOURCE_DIR
set -u
src=$1
list=$(dirname "$0")/cli_internal.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
modules=$(cd "$src/src" && for d in */; do d=${d%/}; case $d in cli|bench) ;; *) printf '%s|' "$d" ;; esac; done)
modules=${modules%|}
[ -n "$modules" ] || { echo "FAIL: no library module found under $src/src" >&2; exit 1; }

# "plk/x.h" or <plk/x.h>: the build puts src/ on the include path for both forms
(cd "$src" && grep -HnE "^[[:space:]]*#[[:space:]]*include[[:space:]]*[\"<]($modules)/" src/cli/*.c src/cli/*.h) |
    sed -E 's/^([^:]+):[0-9]+:[[:space:]]*#[[:space:]]*include[[:space:]]*["<]([^">]+)[">].*/\1 \2/' | sort -u >"$tmp/found"
grep -vE '^[[:space:]]*(#|$)' "$list" | awk '{print $1, $2}' | sort -u >"$tmp/allowed"

rc=0
comm -23 "$tmp/found" "$tmp/allowed" >"$tmp/new"
if [ -s "$tmp/new" ]; then
    echo "FAIL: src/cli includes library-internal headers (expected only <takt/*.h>, cli/ and bench/):" >&2
    sed 's/^/  /' "$tmp/new" >&2
    rc=1
fi
comm -13 "$tmp/found" "$tmp/allowed" >"$tmp/stale"
if [ -s "$tmp/stale" ]; then
    echo "FAIL: $(basename "$list") lists includes src/cli no longer has; remove them:" >&2
    sed 's/^/  /' "$tmp/stale" >&2
    rc=1
fi
[ $rc -eq 0 ] && echo "ok: src/cli includes $(wc -l <"$tmp/found") internal headers, all listed in $(basename "$list")"
exit $rc
