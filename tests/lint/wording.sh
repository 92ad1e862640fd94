#!/bin/bash
# Wording lint: the tree must stand on its own. Comments, docs and tests cite the
# standards (ETG.1000.x, EPSG DS 301, IEEE 802.3, kernel documentation) and never notes
# that a clone does not have, and nothing speaks of how the project was developed.
# Usage: wording.sh SOURCE_DIR. Prints every offending line; exit 1 if there is one.
src=${1:?usage: wording.sh SOURCE_DIR}
cd "$src" || exit 2
self=tests/lint/wording.sh

# pattern | what is wrong with it
checks=(
    'ref §[0-9]|a citation of notes outside the tree: cite the standard itself'
    '(ethercat|powerlink|rt-linux)\.md ?§|a section of notes outside the tree: cite the standard itself'
    'rt-linux\.md|notes outside the tree: cite the standard or the kernel documentation'
    '(^|[^a-z_])shared/(reference|DESIGN|notes)|a path into a folder beside the repository'
    '/work/|a path of the development machine'
    '[Tt]his ([A-Za-z0-9-]+ )*VM|the development (VM|machine)|development-log wording: name the machine measured'
    '[Ss]ession [0-9]|development-log wording'
    '[Ii]ssue [0-9]+|an issue number of the project: say what the text is about'
)

bad=0
for c in "${checks[@]}"; do
    # the alternation inside a pattern holds '|' too: split on the last one
    pat=${c%|*}; why=${c##*|}
    hits=$(grep -rnIE --exclude-dir=corpus -- "$pat" src include docs tests README.md 2>/dev/null |
           grep -v "^$self:")
    if [ -n "$hits" ]; then
        printf '%s\n' "$hits" | sed "s|\$|   <- $why|"
        bad=1
    fi
done
if [ "$bad" = 0 ]; then
    echo "wording lint: clean"
fi
exit $bad
