#!/usr/bin/env bash
# `make install PREFIX=...` from this build: libtakt static and shared, every public
# header (each compiles on its own), takt.pc and the takt binary; then a small program
# built against the installed tree with pkg-config (shared and --static) and through
# find_package(takt) sends a frame over a mem link pair, and runs as the README says
# (rpath, no LD_LIBRARY_PATH); the installed examples build; takt(1), libtakt(3) and the
# bash completion are there, render and complete. Needs no root.
# Usage: install.sh SOURCE_DIR BUILD_DIR
set -u
src=$1 build=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
for t in pkg-config cc make; do
    command -v $t >/dev/null || { echo "SKIP: $t is missing" >&2; exit 77; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

make -s -C "$src" install BUILD="$build" PREFIX="$prefix" >"$tmp/install.log" 2>&1 ||
    fail "make install PREFIX=$prefix: $(tail -20 "$tmp/install.log")"

[ -x "$prefix/bin/takt" ] || fail "no takt binary in $prefix/bin"
"$prefix/bin/takt" --version | grep -q '^takt ' || fail "installed takt --version: $("$prefix/bin/takt" --version 2>&1)"
pc=$(find "$prefix" -name takt.pc) && [ -n "$pc" ] || fail "no takt.pc under $prefix"
libdir=$(dirname "$(dirname "$pc")")
[ -f "$libdir/libtakt.a" ] || fail "no libtakt.a in $libdir"
ls "$libdir"/libtakt.so.* >/dev/null 2>&1 && [ -L "$libdir/libtakt.so" ] || fail "no libtakt.so (+ soname link) in $libdir"
for h in takt link rt perf netns ecat plk sim; do
    [ -f "$prefix/include/takt/$h.h" ] || fail "header include/takt/$h.h not installed"
done

export PKG_CONFIG_PATH=$libdir/pkgconfig
[ "$(pkg-config --variable=prefix takt)" -ef "$prefix" ] ||
    fail "takt.pc's prefix $(pkg-config --variable=prefix takt) is not the install prefix $prefix"
cflags=$(pkg-config --cflags takt) || fail "pkg-config --cflags takt"
# takt's headers need no other package's: --cflags is takt's include directory alone
# (libpcap's dbus paths came through Requires.private before)
for f in $cflags; do
    case $f in -I*) [ "${f#-I}" -ef "$prefix/include" ] && continue ;; esac
    fail "pkg-config --cflags takt gives '$cflags'; expected only -I$prefix/include"
done

# every installed header compiles alone, strict C11 and gnu11
for h in "$prefix"/include/takt/*.h; do
    for std in c11 gnu11; do
        echo "#include <takt/$(basename "$h")>" >"$tmp/h.c"
        cc -std=$std -Wall -Wextra -Wshadow -Wstrict-prototypes -pedantic -Werror $cflags \
            -c "$tmp/h.c" -o "$tmp/h.o" 2>"$tmp/h.err" || fail "$(basename "$h") alone (-std=$std): $(cat "$tmp/h.err")"
    done
done

cat >"$tmp/app.c" <<'C'
/* Sends one 20-byte frame a -> b over an in-process link pair, checks it arrives padded;
 * also makes a JSON statistic (json-c) and references the ENI reader (libxml2), so a
 * static link needs takt.pc's private dependencies. */
#include <takt/link.h>
#include <takt/perf.h>
#include <takt/ecat.h>
#include <stdio.h>
#include <string.h>
int main(void)
{
    int (*eni)(struct takt_ecat_master *, const char *) = takt_ecat_master_configure_eni;
    struct takt_perf_stat st;
    takt_perf_stat_reset(&st);
    takt_perf_stat_add(&st, 1500);
    if (!eni || !takt_perf_msmt_to_json(&st, NULL, "x")) return 6;
    struct takt_link *a, *b;
    if (takt_link_mem_pair(&a, &b, 8, NULL, NULL) != 0) return 2;
    uint8_t out[20] = {0xff,0xff,0xff,0xff,0xff,0xff, 2,0,0,0,0,1, 0x88,0xb5, 'h','e','l','l','o',0};
    uint8_t in[TAKT_FRAME_BUF];
    struct takt_frame f = { .data = out, .len = sizeof out };
    struct takt_frame r = { .data = in, .cap = sizeof in };
    if (takt_link_send(a, &f, 1) != 1) return 3;
    if (takt_link_recv(b, &r, 1, 0) != 1) return 4;
    if (r.len != TAKT_ETH_MIN_FRAME || memcmp(in, out, sizeof out) != 0) return 5;
    takt_link_close(a);
    takt_link_close(b);
    printf("takt %s: frame of %u bytes received\n", takt_version(), r.len);
    return 0;
}
C
libs=$(pkg-config --libs takt) || fail "pkg-config --libs takt"
cc -std=gnu11 -Wall -Werror $cflags "$tmp/app.c" -o "$tmp/app-shared" $libs 2>"$tmp/cc.err" ||
    fail "build against shared libtakt: cc ... $cflags $libs: $(head -c 1500 "$tmp/cc.err")"
