#!/bin/sh
# /init of the bed guests (busybox sh).  Runs the checks named by the kernel
# command line's pmsbed=..., each framed by @@BEGIN/@@END lines that the host
# (beds.py) parses, then powers off so QEMU exits by itself.
export PATH=/bin
mkdir -p /proc /sys /dev /tmp
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
bed=$(sed -n 's/.*pmsbed=\([a-z0-9_]*\).*/\1/p' /proc/cmdline)
echo "@@BED-START bed=$bed kernel=$(uname -r) machine=$(uname -m) uptime=$(cut -d' ' -f1 /proc/uptime)"

run() { # name command...
	name=$1
	shift
	echo "@@BEGIN $name"
	"$@" 2>&1
	echo "@@END $name rc=$?"
}

# pmuscope subcommands that exist in this build (help lists them).
has_cmd() { /bin/pmuscope help 2>/dev/null | grep -q "^  $1 "; }

# Iterations of the loop `pmuscope stat` counts (2 instructions each); beds.py
# reads it back from the @@BED-START line.
LOOP=100000000
echo "@@LOOP $LOOP"
run version /bin/pmuscope --version
run help /bin/pmuscope help
case $bed in
x86)
	run sysfs /bin/bedcheck sysfs
	run numa /bin/bedcheck numa 256
	run swsample /bin/bedcheck swsample 64
	run sampler /bin/bedcheck sampler 64
	# pmuscope mem's built-in workload bound to each node with memory: the
	# buffer's samples must resolve to that node (beds.py check_mem).
	for d in /sys/devices/system/node/node*; do
		n=${d##*node}
		run mem_node$n /bin/pmuscope mem --quiet --json --verify-node --node "$n" \
			--size 8M --steps 100000
	done
	run stat_pernode_json /bin/pmuscope stat --json --per-node -a -e cpu-clock -- /bin/sleep 0.2
	# Two threads on CPUs of different nodes writing counters in one line,
	# then 64 bytes apart (beds.py check_x86_c2c).
	if has_cmd c2c; then
		run c2c_shared /bin/pmuscope c2c --json -- /bin/c2c_false_sharing shared 400 --refault
		run c2c_padded /bin/pmuscope c2c --json -- /bin/c2c_false_sharing padded 400 --refault
	fi
	;;
a64plain|a64icount)
	run sysfs /bin/bedcheck sysfs
	run pmusysfs /bin/bedcheck pmusysfs
	run swsample /bin/bedcheck swsample 64
	run sampler /bin/bedcheck sampler 64
	run count /bin/bedcheck count 1000000
	run userread /bin/bedcheck userread 1000000
	# The attrs `encode` builds must be the ones bedcheck counted with.
	has_cmd encode && run encode_json /bin/pmuscope encode --json \
		armv8_pmuv3/cpu_cycles/ 'armv8_pmuv3/event=0x8,long,rdpmc/u' r11
	run selfmon /bin/bedcheck selfmon 10000000
	# `bedcheck loop N` retires exactly 2N instructions in its loop.
	run stat_json /bin/pmuscope stat --json -e cpu_cycles,inst_retired -- /bin/bedcheck loop $LOOP
	run stat_group_json /bin/pmuscope stat --json -e '{cpu_cycles,inst_retired}' -- \
		/bin/bedcheck loop $LOOP
	# The same with :u: only the loop and the static libc's start-up and exit.
	run stat_u_json /bin/pmuscope stat --json -e cpu_cycles:u,inst_retired:u -- \
		/bin/bedcheck loop $LOOP
	run events_json /bin/pmuscope events --json
	;;
a64numa)
	run sysfs /bin/bedcheck sysfs
	run numa /bin/bedcheck numa 256
	;;
*)
	echo "@@ERROR unknown bed '$bed'"
	;;
esac
has_cmd topology && run topology_json /bin/pmuscope topology --json
has_cmd list && run list_json /bin/pmuscope list --json
# The host compares this with its own x86_64 build (cross-arch decode check).
# shellcheck disable=SC2046 # one argument per value, split on purpose
has_cmd datasrc && run datasrc_json /bin/pmuscope datasrc --json $(cat /datasrc-values)
echo "@@BED-DONE uptime=$(cut -d' ' -f1 /proc/uptime)"
poweroff -f
