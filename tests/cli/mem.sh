#!/usr/bin/env bash
# pmuscope mem on this kernel: the built-in workload, child commands, -p,
# Ctrl-C, a crashing child; JSON checked with python3.  $1 = pmuscope.
set -u
cli=${1:?usage: mem.sh PMUSCOPE}
fail=0
skipped=0  # a part that cannot run here makes the whole test exit 77
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL: $*"; fail=1; }

# A machine where perf_event_open is refused for everything gets no report.
if ! "$cli" mem --quiet --json --size 1M --steps 1000 >"$tmp/probe.json" 2>"$tmp/probe.err"; then
  if grep -q "no sampling engine" "$tmp/probe.err"; then
    echo "SKIP: no sampling engine here: $(cat "$tmp/probe.err")"; exit 77
  fi
fi

"$cli" mem --help >"$tmp/help" || bad "--help exit status"
grep -q -- "--verify-node" "$tmp/help" || bad "--help lists --verify-node"
"$cli" mem --size nonsense >/dev/null 2>"$tmp/err" && bad "bad --size accepted"
grep -q "^pmuscope: mem: --size 'nonsense'" "$tmp/err" || { bad "bad --size message"; cat "$tmp/err"; }

check() { # json-file python-assertions...
  python3 - "$@" <<'PY' || fail=1
import json, sys
path, checks = sys.argv[1], sys.argv[2:]
d = json.load(open(path))
for c in checks:
    try:
        ok = eval(c, {"d": d})
    except Exception as e:
        ok = False; c += " (raised %r)" % e
    if not ok:
        print("FAIL: %s: %s" % (path, c))
        sys.exit(1)
PY
}

# 1. The built-in workload (small: 32 MiB, so its 8192 first touches outweigh
# what a sanitizer runtime faults in; 2M dependent loads).
"$cli" mem --quiet --json --samples --verify-node --size 32M --steps 2000000 >"$tmp/wl.json" 2>"$tmp/wl.err" \
  || { bad "workload exit status $?"; cat "$tmp/wl.err"; }
nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
check "$tmp/wl.json" \
  'd["schema_version"] == 1' \
  'd["target"]["kind"] == "workload"' \
  'd["exit"]["how"] == "exited" and d["exit"]["code"] == 0' \
  'd["workload"]["buffer_size"] == 32 << 20' \
  'd["workload"]["home_node"] is not None and d["workload"]["home_node"] >= 0' \
  'd["samples"]["total"] > 0 and d["samples"]["with_addr"] > 0' \
  'any(a["chosen"] for a in d["attempts"])' \
  'd["numa"]["home_node"] == d["workload"]["home_node"]' \
  'd["numa"]["resolved"] + d["numa"]["unresolved"] + d["numa"]["no_addr"] == d["samples"]["total"]' \
  'd["numa"]["resolved"] > 0' \
  'sum(map(sum, d["numa"]["matrix"])) + d["numa"]["matrix_outside"] == d["numa"]["resolved"]' \
  'd["numa"]["oracle"]["move_pages_calls"] * 512 >= d["numa"]["oracle"]["pages_queried"]' \
  'd["numa"]["verify"]["requested"] and d["numa"]["verify"]["checked"] > 0 and d["numa"]["verify"]["disagree"] == 0' \
  'len(d["sample_list"]) == d["samples"]["total"]' \
  'all(s["mem_node"] is None or s["mem_node"] >= 0 for s in d["sample_list"])' \
  'd["top"]["data_objects"][0]["kind"] == "workload"'
# The buffer is first touched by one thread: its pages are on the home node.
check "$tmp/wl.json" \
  'd["top"]["data_objects"][0]["on_home"] == d["top"]["data_objects"][0]["resolved"] > 0'
if [ "$nodes" -le 1 ]; then
  check "$tmp/wl.json" 'd["numa"]["elsewhere"] == 0' 'd["workload"]["home_node"] == 0'
fi
# Engine-specific truth: the fallback has no data source and no latency, and
# its samples are first touches (the buffer fill); a precise engine's top
# instruction is the chase load.
check "$tmp/wl.json" \
  '(d["engine"]["name"] != "software") or (not d["data_source"]["available"] and d["data_source"]["note"] == "data source unavailable: software-event sampling does not report it" and d["latency"]["samples"] == 0 and d["data_source"]["levels"] == [{"level": "N/A", "samples": d["samples"]["total"]}])' \
  '(d["engine"]["name"] != "software") or d["top"]["functions_by_samples"][0]["name"] == "mem_workload_run"' \
  '(d["engine"]["name"] == "software") or d["top"]["functions_by_samples"][0]["name"] == "pms_workload_chase"'

