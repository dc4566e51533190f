#!/usr/bin/env python3
"""Run a recorder and print its own peak resident memory and CPU time.

    bench/recorder_usage.py OUT ERR CMD [ARG...]

Prints "HWM_KB CPU_S": VmHWM polled every 20 ms from /proc/PID/status (a
dead process has none), and the recorder's user + system time read from
/proc/PID/stat once it has exited but before it is reaped (waitid with
WNOWAIT), so the CPU figure is the whole run's, threads included, and not
its children's (the workload it waited for is counted in cutime/cstime,
not read).  Resolution: the kernel's clock tick (CLK_TCK).
"""
import os
import subprocess
import sys
import time

out, err, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
tck = os.sysconf("SC_CLK_TCK")
with open(out, "wb") as fo, open(err, "wb") as fe:
    p = subprocess.Popen(cmd, stdout=fo, stderr=fe)
hwm = 0
while True:
    try:
        with open(f"/proc/{p.pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    hwm = max(hwm, int(line.split()[1]))
    except OSError:
        pass
    r = os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    if r is not None:
        break
    time.sleep(0.02)
with open(f"/proc/{p.pid}/stat") as f:
    st = f.read()
fields = st[st.rindex(")") + 2:].split()  # fields from 3 (state) on
cpu = (int(fields[11]) + int(fields[12])) / tck  # 14 utime, 15 stime
p.wait()
print(hwm, cpu)
