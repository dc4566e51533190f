#!/usr/bin/env python3
"""Differential test of `pmuscope script` against `perf script` (perf 6.12).

Inputs: the project's recorded fixtures (tests/fuzz/corpus/**.data), the real
files under PMS_SHARED_DATA (skipped when unset) and files recorded here
during the test (perf record of page faults with and without -g and -d,
pmuscope record).  For each input and each option set below, every line
must be equal, byte for byte, wherever perf prints the file at all (a file
perf refuses, or a run with no output from perf, is listed and skipped).

Field classes left out, and why:
  kernel symbol names in files recorded on another kernel: perf relocates
           this host's kallsyms to the recorded kernel's _text (KASLR) and
           names foreign kernel IPs with them; this tool names kernel IPs
           only from the running kernel's symbols as they are.  For files not
           recorded here the name before " ([kernel.kallsyms])" is masked on
           both sides (the address, the DSO and the rest still compared).
  DWARF-unwound user frames (files with STACK_USER): none left out: this
           tool unwinds the copied user stack as report -g does
           (src/session/dwpath.c), and expands each unwound frame in
           inlined code into its inline stack as perf does by default
           (src/session/inlpath.c, src/symbols/inline.c); such files are
           compared twice: perf's default against this tool's, and both
           with --no-inline.  The files recorded here (--call-graph dwarf of the call-path workload
           built without frame pointers, PMS_BUILD_DIR) may differ in at
           most DW_TOL samples a run, each printed: seen once, in -F +addr,
           a data address at a zero-size object (__TMC_END__, where exec
           clears .bss) that perf names by stretching the object to the next
           symbol and this tool leaves [unknown] (a data-symbol rule, not
           the unwind).  The shared DWARF files (KDAB's cpp-inlining and
           contentsize, binaries not here: the unwind stops at a PC in a
           module without an ELF, as perf's) must be equal, but for one
           perf quirk on contentsize (KNOWN_SYM below).
  big-endian pipe files: perf 6.12 swaps the pid/tid pair and the weight
           struct of a foreign-endian sample differently from the kernel's
           layout (pipe_be.data: perf says pid 10 tid 9 where the
           little-endian twin says 9/10); skipped.
  tracepoint files: perf prints their payload (trace) through libtraceevent
           and names them from the tracing data; skipped.
  order: none left out: perf's time order (its ordered events) is this
           tool's too (pms_perfdata_ordered); a run in another order fails.
  aliases: none left out: where several symbols start at one address
           (brk, __brk; strnlen, __strnlen_ifunc) the symbolizer picks
           perf's (choose_best_symbol, src/symbols/symbolizer.c msym_cmp);
           a run that names one by another alias fails.
  [vdso] symbols: none left out: perf names an address in [vdso] from the
           image whose build id the file lists (its build-id cache,
           ~/.debug/[vdso]); this tool from the running kernel's image when
           the ids agree (src/symbols/vdso.c); a run that differs fails.
  PLT entries: none left out: NAME@plt and perf's '.plt' header symbol
           are synthesized as perf does (src/symbols/plt.c); a run that
           differs there fails.
  srcline  perf's line for an address without one depends on its
           addr2line/libdw path (":0" for an entry symbol); not compared.
  trace, iregs, uregs, brstacksym, insn, ... : fields this tool does not print
           (it refuses them by name).
  AUX-trace files (arm_spe, intel_pt): perf synthesizes its own events
           (l1d-miss, tlb-access, ...) from the trace; this tool prints the
           memory operations its way (docs/spe.md): not compared.
  inline frames: none left out: DWARF files are compared with perf's
           default (its "(inlined)" frames) and with --no-inline on both
           sides; one of the files recorded here is a workload whose
           functions are inlined three deep (tests/cli/inline_workload.c,
           --call-graph dwarf and -g: perf 6.12 expands the DWARF one only).
Usage: script_perf.py PMUSCOPE [SRCDIR]
"""
import glob
import re
import os
import shutil
import subprocess
import sys
import tempfile

PMS = sys.argv[1]
SRC = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), '..', '..')
OPTS = [
    [],
    ['-G'],
    ['--ns'],
    ['-F', 'ip,sym,dso,symoff,addr'],
    ['-F', '+addr'],
    ['-F', '-time,-period'],
    ['-F', 'comm,pid,tid,cpu,time,event,period'],
    ['-F', 'ip,sym', '-G'],
    ['-F', 'ip,dso'],
    ['-F', 'sw:comm,tid,ip,sym,dso'],
]
ERRORS = [  # perf's first line of its message, same arguments
    ['-F', 'nosuch'],
    ['-F', 'xx:ip'],
    ['-F', '+ip,comm'],
    ['-F', 'sw:trace'],
    ['-F', ''],
]


KSYM = re.compile(rb'(\bffff[0-9a-f]{12}) (?!\()\S+')