# Text report says the same.
"$cli" mem --quiet --size 4M --steps 100000 >"$tmp/wl.txt" 2>&1 || bad "text exit status"
for p in "^engine: " "^samples: " "^data source levels \\(% of all" "^latency " "home node [0-9]+: " \
         "^CPU node x memory node" "^top instructions by samples \\(% of all" "^top data objects \\(% of the" "workload buffer"; do
  grep -Eq "$p" "$tmp/wl.txt" || { bad "text has no /$p/"; }
done
[ $fail = 0 ] || cat "$tmp/wl.txt"

# CSV: a header and one row per sample.
"$cli" mem --quiet --csv --size 4M --steps 100000 >"$tmp/wl.csv" 2>/dev/null || bad "csv exit status"
head -1 "$tmp/wl.csv" | grep -q "^time,pid,tid,cpu,cpu_node,ip,addr," || bad "csv header"
[ "$(wc -l <"$tmp/wl.csv")" -gt 10 ] || bad "csv rows"

# 2. A child that does nothing, and one that touches 32 MiB and stays alive.
"$cli" mem --quiet --json -- /bin/true >"$tmp/true.json" 2>"$tmp/err" || { bad "/bin/true: $?"; cat "$tmp/err"; }
check "$tmp/true.json" 'd["target"]["kind"] == "command" and d["target"]["argv"] == ["/bin/true"]' \
  'd["exit"]["how"] == "exited" and d["exit"]["code"] == 0' 'd["workload"] is None'
"$cli" mem --quiet --json -- python3 -c 'import time; b = bytearray(b"\x01") * (32 << 20); time.sleep(0.5)' \
  >"$tmp/touch.json" 2>"$tmp/err" || { bad "touch program: $?"; cat "$tmp/err"; }
check "$tmp/touch.json" 'd["exit"]["code"] == 0' 'd["samples"]["total"] > 1000' \
  'd["numa"]["resolved"] > 1000' 'd["numa"]["oracle"]["move_pages_calls"] >= 1'
[ "$nodes" -le 1 ] && check "$tmp/touch.json" 'd["numa"]["matrix"] == [[d["numa"]["resolved"] - d["numa"]["matrix_outside"]]]'

# A command that fails and one that crashes: the status says what happened.
"$cli" mem --quiet --json -- sh -c 'exit 3' >"$tmp/exit3.json" 2>"$tmp/err"; rc=$?
[ $rc = 3 ] || bad "exit 3 -> pmuscope exit $rc"
check "$tmp/exit3.json" 'd["exit"]["how"] == "exited" and d["exit"]["code"] == 3'
"$cli" mem --quiet --json -- sh -c 'kill -SEGV $$' >"$tmp/segv.json" 2>"$tmp/err"; rc=$?
[ $rc = 139 ] || bad "SIGSEGV -> pmuscope exit $rc"
grep -q "killed by SIGSEGV" "$tmp/err" || { bad "no SIGSEGV message"; cat "$tmp/err"; }
check "$tmp/segv.json" 'd["exit"]["how"] == "signaled" and d["exit"]["signal"] == 11' \
  'd["samples"]["total"] >= 0'

# 3. Ctrl-C: SIGINT to pmuscope reaches the sleeping child; the report and
# the perf.data file are complete.
"$cli" mem --quiet --json -o "$tmp/int.data" -- sleep 30 >"$tmp/int.json" 2>"$tmp/int.err" &
pm=$!
sleep 1
kill -INT $pm
wait $pm; rc=$?
[ $rc = 130 ] || { bad "SIGINT -> pmuscope exit $rc"; cat "$tmp/int.err"; }
check "$tmp/int.json" 'd["exit"]["interrupted"] is True' \
  'd["exit"]["how"] == "signaled" and d["exit"]["signal"] == 2' 'd["samples"]["total"] > 0'
python3 - "$tmp/int.data" <<'PY' || fail=1
import struct, sys, os
b = open(sys.argv[1], "rb").read()
magic, size, attr_size = struct.unpack_from("<QQQ", b, 0)
a_off, a_size, d_off, d_size = struct.unpack_from("<QQQQ", b, 24)
ok = magic == 0x32454c4946524550 and size == 104 and a_size == attr_size and d_size > 0 \
     and a_off + a_size <= len(b) and d_off + d_size <= len(b)
