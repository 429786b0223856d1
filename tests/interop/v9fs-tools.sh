#!/bin/sh
# Other people's tools on Linux's v9fs (issue 14 item 5), in the QEMU guest,
# usually while two FUSE mounts on the host run the same tools on the same
# server (tests/py/test_tools_guest.py).  The initramfs carries Debian's
# fio, stress-ng and dbench with their libraries (python/steadyfs/fstools.py:
# guest_bundle), fio's job file and our dbench load.  /etc/guest.env sets:
#   TOOLS_SECONDS  run rounds until this many seconds have passed (one at least)
#   STRESS_GROUPS  the stress-ng groups, run one after the other each round;
#                  STRESS_<GROUP> holds each group's arguments, with @DIR@
#                  for its directory
#   DBENCH_SECONDS, FIO_SIZE   the length of those runs (stress-ng's is in its
#                  arguments)
# Each tool's output goes to the console as "TOOL <run> <line>" and its exit
# status as "TOOLRC <run> <status>": the host judges them with the same
# parsers as its own runs.  The usual "V9FS ..." lines report the rest.
. /etc/v9fs-lib.sh
. /etc/guest.env
mount_or_quit
G=$M/guest
check mkdir-guest mkdir -p $G

# tool RUN CMD...: runs CMD, its output and status onto the console
tool() {
    run=$1; shift
    "$@" > /tmp/tool.out 2>&1
    rc=$?
    sed "s|^|TOOL $run |" /tmp/tool.out
    echo "TOOLRC $run $rc"
}

export SIZE=$FIO_SIZE   # fio-verify.fio reads ${SIZE}
t0=$(now)
round=0
while :; do
    round=$((round + 1))
    # fio: three verifying writers at once (crc32c in every block)
    mkdir -p $G/fio
    tool "fio-$round" /usr/bin/fio --directory=$G/fio /etc/fio-verify.fio
    rm -rf $G/fio
    for g in $STRESS_GROUPS; do
        d=$G/sn-$g
        mkdir -p $d
        eval "args=\$STRESS_$(echo $g | tr 'a-z-' 'A-Z_')"
        tool "stress-$g-$round" /usr/bin/stress-ng $(echo "$args" | sed "s|@DIR@|$d|g")
        rm -rf $d
    done
    mkdir -p $G/db
    tool "dbench-$round" /usr/bin/dbench -c /etc/dbench.load -D $G/db -t $DBENCH_SECONDS 1
    rm -rf $G/db
    elapsed=$(echo "$(now) $t0" | awk '{printf "%d", $1 - $2}')
    [ "$elapsed" -ge "$TOOLS_SECONDS" ] && break
done
say "attr rounds $round"
say "time tools $(echo "$(now) $t0" | awk '{printf "%.3f", $1 - $2}')"
ls $M > /dev/null || bad "readdir root"
check rmdir-guest rmdir $G
check umount umount $M
say "done fails=$fails"
[ $fails = 0 ]
