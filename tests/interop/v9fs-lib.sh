# Shared by the guest scripts (v9fs-ops.sh, v9fs-edge.sh, v9fs-fw.sh): the
# "V9FS ..." reporting conventions of v9fs-ops.sh and the mount.  The
# initramfs carries it as /etc/v9fs-lib.sh (python/steadyfs/guest.py).
M=/mnt
L=/tmp/local
fails=0
mkdir -p $L

say() { echo "V9FS $*"; }
bad() { fails=$((fails + 1)); say "FAIL $*"; }
# check NAME CMD...: CMD must succeed
check() {
    n=$1; shift
    if "$@" >/tmp/out 2>&1; then say "ok $n"; else bad "$n: $* -> $(head -c 300 /tmp/out | tr '\n' ' ')"; fi
}
# refuse NAME CMD...: CMD must fail (the server returned an error)
refuse() {
    n=$1; shift
    if "$@" >/tmp/out 2>&1; then bad "$n: $* succeeded"; else say "ok $n"; fi
}
absent() { [ ! -e "$1" ]; }
size_is() { [ "$(stat -c %s "$1")" = "$2" ]; }
now() { cut -d' ' -f1 /proc/uptime; }
timed() {   # timed NAME CMD...: runs CMD (must succeed), reports its time
    n=$1; shift
    t0=$(now)
    check "$n" "$@"
    say "time $n $(echo "$(now) $t0" | awk '{printf "%.3f", $1 - $2}')"
}
v9mount() { mount -t 9p -o "$V9FS_OPTS" "$V9FS_HOST" $M; }
# mount_or_quit: mount, or report why not and end the script
mount_or_quit() {
    timed mount v9mount
    if ! grep -q " $M 9p " /proc/mounts; then
        bad "mount: not mounted; dmesg: $(dmesg | tail -5 | tr '\n' ' ')"
        say "done fails=$fails"
        exit 1
    fi
}
