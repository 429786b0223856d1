#!/usr/bin/env bash
# Proves the core is freestanding and prints its Cortex-M3 section sizes.
# Arguments: the arm-none-eabi object files of the core.
set -euo pipefail
[ $# -gt 0 ] || { echo "cross-report: no objects"; exit 1; }
# A freestanding object may need only these from outside the core: compiler
# helpers and the memory/string functions a freestanding C environment has.
allowed='^(memcpy|memset|memmove|memcmp|strlen|strcmp|strncmp|__aeabi_[a-z0-9_]+|__gnu_[a-z0-9_]+)$'
defined=$(arm-none-eabi-nm -g --defined-only "$@" | awk 'NF==3{print $3}' | sort -u)
bad=$(arm-none-eabi-nm -u "$@" | awk 'NF>=2{print $NF}' | sort -u | comm -23 - <(echo "$defined") | grep -Ev "$allowed" || true)
if [ -n "$bad" ]; then
    echo "cross: the core uses symbols a freestanding target does not have:"
    echo "$bad" | sed 's/^/  /'
    exit 1
fi
echo "Cortex-M3 (arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb -Os), freestanding core, per folder:"
row() {   # row LABEL OBJECTS...
    local label=$1; shift
    arm-none-eabi-size -t "$@" | tail -1 | awk -v d="$label" '{printf "  %-24s %8d %8d %8d\n", d, $1, $2, $3}'
}
printf '  %-24s %8s %8s %8s\n' folder .text .data .bss
for dir in $(printf '%s\n' "$@" | xargs -n1 dirname | sort -u); do
    mapfile -t objs < <(printf '%s\n' "$@" | grep "^$dir/[^/]*\.o$")
    row "${dir#*/arm/}" "${objs[@]}"
    # the file system's run-time core apart from what a device need not
    # link: fsck and repair (tools) and steadyfs_bound (a host-side calculation)
    if [ "${dir#*/arm/}" = src/fs ]; then
        mapfile -t rt < <(printf '%s\n' "${objs[@]}" | grep -Ev '/(fsck|bound|repair)\.o$')
        mapfile -t tools < <(printf '%s\n' "${objs[@]}" | grep -E '/(fsck|bound|repair)\.o$')
        row "  run-time core" "${rt[@]}"
        # the same built for media that need erase only, without the
        # record ring and the held sector (ERASE_ONLY_FS: its objects,
        # STEADYFS_ERASELESS_MEDIA=0, STEADYFS_WITH_RING=0,
        # STEADYFS_WITH_HOLD=0), as the NAND firmware links it
        if [ -n "${ERASE_ONLY_FS:-}" ]; then
            mapfile -t ro < <(printf '%s\n' $ERASE_ONLY_FS | grep -Ev '/(fsck|bound|repair)\.o$')
            row "    erase only, minimal" "${ro[@]}"
        fi
        row "  fsck.c, bound.c, repair.c" "${tools[@]}"
    fi
done
row total "$@"
# RAM on the target beside the code: sizeof(steadyfs) and sizeof(spinand),
# measured by compiling arrays of those sizes (nm prints their sizes).
if printf '%s\n' "$@" | grep -q '/src/drivers/spinand\.o$'; then
    probe=$(mktemp -d)
    printf '#include "steadyfs/spinand.h"\n#include "steadyfs/steadyfs.h"\nchar probe_spinand[sizeof(spinand)];\nchar probe_steadyfs[sizeof(steadyfs)];\n' > "$probe/p.c"
    arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb -Os -std=c11 -Iinclude -fno-common -c "$probe/p.c" -o "$probe/p.o"
    size_of() { arm-none-eabi-nm -S -t d "$probe/p.o" | awk -v s="$1" '$4 == s {print $2 + 0}'; }
    sn=$(size_of probe_spinand)
    sf=$(size_of probe_steadyfs)
    rm -rf "$probe"
    echo "RAM on Cortex-M3 (caller-provided, no malloc):"
    echo "  file system (src/fs)     sizeof(steadyfs) = $sf B + steadyfs_work_size() + one sector buffer (steady ram)"
    echo "  SPI NAND driver          sizeof(spinand) = $sn B + bad-block map 4 ceil(blocks/32) B ($((sn + 128)) B at 1024 blocks); no page buffer"
fi