readelf -d "$tmp/app-shared" | grep -q 'NEEDED.*libtakt\.so' || fail "app-shared does not use libtakt.so"
# outside the loader's paths the README's way: an rpath to the .pc's libdir, no
# LD_LIBRARY_PATH (unset, so a caller's cannot make it pass)
rpath=-Wl,-rpath,$(pkg-config --variable=libdir takt)
cc -std=gnu11 -Wall -Werror $cflags "$tmp/app.c" -o "$tmp/app-shared" $libs $rpath 2>"$tmp/cc.err" ||
    fail "build against shared libtakt with $rpath: $(head -c 1500 "$tmp/cc.err")"
out=$(env -u LD_LIBRARY_PATH "$tmp/app-shared" 2>&1) || fail "app-shared (linked with $rpath) exits $?: $out"
[ "$out" = "takt $("$prefix/bin/takt" --version | awk '{print $2}'): frame of 60 bytes received" ] ||
    fail "app-shared printed '$out'"

# the installed examples build as libtakt(3) and the README say, drive_csp with its own -lm
for ex in io_echo drive_csp; do
    exsrc=$prefix/share/doc/takt/examples/$ex.c
    [ -f "$exsrc" ] || fail "example $ex.c not installed under share/doc/takt/examples"
    extra=; [ $ex = drive_csp ] && extra=-lm
    cc $cflags "$exsrc" -o "$tmp/$ex" $libs $rpath $extra 2>"$tmp/cc.err" ||
        fail "example $ex: cc \$(pkg-config --cflags --libs takt) $rpath $extra: $(head -c 1500 "$tmp/cc.err")"
    out=$(env -u LD_LIBRARY_PATH "$tmp/$ex" 2>&1); rc=$?
    [ $rc = 2 ] && [[ $out == *usage:* ]] || fail "example $ex without arguments: exit $rc, '$out' (expected its usage, exit 2)"
done

# --static: libtakt.a itself (a linker prefers the .so beside it, so name the archive),
# its private dependencies from the .pc
slibs=$(pkg-config --static --libs takt) || fail "pkg-config --static --libs takt"
slibs=${slibs//-ltakt/$libdir/libtakt.a}
cc -std=gnu11 -Wall -Werror $(pkg-config --static --cflags takt) "$tmp/app.c" -o "$tmp/app-static" $slibs 2>"$tmp/cc.err" ||
    fail "build against static libtakt: cc ... $slibs: $(head -c 1500 "$tmp/cc.err")"
! readelf -d "$tmp/app-static" | grep -q 'libtakt\.so' || fail "app-static still needs libtakt.so"
out=$("$tmp/app-static") || fail "app-static exits $?: $out"
case $out in *"frame of 60 bytes received") ;; *) fail "app-static printed '$out'" ;; esac

# find_package(takt) from the prefix: takt::takt (shared) and takt::takt_static, built and
# run without LD_LIBRARY_PATH (CMake gives the build tree an rpath to imported libraries)
if command -v cmake >/dev/null; then
    mkdir -p "$tmp/cm"
    cp "$tmp/app.c" "$tmp/cm/app.c"
    cat >"$tmp/cm/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.16)