# walk the data section record by record
off, n = d_off, 0
while ok and off < d_off + d_size:
    typ, misc, sz = struct.unpack_from("<IHH", b, off)
    ok = sz >= 8 and off + sz <= d_off + d_size
    off += sz; n += 1
if not ok or off != d_off + d_size:
    print("FAIL: perf.data after SIGINT is not complete"); sys.exit(1)
PY

# 4. -p: attach to a running process for a while.
sleep 3 & sl=$!
"$cli" mem --quiet --json -p $sl --duration 0.5 >"$tmp/pid.json" 2>"$tmp/err" || { bad "-p exit status $?"; cat "$tmp/err"; }
kill $sl 2>/dev/null; wait $sl 2>/dev/null
check "$tmp/pid.json" 'd["target"]["kind"] == "pid"' 'd["exit"]["timed_out"] is True'

# 5. Unprivileged with perf_event_paranoid 2: own process, user space still
# works; kernel addresses are not shown (proc/kallsyms hides them).
par=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 3)
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && [ "$par" = 2 ]; then
  chmod 755 "$tmp"; cp "$cli" "$tmp/pmuscope"; chmod 755 "$tmp/pmuscope"
  (cd "$tmp" && setpriv --reuid 65534 --regid 65534 --clear-groups ./pmuscope mem --quiet --json \
     --size 32M --steps 100000) >"$tmp/unpriv.json" 2>"$tmp/err" || { bad "unprivileged exit status"; cat "$tmp/err"; }
  check "$tmp/unpriv.json" 'd["kernel_addresses_visible"] is False' 'd["samples"]["total"] > 0' \
    'd["numa"]["resolved"] > 0' \
    'all(s["addr"] is None for k in d["top"] for s in d["top"][k] if s["kernel"])' \
    'any(a["chosen"] for a in d["attempts"])'
else
  echo "SKIP: unprivileged run skipped (needs root, setpriv and perf_event_paranoid 2; have uid $(id -u), paranoid $par)"
  skipped=1
fi


# -o FILE: perf itself opens the file, with the features it needs to name
# things, and shows the same samples and data_src texts as pmuscope script.
"$cli" mem --quiet --json --size 4M --steps 200000 -o "$tmp/mem.data" >"$tmp/o.json" 2>"$tmp/err" \
  || { bad "mem -o exit status"; cat "$tmp/err"; }
# pmuscope report of that file: the same report, from the file (no live
# node lookups: without --phys it says why nodes are unavailable).
"$cli" report --json -i "$tmp/mem.data" >"$tmp/rep.json" 2>"$tmp/err" || { bad "report of the mem -o file"; cat "$tmp/err"; }
python3 - "$tmp/o.json" "$tmp/rep.json" <<'PY' || fail=1
import json, sys
m, r = (json.load(open(p)) for p in sys.argv[1:3])
checks = [
    ("samples", m["samples"]["total"], r["samples"]["total"]),
    ("with_addr", m["samples"]["with_addr"], r["samples"]["with_addr"]),
    ("with_data_src", m["samples"]["with_data_src"], r["samples"]["with_data_src"]),
    ("levels", m["data_source"]["levels"], r["data_source"]["levels"]),
    ("latency", m["latency"]["samples"], r["latency"]["samples"]),
    ("engine", m["engine"]["name"], r["engine"]["name"]),
    ("top function", m["top"]["functions_by_samples"][0]["name"], r["top"]["functions_by_samples"][0]["name"]),
    ("top ip samples", m["top"]["instructions_by_samples"][0]["samples"], r["top"]["instructions_by_samples"][0]["samples"]),
    ("kind", "file", r["target"]["kind"]),
]
if not m["engine"]["phys"]:
    checks.append(("nodes why", True, bool(r["numa"]["nodes_unavailable"])))
for name, a, b in checks:
    if a != b:
        print("FAIL: mem -o then report: %s: mem %r, report %r" % (name, a, b)); sys.exit(1)
PY
"$cli" script -i "$tmp/mem.data" -F ip,addr,data_src 2>"$tmp/err" \
  | awk '{ip=$NF; $NF=""; sub(/^ +/, ""); sub(/ +$/, ""); gsub(/ +/, " "); print $0, ip}' >"$tmp/pms.script" \
  || { bad "pmuscope script of the mem -o file"; cat "$tmp/err"; }
