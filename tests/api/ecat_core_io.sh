#!/usr/bin/env bash
# The EtherCAT core is sans-I/O, like the POWERLINK MN's (src/plk/mn.c): it is given
# the time and the frames, and gives back the frames to send. Only the driver's files
# touch the link, read a clock or know the RT thread: master.c and driver.h (the
# driver), redund.c and redund.h (the link over both ports of a ring), and master_cmd.c
# (the driver's command ring: a blocking caller sleeps on its waiter until the RT loop
# ends, and a state request applied from a caller's thread takes the time there, as the
# core is given none outside a cycle). Any other file under src/ecat that names the
# link, a clock or the loop fails.
# Usage: ecat_core_io.sh SOURCE_DIR
set -u
cd "$1/src/ecat" || { echo "FAIL: no src/ecat under $1" >&2; exit 1; }
driver='^(master\.c|master_cmd\.c|driver\.h|redund\.c|redund\.h)$'
pat='takt_now[[:space:]]*\(|clock_gettime|CLOCK_(REALTIME|MONOTONIC)|struct takt_link\b|takt_link_[a-z_]+[[:space:]]*\(|->link\b|->red\b|rt/loop\.h|struct takt_rt_loop\b|->loop\b|\.loop\b'
rc=0
n=0
for f in *.c *.h; do
    [[ $f =~ $driver ]] && continue
    n=$((n + 1))
    if hits=$(grep -nE "$pat" "$f"); then
        echo "FAIL: $f (EtherCAT core) uses the link, a clock or the RT loop; expected only in the driver:" >&2
        sed "s|^|  $f:|" <<<"$hits" >&2
        rc=1
    fi
done
[ $rc -eq 0 ] && echo "ok: $n core files under src/ecat use no link, clock or RT loop"
exit $rc
