# shellcheck shell=bash
# Builds the peers of the interop and benchmark scripts from fetched sources in a
# scratch folder (never in the tree); sourced. Each peer comes from a git repository
# (a clone, a bare mirror or a URL) exported at a fixed tag, the steps of
# docs/interop.md "Building the peers". Every function prints its result directory on
# stdout or, when it cannot build, "not run: REASON" and returns 1; its log is
# DIR.log beside it.
#   peer_export GIT TAG DIR            git archive TAG of GIT into DIR (cloned first if a URL)
#   build_soem GIT DIR                 SOEM v2.0.0: DIR/build/libsoem.a (SOEM_DIR layout)
#   build_kickcat_sim GIT DIR          KickCAT's network_simulator: DIR/build/simulation/network_simulator
#                                      (also needs ARGPARSE_GIT, and nlohmann-json3-dev and
#                                      libtinyxml2-dev installed)
#   build_oplk_mn GIT DIR              openPOWERLINK V2.7.2 stack + demo_mn_console
SOEM_TAG=${SOEM_TAG:-v2.0.0}
KICKCAT_TAG=${KICKCAT_TAG:-HEAD}
ARGPARSE_TAG=${ARGPARSE_TAG:-v3.2}
OPLK_TAG=${OPLK_TAG:-V2.7.2}
PEER_JOBS=${PEER_JOBS:-2}

peer_export() {   # GIT TAG DIR
    local git=$1 tag=$2 dir=$3 gd
    [ -f "$dir/.exported" ] && return 0
    rm -rf "$dir"; mkdir -p "$dir"
    case $git in
    *://*) git clone -q --bare "$git" "$dir.git" >>"$dir.log" 2>&1 || return 1; gd=$dir.git ;;
    *) if [ -d "$git/.git" ]; then gd=$git/.git; else gd=$git; fi ;;
    esac
    git --git-dir="$gd" archive "$tag" 2>>"$dir.log" | tar -x -C "$dir" && touch "$dir/.exported"
}

build_soem() {   # GIT DIR
    local dir=$2
    if [ ! -f "$dir/build/libsoem.a" ]; then
        peer_export "$1" "$SOEM_TAG" "$dir" || { echo "not run: cannot export SOEM $SOEM_TAG from $1 (see $dir.log)"; return 1; }
        # its CMakeLists asks for CMake 3.28; it builds with older ones (Debian 12: 3.25)
        sed -i 's/cmake_minimum_required(VERSION 3\.2[89][^)]*)/cmake_minimum_required(VERSION 3.16)/' "$dir/CMakeLists.txt"
        { cmake -S "$dir" -B "$dir/build" -DCMAKE_BUILD_TYPE=Release &&
            cmake --build "$dir/build" -j"$PEER_JOBS"; } >>"$dir.log" 2>&1 ||
            { echo "not run: SOEM does not build (see $dir.log)"; return 1; }
    fi
    echo "$dir"
}

# KickCAT's simulator wants, as CMake packages, what its build gets from conan: argparse
# (p-ranav's header library, which Debian does not package: built here from ARGPARSE_GIT
# at ARGPARSE_TAG and installed into DIR-argparse), nlohmann_json and tinyxml2 (for its
# ESI parser; Debian: nlohmann-json3-dev, libtinyxml2-dev).
build_kickcat_sim() {   # GIT DIR
    local dir=$2 bin=$2/build/simulation/network_simulator ap=$2-argparse p missing=
    if [ ! -x "$bin" ]; then
        for p in nlohmann-json3-dev libtinyxml2-dev; do
            dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
        done
        [ -z "$missing" ] || { echo "not run: KickCAT's simulator needs$missing (apt-get install$missing)"; return 1; }
        [ -n "${ARGPARSE_GIT:-}" ] ||
            { echo "not run: KickCAT's simulator needs argparse: set ARGPARSE_GIT (github.com/p-ranav/argparse)"; return 1; }
        if [ ! -f "$ap/prefix/lib/cmake/argparse/argparseConfig.cmake" ]; then
            peer_export "$ARGPARSE_GIT" "$ARGPARSE_TAG" "$ap" ||
                { echo "not run: cannot export argparse $ARGPARSE_TAG from $ARGPARSE_GIT (see $ap.log)"; return 1; }
            { cmake -S "$ap" -B "$ap/build" -DARGPARSE_BUILD_TESTS=OFF -DARGPARSE_BUILD_SAMPLES=OFF \
                -DCMAKE_INSTALL_PREFIX="$ap/prefix" && cmake --install "$ap/build"; } >>"$ap.log" 2>&1 ||
                { echo "not run: argparse does not install (see $ap.log)"; return 1; }
        fi
        peer_export "$1" "$KICKCAT_TAG" "$dir" || { echo "not run: cannot export KickCAT $KICKCAT_TAG from $1 (see $dir.log)"; return 1; }
        if ! cmake -S "$dir" -B "$dir/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_MASTER_EXAMPLES=OFF \
            -DBUILD_SLAVE_EXAMPLES=OFF -DBUILD_SIMULATION=ON -DBUILD_TOOLS=OFF -DKICKCAT_INSTALL=OFF \
            -DCMAKE_PREFIX_PATH="$ap/prefix" >>"$dir.log" 2>&1; then
            local why
            why=$(grep -o -m1 'Could not find a package configuration file provided by "[^"]*"\|Could NOT find [A-Za-z_0-9]*' "$dir.log")
            echo "not run: KickCAT's simulator does not configure${why:+ ($why)} (see $dir.log)"; return 1
        fi
        cmake --build "$dir/build" -j"$PEER_JOBS" --target network_simulator >>"$dir.log" 2>&1 ||
            { echo "not run: KickCAT's network_simulator does not build (see $dir.log)"; return 1; }
    fi
    echo "$dir"
}

build_oplk_mn() {   # GIT DIR
    local dir=$2 d o off=
    # only the library demo_mn_console links by default (liboplkmn: stack and pcap driver
    # in one process); the other libraries of the stack would triple the build
    for o in MNAPP_USERINTF MNAPP_KERNELINTF MNAPP_PCIEINTF MNAPP_ZYNQINTF MNDRV_PCAP MN_SIM CN CNAPP_USERINTF \
        CNAPP_KERNELINTF CNAPP_ZYNQINTF CNDRV_PCAP CN_SIM; do off="$off -DCFG_COMPILE_LIB_$o=OFF"; done
    d=$dir/bin/linux/x86_64/demo_mn_console/demo_mn_console
    if [ ! -x "$d" ]; then
        peer_export "$1" "$OPLK_TAG" "$dir" || { echo "not run: cannot export openPOWERLINK $OPLK_TAG from $1 (see $dir.log)"; return 1; }
        # shellcheck disable=SC2086 # $off: one word per option
        { (cd "$dir/stack/build/linux" && cmake -DCMAKE_BUILD_TYPE=Release $off ../.. && make -j"$PEER_JOBS" install) &&
            (cd "$dir/apps/demo_mn_console/build/linux" && cmake -DCMAKE_BUILD_TYPE=Release ../.. && make -j"$PEER_JOBS" install)
        } >>"$dir.log" 2>&1 || { echo "not run: openPOWERLINK does not build (see $dir.log; needs libpcap-dev)"; return 1; }
        [ -x "$d" ] || { echo "not run: openPOWERLINK built, but no $d"; return 1; }
    fi
    echo "$dir"
}