project(app LANGUAGES C)
find_package(takt 0.1 REQUIRED)
add_executable(app_shared app.c)
target_link_libraries(app_shared PRIVATE takt::takt)
add_executable(app_static app.c)
target_link_libraries(app_static PRIVATE takt::takt_static)
CM
    cmake -S "$tmp/cm" -B "$tmp/cm/b" -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/cm.log" 2>&1 &&
        cmake --build "$tmp/cm/b" >>"$tmp/cm.log" 2>&1 ||
        fail "find_package(takt) project with CMAKE_PREFIX_PATH=$prefix: $(tail -20 "$tmp/cm.log")"
    readelf -d "$tmp/cm/b/app_shared" | grep -q 'NEEDED.*libtakt\.so' || fail "takt::takt does not link libtakt.so"
    ! readelf -d "$tmp/cm/b/app_static" | grep -q 'libtakt\.so' || fail "takt::takt_static links libtakt.so"
    for a in app_shared app_static; do
        out=$(env -u LD_LIBRARY_PATH "$tmp/cm/b/$a" 2>&1) || fail "find_package(takt) $a exits $?: $out"
        case $out in *"frame of 60 bytes received") ;; *) fail "find_package(takt) $a printed '$out'" ;; esac
    done
    # the imported targets carry takt's include directory only, like takt.pc
    inc=$(grep -h 'INTERFACE_INCLUDE_DIRECTORIES' "$libdir"/cmake/takt/*.cmake)
    case $inc in *dbus*|*libxml2*|*json-c*) fail "takt's CMake targets export private include paths: $inc" ;; esac
else
    echo "note: cmake missing, find_package(takt) not tried" >&2
fi

# takt(1) lists every command of `takt --help`; takt(1) and libtakt(3) render without a
# warning; the bash completion completes from the binary's verbs
man1=$prefix/share/man/man1/takt.1 man3=$prefix/share/man/man3/libtakt.3
[ -f "$man1" ] || fail "takt(1) not installed at share/man/man1/takt.1"
[ -f "$man3" ] || fail "libtakt(3) not installed at share/man/man3/libtakt.3"
"$prefix/bin/takt" --help | awk '/^Commands:/ { on = 1; next } on && /^$/ { exit }
    on && /^  [a-z]/ { n = substr($0, 3, 20); sub(/ +$/, "", n); print n }' >"$tmp/cmds"
[ -s "$tmp/cmds" ] || fail "no commands in takt --help"
while read -r c; do
    grep -qxF ".SS \"takt $c\"" "$man1" || fail "takt(1) lacks the command 'takt $c' of takt --help"
    for o in $("$prefix/bin/takt" help $c | awk '/^Options:$/ { on = 1; next } on && /^  / {
            for (i = 1; i <= 3 && i <= NF; i++) if ($i ~ /^--?[a-zA-Z]/) { o = $i; sub(/,$/, "", o); sub(/\[=.*/, "", o); print o } }'); do
        grep -qF -- "${o//-/\\-}" "$man1" || fail "takt(1) lacks option $o of 'takt help $c'"
    done
done <"$tmp/cmds"
if command -v groff >/dev/null; then
    for m in "$man1" "$man3"; do
        w=$(groff -man -Tutf8 -ww -z "$m" 2>&1) && [ -z "$w" ] || fail "groff -man -ww $(basename "$m"): $w"
        MANWIDTH=80 man -l "$m" 2>"$tmp/man.err" >"$tmp/man.out" || fail "man -l $(basename "$m"): $(cat "$tmp/man.err")"
        [ ! -s "$tmp/man.err" ] || fail "man -l $(basename "$m") warns: $(cat "$tmp/man.err")"
    done
else
    echo "note: groff missing, takt(1) and libtakt(3) not rendered" >&2
fi
comp=$prefix/share/bash-completion/completions/takt
[ -f "$comp" ] || fail "bash completion not installed at share/bash-completion/completions/takt"
complete_takt() {
    bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _takt; echo "${COMPREPLY[*]}"' x "$comp" "$@"
}
[ "$(complete_takt takt ec)" = ecat ] || fail "completion of 'takt ec': '$(complete_takt takt ec)', expected ecat"
[ "$(complete_takt takt ecat sl)" = slaves ] || fail "completion of 'takt ecat sl': '$(complete_takt takt ecat sl)'"
[ "$(complete_takt takt ecat slaves --if)" = --iface ] ||
    fail "completion of 'takt ecat slaves --if': '$(complete_takt takt ecat slaves --if)', expected --iface"

echo "ok: installed to $prefix (bin, include/takt, $(basename "$libdir")/libtakt.a+.so, takt.pc, CMake package, man pages, completion); shared and static programs ran"