def mask(b):
    """The kernel IP's symbol name (never its address or DSO) masked."""
    return KSYM.sub(rb'\1 SYM', b)


def run(cmd):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           stdin=subprocess.DEVNULL, timeout=120)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return -1, b'', b'timeout'


def record(tmp):
    out = []
    perf = shutil.which('perf')
    if not perf:
        return out
    for name, extra in (('pf_g', ['-d', '-g']), ('pf', ['-d']), ('pf_plain', [])):
        f = os.path.join(tmp, name + '.data')
        rc, _, err = run([perf, 'record', '-q', '-e', 'page-faults', '-o', f] + extra + ['--', '/bin/true'])
        if rc == 0:
            out.append(f)
        else:
            print('note: perf record %s failed: %s' % (name, err.decode(errors='replace')[-200:]))
    nofp = os.path.join(os.environ.get('PMS_BUILD_DIR', ''), 'tests', 'sample', 'pms_callpath_nofp')
    if os.access(nofp, os.X_OK):
        f = os.path.join(tmp, 'dw.data')
        rc, _, err = run([perf, 'record', '-q', '--call-graph', 'dwarf', '-e', 'page-faults', '-c', '1',
                          '-o', f, nofp, 'touch', '300'])
        if rc == 0:
            out.append(f)
        else:
            print('note: perf record --call-graph dwarf failed: %s' % err.decode(errors='replace')[-200:])
    else:
        print('note: no %s (PMS_BUILD_DIR): no DWARF file recorded' % nofp)
    inl = os.path.join(os.environ.get('PMS_BUILD_DIR', ''), 'tests', 'cli', 'pms_inline_work')
    if os.access(inl, os.X_OK):
        for name, cg in (('inl_dw', ['--call-graph', 'dwarf']), ('inl_fp', ['-g'])):
            f = os.path.join(tmp, name + '.data')
            rc, _, err = run([perf, 'record', '-q', '-e', 'cpu-clock', '-c', '2000000', '-o', f]
                             + cg + ['--', inl, '40000'])
            if rc == 0:
                out.append(f)
            else:
                print('note: perf record %s failed: %s' % (name, err.decode(errors='replace')[-200:]))
    else:
        print('note: no %s (PMS_BUILD_DIR): no inline workload recorded' % inl)
    f = os.path.join(tmp, 'pms.data')
    env = dict(os.environ, PMUSCOPE_NO_DAMON='1')
    p = subprocess.run([PMS, 'record', '-o', f, '--', '/bin/true'], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, env=env, timeout=120)
    if p.returncode == 0 and os.path.exists(f):
        out.append(f)
    else:
        print('note: pmuscope record failed: %s' % p.stderr.decode(errors='replace')[-300:])
    return out


# perf 3.x recordings (no FINISHED_ROUND) where perf 6.12 names one thread
# of a process ":TID" (a thread it has no comm for) and this tool names it
# by the comm its FORK gave it: one line each, cause not traced.  Reported,
# not failed (a known difference: docs/script.md).
KNOWN_ORDER = ('perf.data.armv7.perf_3.14-3.8', 'perf.data.callgraph-3.8', 'perf.data.i686-3.4')

# perf 6.12 prints each frame's symbol (no offset; [unknown] where none) in
# the call chains of KDAB's contentsize.data under -F ip,dso, which asks for
# no symbol (it does not on the files recorded here, nor on KDAB's
# cpp-inlining or quipper's callgraph-3.8); with those names taken out the
# lines are equal.  Cause not traced; reported, not failed.
KNOWN_SYM = {('contentsize.data', 'ip,dso')}


def aux_file(f):
    """A file left out (see above): AUX trace, tracepoints, big-endian."""
    if 'intel_pt' in f or f.endswith(('pipe_be.data', 'file_be.data')):
        return True
    rc, out, _ = run([PMS, 'script', '--header', '-i', f])
    if rc == 0 and b'#   AUXTRACE ' in out:
        return True
    rc, out, _ = run(['perf', 'evlist', '-v', '-i', f])
    return rc == 0 and re.search(rb'type: 2\b', out) is not None


def dwarf_file(f):
    """Samples with user registers and stack (perf record --call-graph dwarf)."""
    rc, out, _ = run(['perf', 'evlist', '-v', '-i', f])
    return rc == 0 and b'STACK_USER' in out


# Most samples of the DWARF file recorded here that may differ in a run (see above).
DW_TOL = 2


def samples(b):
    """The output as samples: with call chains, a blank line ends each
    sample (perf's chain form); else one line each."""
    return b.split(b'\n\n') if b'\n\n' in b else b.split(b'\n')