[ -s "$tmp/pms.script" ] || bad "pmuscope script printed no sample of the mem -o file"
# With --phys (where allowed), the report of the file takes each sample's
# node from PHYS_ADDR and the file's MEM_TOPOLOGY: as many as the live run
# resolved from physical addresses, all of them from there.
if "$cli" mem --quiet --json --phys --size 4M --steps 100000 -o "$tmp/phys.data" >"$tmp/phys.json" 2>/dev/null \
   && python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["engine"]["phys"] else 1)' "$tmp/phys.json"; then
  "$cli" report --json -i "$tmp/phys.data" >"$tmp/physrep.json" || bad "report of the --phys file"
  python3 - "$tmp/phys.json" "$tmp/physrep.json" <<'PY' || fail=1
import json, sys
m, r = (json.load(open(p)) for p in sys.argv[1:3])
ok = (r["numa"]["nodes_unavailable"] is None and r["numa"]["resolved"] == m["numa"]["from_phys"]
      and r["numa"]["from_phys"] == r["numa"]["resolved"] and r["numa"]["not_asked"] == 0
      and sum(map(sum, r["numa"]["matrix"])) + r["numa"]["matrix_outside"] == r["numa"]["resolved"])
if not ok:
    print("FAIL: report of a --phys file: live from_phys %d, report numa %r" % (m["numa"]["from_phys"], r["numa"]))
    sys.exit(1)
PY
else
  echo "SKIP: mem --phys not allowed here; file node attribution not checked end to end"
  skipped=1
fi
if [ -x /usr/bin/perf ] && /usr/bin/perf --version >/dev/null 2>&1; then
  ph=$tmp/perfhome; mkdir -p "$ph"
  P() { HOME=$ph PERF_CONFIG=/dev/null /usr/bin/perf "$@" </dev/null; }
  P report --header-only -I -i "$tmp/mem.data" >"$tmp/hdr" 2>&1 || { bad "perf report --header-only"; cat "$tmp/hdr"; }
  for p in "^# hostname : " "^# os release : " "^# arch : " "^# nrcpus online : " \
           "^# node[0-9]+ cpu list : " "^# memory nodes \(nr [0-9]+, block size" "^# pmu mappings: "; do
    grep -Eq "$p" "$tmp/hdr" || bad "perf report --header-only has no /$p/"
  done
  grep -q "^# missing features:.* NUMA_TOPOLOGY" "$tmp/hdr" && bad "NUMA_TOPOLOGY missing"
  P report -D -i "$tmp/mem.data" 2>/dev/null | grep -Eq "^ +COMM events: +[1-9]" || bad "no COMM record"
  P report -D -i "$tmp/mem.data" 2>/dev/null | grep -Eq "^ +MMAP2 events: +[1-9]" || bad "no MMAP2 record"
  P buildid-list -i "$tmp/mem.data" 2>/dev/null | grep -Eq "^[0-9a-f]{40} /" || bad "no build id for a mapped file"
  P script -F ip,addr,data_src -i "$tmp/mem.data" 2>/dev/null \
    | awk '{ip=$NF; $NF=""; sub(/^ +/, ""); sub(/ +$/, ""); gsub(/ +/, " "); print $0, ip}' >"$tmp/perf.script"
  [ "$(wc -l <"$tmp/perf.script")" = "$(wc -l <"$tmp/pms.script")" ] \
    || bad "perf script shows $(wc -l <"$tmp/perf.script") samples, pmuscope script $(wc -l <"$tmp/pms.script")"
  # perf script orders samples by time across CPUs (its ordered-events
  # queue); pmuscope script prints them in file order, which interleaves the
  # per-CPU rings as they were drained: compare the same lines, any order.
  sort "$tmp/perf.script" >"$tmp/perf.sorted"; sort "$tmp/pms.script" >"$tmp/pms.sorted"
  cmp -s "$tmp/perf.sorted" "$tmp/pms.sorted" || { bad "perf script and pmuscope script differ (addr data_src ip)"; diff "$tmp/perf.sorted" "$tmp/pms.sorted" | head -5; }
  P mem report --stdio -i "$tmp/mem.data" >"$tmp/memrep" 2>&1 || { bad "perf mem report exit status"; tail -5 "$tmp/memrep"; }
else
  echo "SKIP: /usr/bin/perf absent; the mem -o file was not opened with perf"
  skipped=1
fi

[ "$fail" = 0 ] && [ "$skipped" = 1 ] && exit 77
exit $fail
