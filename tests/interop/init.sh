#!/bin/busybox sh
# /init of the v9fs test guest (built by python/steadyfs/guest.py).
# Loads the modules listed in /etc/modules.load (dependencies first), brings
# up the NIC on QEMU's user network (the host's loopback is 10.0.2.2), runs
# /etc/ops.sh with the settings of /etc/guest.env, prints its exit status on
# the serial console and powers the machine off, which ends QEMU.
/bin/busybox --install -s /bin
export PATH=/bin
mkdir -p /proc /sys /dev /tmp /mnt
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
echo "GUEST BOOTED $(cut -d' ' -f1 /proc/uptime)"
while read -r m; do
    insmod "/lib/modules/$m" || echo "GUEST insmod-failed $m"
done < /etc/modules.load
. /etc/guest.env
# The NIC appears once its driver probed; wait for it rather than race it.
i=0
while [ ! -e /sys/class/net/eth0 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done
ip link set lo up
ip link set eth0 up
ip addr add 10.0.2.15/24 dev eth0
ip route add default via 10.0.2.2
echo "GUEST NET $(cut -d' ' -f1 /proc/uptime)"
export V9FS_HOST V9FS_OPTS
sh /etc/ops.sh
echo "GUEST END rc=$? uptime=$(cut -d' ' -f1 /proc/uptime)"
sync
poweroff -f
