"""What the tests of the per-file kernel rule read of pmuscope's outputs
on kernel_file_gen.py's files, and their verdict (report_fetch_kernel.sh,
report_merge_pipe.sh, kernel_judge_point.sh, kernel_sort_merge.sh import
it: PYTHONPATH=tests/cli)."""
import collections
import json
import sys


def functions(path, module=False):
    """report --json's functions: {name (, module): samples}"""
    c = collections.Counter()
    for x in json.load(open(path))["top"]["functions_by_samples"]:
        c[(x["name"], x["module"]) if module else x["name"]] += x["samples"]
    return c


def fetch_rows(path):
    """report --fetch's function rows: {function: samples}, total left out"""
    c = collections.Counter()
    for line in open(path):
        p = line.split()
        if line.startswith("#") or not p or not p[0].isdigit() or p[-1] == "total":
            continue
        c[p[-1]] += int(p[0])
    return c


def sort_rows(path):
    """report -n -s KEYS's rows: {the keys' text: samples}"""
    c = collections.Counter()
    for line in open(path):
        p = line.split(None, 2)
        if len(p) == 3 and p[0].endswith("%") and p[1].isdigit():
            c[" ".join(p[2].split())] += int(p[1])
    return c


def named_kernel(funcs):
    """the kernel functions a {name: samples} names"""
    return {k for k in funcs if k not in ("[kernel]", "[unknown]")}


def verdict(bad):
    """each problem a FAIL line; exits 1 with any, else 0"""
    for b in bad:
        print("FAIL:", b)
    sys.exit(1 if bad else 0)