def main():
    if not shutil.which('perf'):
        print('SKIP: perf is not installed')
        return 77
    tmp = tempfile.mkdtemp()
    # perf's inline frames need its addr2line to answer within
    # core.addr2line-timeout (1 s by default: too short for libc's debug
    # file on a loaded host, and perf then drops them)
    with open(os.path.join(tmp, 'perfconfig'), 'w') as pc:
        pc.write('[core]\n\taddr2line-timeout = 120000\n')
    os.environ['PERF_CONFIG'] = os.path.join(tmp, 'perfconfig')
    fails = 0
    compared = 0
    known = 0
    dwdiff = 0
    try:
        files = sorted(glob.glob(os.path.join(SRC, 'tests', 'fuzz', 'corpus', '**', '*.data'),
                                 recursive=True))
        seen = set()
        uniq = []
        for f in files:  # the corpus repeats seeds under several targets
            key = os.path.basename(f)
            if key not in seen:
                seen.add(key)
                uniq.append(f)
        files = uniq
        shared = os.environ.get('PMS_SHARED_DATA')
        if shared:
            files += sorted(glob.glob(os.path.join(shared, 'perf_data_converter', 'src', 'quipper',
                                                   'testdata', 'perf.data.*')))
            files += sorted(glob.glob(os.path.join(shared, 'kdab-perfparser', '**', '*.data*'),
                                      recursive=True))
            files = [f for f in files if not f.endswith(('.txt', '.pb_text', '.zlib', '.json'))]
        else:
            print('note: PMS_SHARED_DATA unset: the shared real files are skipped')
        local = record(tmp)
        files += local
        files = [f for f in files if not aux_file(f)]
        dwarf = set(f for f in files if dwarf_file(f))
        print('%d files, %d with DWARF stacks: %s' % (len(files), len(dwarf),
                                                     ' '.join(os.path.basename(f) for f in sorted(dwarf))))
        runs = [(f, opts) for f in files for opts in OPTS]
        runs += [(f, ['--no-inline'] + opts) for f in files if f in dwarf for opts in OPTS]
        for f, opts in runs:
            if True:
                prc, pout, perr = run(['perf', 'script', '-i', f] + opts)
                if prc != 0 or not pout:
                    print('skip: perf script %s %s: rc %d, %d bytes' % (' '.join(opts), f, prc, len(pout)))
                    continue
                rc, out, err = run([PMS, 'script', '-i', f] + opts)
                if f not in local:
                    pout, out = mask(pout), mask(out)
                compared += 1
                if rc == 0 and out != pout and os.path.basename(f) in KNOWN_ORDER:
                    known += 1
                    print('known: script %s %s: perf 3.x file, one thread named :TID by perf' % (' '.join(opts), f))
                    continue
                if rc == 0 and out != pout and (os.path.basename(f), opts[-1] if opts else None) in KNOWN_SYM and \
                   re.sub(rb'(?m)^(\t *[0-9a-f]+) \S+ \(', rb'\1 (', pout) == out:
                    known += 1
                    print('known: script %s %s: perf names chain frames under -F ip,dso' % (' '.join(opts), f))
                    continue
                if rc == 0 and out != pout and f in local and f in dwarf:
                    so, sp = samples(out), samples(pout)
                    nd = sum(1 for a, b in zip(so, sp) if a != b)
                    if len(so) == len(sp) and nd <= DW_TOL:
                        dwdiff += 1
                        print('dwarf: script %s %s: %d of %d samples differ (at most %d):'
                              % (' '.join(opts), f, nd, len(sp), DW_TOL))
                        for a, b in zip(so, sp):
                            if a != b:
                                print('  perf: %r\n  ours: %r' % (b[:400], a[:400]))
                        continue
                if rc != 0 or out != pout:
                    fails += 1
                    pl = pout.decode(errors='replace').split('\n')
                    ol = out.decode(errors='replace').split('\n')
                    n = next((i for i in range(min(len(pl), len(ol))) if pl[i] != ol[i]),
                             min(len(pl), len(ol)))
                    print('FAIL: script %s %s (rc %d): %d lines vs perf %d; first difference, line %d:'
                          % (' '.join(opts), f, rc, len(ol), len(pl), n + 1))
                    print('  perf: %r' % (pl[n] if n < len(pl) else None))
                    print('  ours: %r' % (ol[n] if n < len(ol) else None))
                    if err:
                        print('  stderr: %s' % err.decode(errors='replace')[:300])
        if files:
            f = files[-1]
            for opts in ERRORS:
                prc, _, perr = run(['perf', 'script', '-i', f] + opts)
                rc, _, err = run([PMS, 'script', '-i', f] + opts)
                pw = perr.decode(errors='replace').split('\n')[0]
                ow = err.decode(errors='replace').split('\n')[0]
                compared += 1
                if prc == 0 or rc == 0 or pw != ow:
                    fails += 1
                    print('FAIL: error %s: perf rc %d %r, ours rc %d %r' % (opts, prc, pw, rc, ow))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print('%d comparisons, %d different, %d known (perf 3.x comm, kernel names), '
          '%d DWARF runs within %d samples' % (compared, fails, known, dwdiff, DW_TOL))
    return 1 if fails else 0


sys.exit(main())
