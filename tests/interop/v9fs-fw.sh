#!/bin/sh
# Linux's v9fs on the emulated chip (issue 7): the firmware's 9P server,
# reached through `steady firmware run --listen`'s relay and the board's
# UART.  The same reporting as v9fs-ops.sh ("V9FS ..." lines, the final
# tree for the host to check), with small files: the board's UART, as QEMU
# models it, takes ~5 KB/s from the host.
. /etc/v9fs-lib.sh
mount_or_quit
check statfs df $M
printf 'hello from linux\n' > $L/hello
check create sh -c "printf 'hello from linux\n' > $M/hello.txt"
check read-back cmp $L/hello $M/hello.txt
check stat-size size_is $M/hello.txt 17
check mkdir-nested mkdir -p $M/d1/d2
check create-deep sh -c "printf 'deep\n' > $M/d1/d2/deep.txt"
refuse mkdir-existing mkdir $M/d1
refuse rmdir-nonempty rmdir $M/d1
refuse open-missing cat $M/no-such-file
check rename mv $M/d1/d2/deep.txt $M/d1/moved.txt
check rename-result sh -c "[ \"\$(cat $M/d1/moved.txt)\" = deep ] && [ ! -e $M/d1/d2/deep.txt ]"
check rmdir rmdir $M/d1/d2
check unlink-setup sh -c "echo bye > $M/gone.txt"
check unlink rm $M/gone.txt
check unlink-gone absent $M/gone.txt
check many-setup mkdir $M/many
i=0
while [ $i -lt 12 ]; do echo "file $i" > $M/many/f$i || bad "many-create f$i"; i=$((i + 1)); done
check readdir-12 sh -c "[ \$(ls $M/many | wc -l) = 12 ]"
check many-read sh -c "[ \"\$(cat $M/many/f7)\" = 'file 7' ]"
dd if=/dev/urandom of=$L/blob bs=1024 count=24 2>/dev/null
timed blob-write dd if=$L/blob of=$M/blob.bin bs=4096 conv=fsync
echo 3 > /proc/sys/vm/drop_caches
timed blob-read cmp $L/blob $M/blob.bin
check truncate truncate -s 1000 $M/blob.bin
check truncate-size size_is $M/blob.bin 1000
check umount umount $M
check remount v9mount
check remount-hello cmp $L/hello $M/hello.txt
check remount-blob sh -c "head -c 1000 $L/blob | cmp - $M/blob.bin"
(cd $M && find . -mindepth 1 | sort) > $L/tree
while read -r p; do
    p=${p#./}
    if [ -d "$M/$p" ]; then
        say "dir $p"
    else
        say "file $p $(stat -c %s "$M/$p") $(sha256sum "$M/$p" | cut -d' ' -f1)"
    fi
done < $L/tree
check final-umount umount $M
say "done fails=$fails"
[ $fails = 0 ]
