#!/bin/sh
# File operations done by Linux's own 9P client (v9fs) on a 9P2000.L server
# (issue 6 part 4).  Runs inside the test guest (busybox sh) with
#   V9FS_HOST  the server as the guest sees it (10.0.2.2 = the host's loopback)
#   V9FS_OPTS  the mount options (trans=tcp,port=...,version=9p2000.L,...)
# and reports on the serial console, one "V9FS ..." line per fact:
#   V9FS ok NAME | V9FS FAIL NAME: detail     a check in the guest
#   V9FS time NAME SECONDS                    how long a step took
#   V9FS attr NAME VALUE                      a property servers may differ in
#                                             (the host knows each server's answer)
#   V9FS dir PATH | V9FS file PATH SIZE SHA256 the final tree, as the guest sees it
#   V9FS done fails=N
# The host (python/steadyfs/guest.py) then checks the same tree on the server
# side, without the guest: every file of the manifest, byte for byte, and the
# known contents and absences listed there in EXPECT/ABSENT (keep in step).
. /etc/v9fs-lib.sh
mount_or_quit
check statfs df $M

# -- create, write, read back ------------------------------------------------
printf 'hello, v9fs\n' > $L/hello
check create sh -c "printf 'hello, v9fs\n' > $M/hello.txt"
check read-back cmp $L/hello $M/hello.txt
check stat-size size_is $M/hello.txt 12
refuse create-exclusive-existing sh -c "set -C; echo x > $M/hello.txt"
check read-back-after-refused-create cmp $L/hello $M/hello.txt

# -- directories, nested -----------------------------------------------------
check mkdir mkdir $M/d1
check mkdir-nested mkdir -p $M/d1/d2/d3/d4
check create-deep sh -c "printf 'deep file\n' > $M/d1/d2/d3/d4/deep.txt"
check read-deep sh -c "[ \"\$(cat $M/d1/d2/d3/d4/deep.txt)\" = 'deep file' ]"
check name-with-spaces sh -c "printf 'spaced\n' > '$M/d1/with  space.txt'"
check name-with-spaces-read sh -c "[ \"\$(cat '$M/d1/with  space.txt')\" = spaced ]"
refuse mkdir-existing mkdir $M/d1
refuse rmdir-nonempty rmdir $M/d1
refuse open-missing cat $M/no-such-file
refuse walk-missing-dir ls $M/no-such-dir/x

# -- rename --------------------------------------------------------------------
printf 'renamed\n' > $L/renamed
check rename-src-create cp $L/renamed $M/a.txt
check rename mv $M/a.txt $M/b.txt
check rename-old-gone absent $M/a.txt
check rename-new-content cmp $L/renamed $M/b.txt
check over-old sh -c "printf 'old contents, longer\n' > $M/victim.txt"
check over-new sh -c "printf 'new\n' > $M/new.txt"
check rename-over-existing mv -f $M/new.txt $M/victim.txt
check rename-over-result sh -c "[ \"\$(cat $M/victim.txt)\" = new ] && [ ! -e $M/new.txt ]"
check rename-across-dirs mv $M/d1/d2/d3/d4/deep.txt $M/d1/moved.txt
check rename-across-result sh -c "[ \"\$(cat $M/d1/moved.txt)\" = 'deep file' ] && [ ! -e $M/d1/d2/d3/d4/deep.txt ]"
check dir-rename-setup sh -c "mkdir $M/olddir && printf 'in dir\n' > $M/olddir/inner.txt"
check rename-dir mv $M/olddir $M/newdir
check rename-dir-result sh -c "[ \"\$(cat $M/newdir/inner.txt)\" = 'in dir' ] && [ ! -e $M/olddir ]"

# -- unlink, rmdir -------------------------------------------------------------
check unlink-setup sh -c "echo bye > $M/gone.txt"
check unlink rm $M/gone.txt
check unlink-gone absent $M/gone.txt
refuse unlink-missing rm $M/gone.txt
check rmdir-setup mkdir $M/emptydir
check rmdir rmdir $M/emptydir
check rmdir-gone absent $M/emptydir
check rmdir-nested-leaf rmdir $M/d1/d2/d3/d4

