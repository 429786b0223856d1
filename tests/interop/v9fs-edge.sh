#!/bin/sh
# Edge cases for Linux's v9fs against a 9P2000.L server: limits, errors a
# program meets, open-file semantics, a full device, parallel processes, and
# at the end a client that disappears mid-write (no unmount: the guest
# powers off), after which the host checks the server still serves and
# kept the file synced before.  Reports "V9FS attr NAME VALUE" for
# behaviour servers may legitimately differ in, and ok/FAIL for what every
# server must do (stay up and keep its tree consistent).  Same conventions
# as v9fs-ops.sh.
. /etc/v9fs-lib.sh
# outcome NAME CMD...: reports "ok" or the error message CMD printed
outcome() {
    n=$1; shift
    if "$@" >/tmp/out 2>&1; then say "attr $n ok"; else say "attr $n $(tail -c 120 /tmp/out | tr '\n' ' ' | sed 's/.*: //')"; fi
}

check mount v9mount
grep -q " $M 9p " /proc/mounts || { say "done fails=1"; exit 1; }

# a 255-byte name (NAME_MAX), one byte more, and a 264-byte deep path
long=$(printf 'n%.0s' $(seq 1 255))
outcome name-255 sh -c "echo x > $M/$long"
outcome name-256 sh -c "echo x > $M/${long}m"
deep=$M
i=0
while [ $i -lt 12 ]; do deep=$deep/dir-level-$(printf '%02d' $i)-abcdefgh; i=$((i + 1)); done
outcome deep-path-264 mkdir -p $deep
outcome deep-path-264-file sh -c "echo deep > $deep/f && cat $deep/f"

# POSIX corner cases: what a program is told (the same as diod, checked by
# hand, except links and special files, which steadyfs does not store)
mkdir $M/p
mkdir -p $M/p/d1/d2; echo f > $M/p/file; echo g > $M/p/d1/g
outcome mv-dir-into-itself mv $M/p/d1 $M/p/d1/d2/x
outcome d1-still-there ls $M/p/d1/d2
mkdir $M/p/empty
outcome mv-dir-over-empty-dir mv -T $M/p/d1 $M/p/empty
outcome after-mv-dir-over-empty cat $M/p/empty/g
mkdir -p $M/p/ne/x; mkdir $M/p/d3
outcome mv-dir-over-nonempty-dir mv -T $M/p/d3 $M/p/ne
outcome mv-file-over-dir mv -T $M/p/file $M/p/d3
outcome mv-dir-over-file sh -c "echo h > $M/p/file2; mv -T $M/p/d3 $M/p/file2"
outcome rmdir-file rmdir $M/p/file
outcome rm-dir rm $M/p/ne
outcome mkdir-over-file mkdir $M/p/file
outcome create-in-file sh -c "echo x > $M/p/file/sub"
outcome walk-through-file ls $M/p/file/sub
outcome hardlink ln $M/p/file $M/p/hard
outcome symlink ln -s file $M/p/sym
outcome mkfifo mkfifo $M/p/fifo
outcome mknod-c mknod $M/p/cdev c 1 3
outcome rename-same mv $M/p/file $M/p/file
outcome rename-to-dot sh -c "mv $M/p/file $M/p/."
outcome create-dot-name sh -c "echo > '$M/p/...'"
outcome read-dir-as-file cat $M/p/ne
outcome write-dir sh -c "echo x > $M/p/ne"
outcome open-trunc sh -c "echo longer-content > $M/p/t && echo s > $M/p/t && [ \"\$(cat $M/p/t)\" = s ]"
outcome o-append sh -c "echo a > $M/p/ap; echo b >> $M/p/ap; [ \$(wc -c < $M/p/ap) = 4 ]"
outcome seek-read sh -c "dd if=$M/p/ap bs=1 skip=2 count=1 2>/dev/null | grep -q b"
outcome big-ls sh -c "ls -laR $M > /dev/null"
outcome find sh -c "find $M > /dev/null"
outcome statfs-f stat -f $M
outcome utf8-name sh -c "echo u > '$M/p/héllo-✓' && cat '$M/p/héllo-✓'"
outcome rmdir-root rmdir $M

# a file open while it is unlinked or renamed over (common in programs)
echo keep > $M/open.txt
exec 3< $M/open.txt
outcome unlink-open-file rm $M/open.txt
outcome read-after-unlink-open sh -c "grep -qx keep <&3"
outcome unlinked-name-gone sh -c "! test -e $M/open.txt"
exec 3<&-
echo a > $M/ro1.txt; echo b > $M/ro2.txt
exec 4< $M/ro2.txt
outcome rename-over-open-file mv $M/ro1.txt $M/ro2.txt
outcome read-after-rename-over sh -c "grep -qx b <&4 && grep -qx a $M/ro2.txt"
exec 4<&-

# write beyond the end (a hole), read it back
check hole-write sh -c "printf 'END' | dd of=$M/hole.bin bs=1 seek=100000 2>/dev/null"
check hole-size sh -c "[ \$(stat -c %s $M/hole.bin) = 100003 ]"
printf 'END' | dd of=$L/hole bs=1 seek=100000 2>/dev/null
check hole-content cmp $L/hole $M/hole.bin

# many files in one directory
mkdir $M/lots
i=0; made=0
while [ $i -lt 600 ]; do
    if echo $i > $M/lots/file-number-$i 2>/dev/null; then made=$((made + 1)); else break; fi
    i=$((i + 1))
done
say "attr files-in-one-dir $made"
check lots-listed sh -c "[ \$(ls $M/lots | wc -l) = $made ]"

# filling the device: the error a writer sees, and the server afterwards
dd if=/dev/zero of=$M/fill.bin bs=65536 count=2048 2>/tmp/out
say "attr fill-128MiB $(tail -c 100 /tmp/out | tr '\n' ' ')"
say "attr fill-size $(stat -c %s $M/fill.bin)"
check rm-fill rm $M/fill.bin
check after-full-write sh -c "echo fine > $M/after.txt && [ \"\$(cat $M/after.txt)\" = fine ]"
df $M > /tmp/out 2>&1 && say "attr df $(tail -1 /tmp/out | tr -s ' ')"

# several processes at once (v9fs sends their requests interleaved)
i=0
while [ $i -lt 4 ]; do
    ( j=0; while [ $j -lt 20 ]; do echo "$i $j" > $M/par-$i-$j || exit 1; cat $M/par-$i-$j >/dev/null || exit 1; j=$((j + 1)); done ) &
    i=$((i + 1))
done
ok=1
for p in $(jobs -p); do wait $p || ok=0; done
wait || ok=0
check parallel-writers [ $ok = 1 ]
check parallel-count sh -c "[ \$(ls $M | grep -c '^par-') = 80 ]"

check umount umount $M
check remount v9mount
check remount-ls ls $M

# last: the client vanishes mid-write.  synced.bin is on the server (fsync);
# cut.bin is being written when the guest powers off without unmounting.
dd if=/dev/urandom of=$L/synced bs=65536 count=4 2>/dev/null
check synced-write dd if=$L/synced of=$M/synced.bin bs=65536 conv=fsync
say "file synced.bin $(stat -c %s $L/synced) $(sha256sum $L/synced | cut -d' ' -f1)"
dd if=/dev/zero of=$M/cut.bin bs=4096 count=2000 2>/dev/null &
sleep 1
say "done fails=$fails"
echo "GUEST END rc=$fails cut"
poweroff -f
