#!/usr/bin/env bash
# Firmware size report from the linker map: what was actually linked (after
# --gc-sections), per part -- file system, 9P server, device model, board --
# and per output section.  Static memory of the file system and the server
# (declared in firmware/fsoc.c) is counted with them.  Arguments: MAP [--json]
set -euo pipefail
map=${1:?usage: size-report.sh MAP [--json]}
fmt=${2:-text}
[ -f "$map" ] || { echo "size-report: no map $map (run make firmware)" >&2; exit 1; }
awk -v fmt="$fmt" -v map="$map" '
function hex(s,   i, v, c) {  # mawk has no strtonum
    v = 0
    s = tolower(s)
    for (i = 3; i <= length(s); i++) {
        c = index("0123456789abcdef", substr(s, i, 1))
        v = v * 16 + c - 1
    }
    return v
}
function part(sec, file) {
    # src/util (the shared CRC-32) is counted with the file system, which always needs it
    if (file ~ /(^|\/)src\/(fs|util)\//) return "fs"
    # the UART link: framing (COBS, CRC, ARQ), message/session layer, service loop
    if (file ~ /(^|\/)src\/p9\/(frame|cobs|p9link)\.o$/) return "link"
    if (file ~ /(^|\/)firmware\/serve\.o$/) return "link"
    if (file ~ /(^|\/)src\/p9\//) return "p9"
    if (file ~ /(^|\/)src\/bd\//) return "bd"
    if (file ~ /(^|\/)src\/drivers\//) return "drv"
    # fsoc.c holds the static memory of the file system and of the server
    if (file ~ /(^|\/)firmware\/fsoc\.o$/ && sec ~ /^\.bss\.fs/) return "fs"
    if (file ~ /(^|\/)firmware\/fsoc\.o$/ && sec ~ /^\.bss\.(srv|msg)/) return "p9"
    # FW_SPINAND (main.c): the driver state and bad-block map, and the chip
    # model state and cache register (which stand for the chip)
    if (file ~ /(^|\/)firmware\/main\.o$/ && sec ~ /^\.bss\.nand/) return "drv"
    if (file ~ /(^|\/)firmware\/main\.o$/ && sec ~ /^\.bss\.chip/) return "bd"
    if (file ~ /(^|\/)firmware\//) return "board"
    if (file ~ /libgcc|libc/) return "runtime"
    return "board"  # *fill* and linker-made padding
}
function add(sz, file, sec,   p) {
    if (osec == "") return
    p = part(sec, file)
    size[p, osec] += hex(sz)
}
/^Linker script and memory map/ { inmap = 1; next }
!inmap { next }
# an output section: name at column 0, e.g. ".text  0x00000000  0x5a3c"
/^\.[A-Za-z_.]+/ {
    name = $1
    osec = (name == ".text" || name == ".data" || name == ".bss" || name == ".stack" || name == ".flashimg") ? name : ""
    if (osec != "" && NF >= 3) total[osec] = hex($3)
    else if (osec != "") pending_total = 1
    next
}
pending_total && /^ +0x/ { total[osec] = hex($2); pending_total = 0; next }
# input section on one line: " .text.foo 0xADDR 0xSIZE file"
/^ [.*][^ ]* +0x[0-9a-f]+ +0x[0-9a-f]+/ {
    if ($1 == "*fill*") add($3, "", "")
    else add($3, $4, $1)
    next
}
# input section name alone, address/size/file on the next line
/^ \.[^ ]+$/ || /^ COMMON$/ { cont = 1; csec = $1; next }
cont && /^ +0x[0-9a-f]+ +0x[0-9a-f]+ +[^ ]/ { add($2, $3, csec); cont = 0; next }
{ cont = 0 }
END {
    n = split("fs p9 link drv bd board runtime", parts, " ")
    label["fs"] = "file system (src/fs)"; label["p9"] = "9P server (src/p9)"
    label["link"] = "UART link (framing)"
    label["drv"] = "chip driver (src/drivers)"
    label["bd"] = "device model (src/bd)"; label["board"] = "board (firmware/)"
    label["runtime"] = "runtime (libgcc)"
    if (fmt == "--json") {
        printf "{\"map\": \"%s\", \"parts\": {", map
        for (i = 1; i <= n; i++) {
            p = parts[i]
            printf "%s\"%s\": {\"text\": %d, \"data\": %d, \"bss\": %d}", (i > 1 ? ", " : ""), p, size[p, ".text"], size[p, ".data"], size[p, ".bss"]
        }
        printf "}, \"sections\": {\"text\": %d, \"data\": %d, \"bss\": %d, \"stack\": %d, \"flashimg\": %d}}\n", total[".text"], total[".data"], total[".bss"], total[".stack"], total[".flashimg"]
        exit 0
    }
    printf "steadyfs firmware for mps2-an385 (Cortex-M3), linked sizes (%s):\n", map
    printf "  %-24s %8s %8s %8s\n", "part", ".text", ".data", ".bss"
    for (i = 1; i <= n; i++) {
        p = parts[i]
        printf "  %-24s %8d %8d %8d\n", label[p], size[p, ".text"], size[p, ".data"], size[p, ".bss"]
        st += size[p, ".text"]; sd += size[p, ".data"]; sb += size[p, ".bss"]
    }
    # Merged string sections are listed at their size before merging, so
    # the parts can exceed the section a little; show the difference.
    if (st != total[".text"] || sd != total[".data"] || sb != total[".bss"])
        printf "  %-24s %8d %8d %8d\n", "(merged strings)", total[".text"] - st, total[".data"] - sd, total[".bss"] - sb
    st = total[".text"]; sd = total[".data"]; sb = total[".bss"]
    printf "  %-24s %8d %8d %8d\n", "total", st, sd, sb
    printf "  code (flash) = .text + .data = %d bytes; RAM = .data + .bss + stack = %d + %d bytes\n", st + sd, sd + sb, total[".stack"]
    printf "  main stack reserved: %d bytes (high-water: steady firmware run)\n", total[".stack"]
    printf "  NAND image area (PSRAM, stands for the flash chip): %d bytes\n", total[".flashimg"]
}' "$map"
