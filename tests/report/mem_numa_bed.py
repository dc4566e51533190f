#!/usr/bin/env python3
"""pmuscope mem in the x86 multi-node QEMU guest (tests/beds, 4 nodes, node 3
memory-only): the built-in workload bound to each node in turn must have its
buffer classified to that node for 100 % of its resolved samples, the matrix
must show it, and --verify-node must find no disagreement between
get_mempolicy and move_pages.  Skips (77) when the beds' cache (kernel,
busybox) or QEMU is missing: run `meson test --suite beds` once to fetch it.
usage: mem_numa_bed.py [WORKDIR]"""
import json, os, shutil, stat, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, 'tests', 'beds'))
import beds  # noqa: E402  (the beds' initramfs writer and QEMU command line)

NODES = 4
INIT = r'''#!/bin/sh
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
echo "@@BED-START"
for n in %s; do
  echo "@@BEGIN mem_node$n"
  /bin/pmuscope mem --quiet --json --verify-node --node $n --size 8M --steps 100000 2>&1
  echo "@@END mem_node$n rc=$?"
done
echo "@@BED-DONE"
poweroff -f
''' % ' '.join(str(n) for n in range(NODES))


def skip(why):
    print('SKIP: ' + why)
    sys.exit(77)


def main():
    work = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix='pms-mem-bed-')
    busybox = os.path.join(beds.CACHE, 'busybox-amd64')
    if not shutil.which('qemu-system-x86_64'):
        skip('no qemu-system-x86_64')
    try:
        kernel = beds.kernel_for('x86_64')
    except (SystemExit, OSError) as e:
        skip('no bed kernel in %s (%s)' % (beds.CACHE, e))
    if not os.path.exists(busybox):
        skip('no %s' % busybox)
    bindir = os.path.join(work, 'build')
    r = subprocess.run(['bash', os.path.join(TOP, 'tests', 'beds', 'build.sh'), 'x86_64', bindir],
                       capture_output=True, text=True)
    if r.returncode == 77:
        skip('static build not possible: ' + r.stderr.strip())
    if r.returncode != 0:
        print(r.stdout + r.stderr)
        print('FAIL: static build')
        return 1
    E = beds.cpio_entry
    parts = [E('bin', stat.S_IFDIR | 0o755)]
    parts += [E(d, stat.S_IFDIR | 0o755) for d in ('proc', 'sys', 'dev', 'tmp')]
    parts.append(E('init', stat.S_IFREG | 0o755, INIT.encode()))
    parts.append(E('bin/busybox', stat.S_IFREG | 0o755, open(busybox, 'rb').read()))
    parts += [E('bin/' + a, stat.S_IFLNK | 0o777, b'busybox') for a in beds.APPLETS]
    parts.append(E('bin/pmuscope', stat.S_IFREG | 0o755,
                   open(os.path.join(bindir, 'pmuscope'), 'rb').read()))
    parts.append(E('TRAILER!!!', 0))
    initrd = os.path.join(work, 'initrd-mem.cpio')
    open(initrd, 'wb').write(b''.join(parts))
    cmd = beds.qemu_cmd('x86', beds.BEDS['x86'], kernel, initrd)
    out = subprocess.run(['timeout', '-k', '5', '300'] + cmd, capture_output=True).stdout
    out = out.decode(errors='replace')
    open(os.path.join(work, 'console-mem.log'), 'w').write(out)
    blocks, _, markers = beds.parse_console(out)
    fail = 0

    def bad(what):
        nonlocal fail
        print('FAIL: ' + what)
        fail = 1

    if 'BED-DONE' not in markers:
        bad('the guest did not finish; console in %s' % work)
    for n in range(NODES):
        b = blocks.get('mem_node%d' % n)
        if not b:
            bad('node %d: no output' % n)
            continue
        txt = '\n'.join(b['lines'])
        try:
            d = json.loads(txt[txt.index('{'):txt.rindex('}') + 1])
        except ValueError as e:
            bad('node %d: no JSON (%s): %s' % (n, e, txt[:400]))
            continue
        nm, obj = d['numa'], d['top']['data_objects'][0]
        col = nm['nodes'].index(n) if n in nm['nodes'] else None
        print('node %d: home %s, buffer %d/%d resolved samples on it, all resolved %d '
              '(elsewhere %d: binary, stack, libc pages), verify %s/%s disagree, matrix %s'
              % (n, d['workload']['home_node'], obj['on_home'], obj['resolved'], nm['resolved'],
                 nm['elsewhere'], nm['verify']['disagree'], nm['verify']['checked'], nm['matrix']))
        if b['rc'] != 0:
            bad('node %d: exit status %s' % (n, b['rc']))
        if d['workload']['home_node'] != n:
            bad('node %d: home node is %s' % (n, d['workload']['home_node']))
        if obj['kind'] != 'workload' or obj['resolved'] == 0 or obj['on_home'] != obj['resolved']:
            bad('node %d: buffer not 100%% on its node: %s' % (n, obj))
        if not nm['verify']['checked'] or nm['verify']['disagree'] != 0 or nm['verify']['errors'] != 0:
            bad('node %d: verify %s' % (n, nm['verify']))
        if col is None or sum(row[col] for row in nm['matrix']) < obj['on_home']:
            bad('node %d: matrix column does not hold the buffer' % n)
    return fail


if __name__ == '__main__':
    sys.exit(main())