# -- a directory with many files -------------------------------------------------
mkdir $M/many
t0=$(now)
i=0
while [ $i -lt 200 ]; do
    n=$((1000 + i)); n=${n#1}   # 3 digits without forking printf
    echo "file $n" > $M/many/f$n || bad "many-create f$n"
    i=$((i + 1))
done
say "time many-create $(echo "$(now) $t0" | awk '{printf "%.3f", $1 - $2}')"
i=0; : > $L/names200; : > $L/names100
while [ $i -lt 200 ]; do
    n=$((1000 + i)); n=${n#1}   # 3 digits without forking printf
    echo "f$n" >> $L/names200
    [ $((i % 2)) = 1 ] && echo "f$n" >> $L/names100
    i=$((i + 1))
done
check readdir-200 sh -c "ls $M/many > $L/ls200 && cmp $L/names200 $L/ls200"
# "." and ".." are the server's to list (v9fs passes on what Treaddir says)
say "attr ls-a-count $(ls -a $M/many | wc -l)"
check many-read sh -c "[ \"\$(cat $M/many/f123)\" = 'file 123' ]"
t0=$(now)
i=0
while [ $i -lt 200 ]; do
    n=$((1000 + i)); rm $M/many/f${n#1} || bad "many-unlink $i"
    i=$((i + 2))
done
say "time many-unlink-100 $(echo "$(now) $t0" | awk '{printf "%.3f", $1 - $2}')"
check readdir-after-unlink sh -c "ls $M/many > $L/ls100 && cmp $L/names100 $L/ls100"

# -- truncate ------------------------------------------------------------------
dd if=/dev/urandom of=$L/t10000 bs=1000 count=10 2>/dev/null
check trunc-setup cp $L/t10000 $M/trunc.bin
check trunc-shrink truncate -s 3000 $M/trunc.bin
check trunc-shrink-size size_is $M/trunc.bin 3000
head -c 3000 $L/t10000 > $L/t3000
check trunc-shrink-content cmp $L/t3000 $M/trunc.bin
check trunc-grow truncate -s 20000 $M/trunc.bin
check trunc-grow-size size_is $M/trunc.bin 20000
cp $L/t3000 $L/t20000 && truncate -s 20000 $L/t20000
check trunc-grow-zeros cmp $L/t20000 $M/trunc.bin
check trunc-zero sh -c "printf 'x' > $M/empty.bin && truncate -s 0 $M/empty.bin"
check trunc-zero-size size_is $M/empty.bin 0

# -- append ----------------------------------------------------------------------
: > $L/log
for w in one two three; do echo "line $w" >> $L/log; echo "line $w" >> $M/log.txt; done
check append cmp $L/log $M/log.txt
check append-size size_is $M/log.txt 29

# -- a large file (4 MiB) --------------------------------------------------------
dd if=/dev/urandom of=$L/big bs=65536 count=64 2>/dev/null
timed big-write dd if=$L/big of=$M/big.bin bs=65536 conv=fsync
check big-size size_is $M/big.bin 4194304
echo 3 > /proc/sys/vm/drop_caches
timed big-read cmp $L/big $M/big.bin
check big-overwrite-middle sh -c "printf 'PATCHED' | dd of=$M/big.bin bs=1 seek=1000000 conv=notrunc 2>/dev/null"
printf 'PATCHED' | dd of=$L/big bs=1 seek=1000000 conv=notrunc 2>/dev/null
check big-overwrite-result cmp $L/big $M/big.bin
check big-size-after-overwrite size_is $M/big.bin 4194304

# -- attributes ------------------------------------------------------------------
check chmod chmod 640 $M/hello.txt
say "attr mode-after-chmod-640 $(stat -c %a $M/hello.txt)"
check utime touch -d '2020-01-02 03:04:05' $M/hello.txt
say "attr mtime-after-touch-1577934245 $(stat -c %Y $M/hello.txt)"
check dir-mode-is-dir sh -c "[ -d $M/d1 ] && [ -f $M/hello.txt ]"
check symlink ln -s hello.txt $M/ln
say "attr readlink $(readlink $M/ln)"
check fsync sh -c "sync"

# -- a fresh attach sees the same tree ---------------------------------------------
check umount umount $M
check remount v9mount
check remount-hello cmp $L/hello $M/hello.txt
check remount-big cmp $L/big $M/big.bin
check remount-trunc cmp $L/t20000 $M/trunc.bin
check remount-readdir sh -c "ls $M/many > $L/ls100b && cmp $L/names100 $L/ls100b"
# chmod, touch and the symlink kept across the remount (issue 14)
say "attr remount-mode $(stat -c %a $M/hello.txt)"
say "attr remount-mtime $(stat -c %Y $M/hello.txt)"
say "attr remount-readlink $(readlink $M/ln)"
check remount-via-link cmp $L/hello $M/ln
check rm-link rm $M/ln

# -- the final tree, for the host to check on the server side ----------------------
# (a few processes for the whole tree: each fork costs ~30 ms under TCG)
(cd $M && find . -mindepth 1 -type d) | sort | while read -r p; do say "dir ${p#./}"; done
(cd $M && find . -type f -exec stat -c '%s %n' {} +) > $L/sizes
(cd $M && find . -type f -exec sha256sum {} +) > $L/sums
# sums: "HASH  ./PATH"; sizes: "SIZE ./PATH"; PATH may hold spaces
awk 'NR == FNR { size[substr($0, length($1) + 4)] = $1; next }
     { p = substr($0, 69); print "V9FS file " p " " size[p] " " $1 }' $L/sizes $L/sums | sort
check final-umount umount $M
say "done fails=$fails"
[ $fails = 0 ]
