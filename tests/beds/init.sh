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
	# Data types (issue 29, beds.py check_x86_typeshare): two threads on
	# CPUs of different nodes writing members a and b of one struct (one
	# line), then the padded build (b on the next line).
	for v in typeshare typeshare_padded; do
		run types_$v /bin/pmuscope mem --quiet --json --engine software -c 1 --types --no-alloc \
			-- /bin/$v 400
	done
	# Attribution (issue 13): three short-lived programs, each binding its
	# buffer to another node, under one `mem -- sh -c` (held at exit) and
	# under `mem -a`; each buffer's samples must be on its node (beds.py
	# check_attrib).  THP: five runs per node, every fault sample resolved.
	# (--hold-budget none: every program asked about; under TCG on a loaded
	# host the default 5 ms lets one of two programs exiting together go)
	T=/bin/bedcheck
	run attrib_sh sh -c "/bin/pmuscope mem --quiet --hold-budget none --csv --report-file /tmp/sh.csv -- sh -c '$T touchnode 0 8 /tmp/a0 & $T touchnode 1 8 /tmp/a1 | cat; $T touchnode 2 8 /tmp/a2; wait'; $T csvshare /tmp/sh.csv /tmp/a0 /tmp/a1 /tmp/a2"
	run attrib_sh_json /bin/pmuscope mem --quiet --json -- sh -c "$T touchnode 0 8 /tmp/b0; $T touchnode 1 8 /tmp/b1; $T touchnode 2 8 /tmp/b2"
	# -a: no exit hold; each program lives 300 ms after its touch
	for ph in "" --phys; do
		run attrib_all${ph:+_phys} sh -c "/bin/pmuscope mem -a $ph --quiet --csv --report-file /tmp/all.csv --duration 5 & p=\$!; sleep 1; $T touchnode 0 8 /tmp/c0 nothp 300; $T touchnode 1 8 /tmp/c1 nothp 300 & $T touchnode 2 8 /tmp/c2 nothp 300; wait \$p; $T csvshare /tmp/all.csv /tmp/c0 /tmp/c1 /tmp/c2"
	done
	for d in /sys/devices/system/node/node*; do
		n=${d##*node}
		for i in 1 2 3 4 5; do
			run attrib_thp${n}_$i sh -c "cat /sys/kernel/mm/transparent_hugepage/enabled; /bin/pmuscope mem --quiet --csv --report-file /tmp/thp.csv -- $T touchnode $n 16 /tmp/t thp; $T csvshare /tmp/thp.csv /tmp/t"
		done
	done
	# The placement advisor (docs/advise.md, beds.py check_x86_advise): a hot
	# buffer on node 2 read by threads on node 0 (advice applied, measured
	# again); a buffer on node 0 read by node 0 and node 1 (interleave).
	if has_cmd migrate; then
		run advise_move /bin/pmuscope mem --quiet --json --engine software --apply \
			--duration 3 -- /bin/bedcheck advwl move 120 /tmp/advm
		run advise_move_wl cat /tmp/advm
		run advise_share /bin/pmuscope mem --quiet --json --engine software --advise \
			--duration 3 -- /bin/bedcheck advwl share 120 /tmp/advs
		run advise_share_wl cat /tmp/advs
	fi
	# Allocation sites (issue 28, beds.py check_x86_allocsites): the dynamic
	# allocnuma, libpmuscope-alloc.so preloaded, maps "near" on node 0 and
	# "far" on node 2, read by threads on node 0; --apply moves the far
	# site's pages only and measures again.
	if [ -x /bin/allocnuma ]; then
		run allocsites /bin/pmuscope mem --quiet --json --engine software --apply \
			--duration 2 -- /bin/allocnuma 120 /tmp/an
		run allocsites_wl cat /tmp/an
	fi
	;;
x86damon)
	# DAMON (docs/damon.md): 5 runs, Ctrl-C, a crashing workload, someone
	# else's kdamond, the automatic choice; after each, no kdamond is left.
	D=/sys/kernel/mm/damon/admin/kdamonds
	gone() { cat $D/nr_kdamonds; ls $D; }
	A="--quiet --json --damon-sample-us 5000 --damon-aggr-us 100000 --damon-update-us 500000 --damon-min-regions 50 --damon-max-regions 200"
	run sysfs /bin/bedcheck sysfs
	run damon_sysfs gone
	# wl FILE HOT COLD SECONDS: the workload in the background ($w), once it
	# has touched both ranges (FILE written); -p then sees its steady state
	wl() {
		/bin/bedcheck damonwl "$2" "$3" "$4" "$1" &
		w=$!
		n=0
		while [ ! -s "$1" ] && [ $n -lt 180 ]; do sleep 1; n=$((n + 1)); done
	}
	for i in 1 2 3 4 5; do
		wl /tmp/wl$i 16 256 120
		run damon_run$i /bin/pmuscope mem --engine damon $A -p $w --duration 8
		kill $w; wait $w
		run damon_wl$i cat /tmp/wl$i
		run damon_after$i gone
	done
	# the text and CSV renderings (CSV: of a command run)
	wl /tmp/wlt 16 64 120
	run damon_text /bin/pmuscope mem --engine damon --quiet --top 5 -p $w --duration 3
	kill $w; wait $w
	run damon_csv /bin/pmuscope mem --engine damon --quiet --csv -- /bin/bedcheck damonwl 16 64 2 /tmp/wlv
	run damon_sigint sh -c "/bin/pmuscope mem --engine damon $A -- /bin/bedcheck damonwl 16 64 60 /tmp/wls & p=\$!; sleep 4; kill -INT \$p; wait \$p; echo PMSRC=\$?"
	run damon_sigint_after gone
	run damon_crash sh -c "/bin/pmuscope mem --engine damon $A -- /bin/bedcheck damonwl 16 64 3 /tmp/wlc crash; echo PMSRC=\$?"
	run damon_crash_after gone
	run damon_foreign sh -c "echo 1 > $D/nr_kdamonds; /bin/pmuscope mem --engine damon $A -- /bin/bedcheck damonwl 1 1 1 /tmp/wlf; echo PMSRC=\$?; cat $D/nr_kdamonds $D/0/state; echo 0 > $D/nr_kdamonds"
	# DAMON_RECLAIM runs exclusively (mm/damon/reclaim.c:248): "on" is
	# refused with EBUSY; --engine damon says busy, mem alone falls back
	R=/sys/module/damon_reclaim/parameters/enabled
	run damon_busy sh -c "echo Y > $R; /bin/pmuscope mem --engine damon $A -- /bin/bedcheck damonwl 1 1 1 /tmp/wlb; echo PMSRC=\$?; cat $D/nr_kdamonds"
	run damon_busy_auto sh -c "/bin/pmuscope mem --json --quiet -- /bin/bedcheck damonwl 1 4 1 /tmp/wlb2; echo PMSRC=\$?; echo N > $R; cat $D/nr_kdamonds"
	run damon_auto sh -c "/bin/pmuscope mem --json --quiet -- /bin/bedcheck damonwl 4 16 2 /tmp/wla; echo PMSRC=\$?"
	run damon_auto_after gone
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
	# Generic events through the PMUv3 driver's map and PMCEID (issue 31):
	# what encode predicts, then what this kernel accepts in stat.
	G=cycles,instructions,branches,cache-references,cache-misses,branch-misses,bus-cycles
	G=$G,stalled-cycles-frontend,stalled-cycles-backend,L1-dcache-loads,L1-dcache-load-misses
	G=$G,dTLB-load-misses,ref-cycles
	has_cmd encode && run pmuv3_generic_json /bin/pmuscope encode --json $(echo $G | tr , ' ')
	run pmuv3_generic_stat_json /bin/pmuscope stat --json -e $G -- /bin/bedcheck loop 1000
	run selfmon /bin/bedcheck selfmon 10000000
	# `bedcheck loop N` retires exactly 2N instructions in its loop.
	run stat_json /bin/pmuscope stat --json -e cpu_cycles,inst_retired -- /bin/bedcheck loop $LOOP
	run stat_group_json /bin/pmuscope stat --json -e '{cpu_cycles,inst_retired}' -- \
		/bin/bedcheck loop $LOOP
	# The same with :u: only the loop and the static libc's start-up and exit.
	run stat_u_json /bin/pmuscope stat --json -e cpu_cycles:u,inst_retired:u -- \
		/bin/bedcheck loop $LOOP
	run events_json /bin/pmuscope events --json
	# Overflow sampling of cpu_cycles (issue 14): one sample every 100000
	# cycles of the loop, with frame-pointer call paths; no cpu-clock fallback.
	has_cmd record && run record_cycles_json /bin/pmuscope record --json --no-fallback \
		-e cpu_cycles:u -c 100000 -g -- /bin/bedcheck loop $LOOP
	# Counter budget (PMCR_EL0.N through the kernel's group check): the first
	# group is the cycle counter + 6 general events, the second 7 general
	# events; then the second as a weak group, which pmuscope splits.
	run stat_budget_json /bin/pmuscope stat --json \
		-e '{cpu_cycles:u,r1:u,r2:u,r3:u,r4:u,r5:u,r6:u},{r20:u,r21:u,r22:u,r23:u,r24:u,r25:u,r26:u}' \
		-- /bin/bedcheck loop 1000000
	run stat_budget_weak_json /bin/pmuscope stat --json \
		-e '{r20:u,r21:u,r22:u,r23:u,r24:u,r25:u,r26:u}:W' -- /bin/bedcheck loop $LOOP
	;;
a64numa)
	run sysfs /bin/bedcheck sysfs
	run numa /bin/bedcheck numa 256
	# Types ground truth (issue 29, beds.py check_a64_types): the random
	# programs' page-fault samples (IP, data address), judged on the host.
	for p in /gt/*; do
		[ -x "$p" ] || continue
		# (the program's own exit status is mem's: not asked)
		rm -f /tmp/gt.data
		run "gt_${p##*/}" sh -c "/bin/pmuscope mem --quiet --engine software -c 1 \
			-o /tmp/gt.data -- $p >/dev/null 2>/tmp/gt.err; [ -s /tmp/gt.data ] || cat /tmp/gt.err;
			/bin/pmuscope script -i /tmp/gt.data -F ip,addr"
	done
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
