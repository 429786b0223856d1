#!/bin/sh
# Linux's v9fs as one of several clients of one `steady serve` (issue 14
# item 4): while two FUSE mounts on the host write and verify files of
# their own, the guest writes verifying files into guest/, reads back every
# finished file of the host writers (each has a NAME.sum written after its
# data was fsync'd), and checks that a second mount over the server's
# client limit is refused rather than left waiting.  Reports as
# v9fs-ops.sh does ("V9FS ..." lines).
. /etc/v9fs-lib.sh
ROUNDS=16
mount_or_quit
check mkdir-guest mkdir -p $M/guest

# -- one client too many: an error at once, not a wait ------------------------
mkdir -p /mnt2
t0=$(now)
if out=$(mount -t 9p -o "$V9FS_OPTS" "$V9FS_HOST" /mnt2 2>&1); then
    bad "over-limit: a mount beyond --max-clients succeeded"
    umount /mnt2
else
    say "ok over-limit"
    say "attr over-limit-error $(echo "$out" | tr '\n' ' ' | head -c 200)"
fi
say "time over-limit $(echo "$(now) $t0" | awk '{printf "%.3f", $1 - $2}')"

# -- verifying writer, interleaved with the host's -----------------------------
verify_sums() {   # every NAME.sum in $1 whose NAME exists: sha256 matches
    for s in "$1"/*.sum; do
        [ -e "$s" ] || continue
        f=${s%.sum}
        want=$(cut -d' ' -f1 "$s")
        got=$(sha256sum "$f" | cut -d' ' -f1)
        if [ "$want" = "$got" ]; then seen=$((seen + 1)); else bad "verify $f: $got, .sum says $want"; fi
    done
}
i=0
seen=0
while [ $i -lt "$ROUNDS" ]; do
    n=$(( (i % 5 + 1) * 3 ))
    dd if=/dev/urandom of=$L/g$i bs=1024 count=$n 2>/dev/null
    dd if=$L/g$i of=$M/guest/g$i bs=4096 conv=fsync 2>/dev/null || bad "write g$i"
    sha256sum $M/guest/g$i | sed "s|  .*|  g$i|" > $L/g$i.sum
    cp $L/g$i.sum $M/guest/g$i.sum || bad "sum g$i"
    echo 3 > /proc/sys/vm/drop_caches
    cmp $L/g$i $M/guest/g$i || bad "read-back g$i"
    if [ $((i % 4)) = 3 ]; then   # every host file so far, every fourth round
        verify_sums $M/fuse1
        verify_sums $M/fuse2
    fi
    i=$((i + 1))
done
say "ok writer-rounds-$ROUNDS"
say "attr host-files-verified $seen"
[ $seen -gt 0 ] && say "ok saw-host-files" || bad "saw-host-files: none of the host writers' files seen"
ls $M > /dev/null || bad "readdir root"
check umount umount $M
say "done fails=$fails"
[ $fails = 0 ]
