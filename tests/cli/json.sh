#!/usr/bin/env bash
# Every JSON document (issue 18): written with jansson, valid UTF-8 even for
# an argv byte 0xff, schema_version and the producer (pmuscope version,
# host, kernel, CPU model) first, floats rounded to 10 significant digits.
set -u
pms=${1:?usage: json.sh PMUSCOPE}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL: $*"; fail=1; }
ver=$("$pms" --version | awk '{ print $3 }')

check() { # name file
  python3 - "$2" "$ver" "$(uname -n)" "$(uname -r)" <<'PY' || bad "$1: $(head -c 300 "$2")"
import json, re, sys
raw = open(sys.argv[1], "rb").read()
text = raw.decode("utf-8")          # strict: invalid UTF-8 fails here
d = json.loads(text)
keys = list(d)
assert keys[:2] == ["schema_version", "pmuscope"], keys[:3]
assert isinstance(d["schema_version"], int)
p = d["pmuscope"]
assert p["version"] == sys.argv[2], p
assert p["host"] == sys.argv[3] and p["kernel"] == sys.argv[4], p
assert "cpu_model" in p
# no float printed with more than 10 significant digits (0.30000000000000004)
for m in re.finditer(r'(?<![\w".])-?\d+\.\d+(?:[eE][-+]?\d+)?(?![\w"])', text):
    mant = m.group(0).lstrip("-").split("e")[0].split("E")[0].replace(".", "").lstrip("0")
    assert len(mant) <= 10, m.group(0)
PY
}
"$pms" topology --json >"$tmp/topology.json"; check topology "$tmp/topology.json"
"$pms" list --json >"$tmp/list.json"; check list "$tmp/list.json"
"$pms" events --json page-faults >"$tmp/events.json"; check events "$tmp/events.json"
"$pms" encode --json page-faults >"$tmp/encode.json"; check encode "$tmp/encode.json"
"$pms" datasrc --json 0x68100142 >"$tmp/datasrc.json"; check datasrc "$tmp/datasrc.json"
"$pms" stat -j -e task-clock,page-faults -r 2 -- true 2>"$tmp/stat.json"; check stat "$tmp/stat.json"
"$pms" mem --json --quiet --size 1M -o "$tmp/m.data" >"$tmp/mem.json" 2>/dev/null; check mem "$tmp/mem.json"
"$pms" report --json -i "$tmp/m.data" >"$tmp/report.json"; check report "$tmp/report.json"
"$pms" c2c --json -i "$tmp/m.data" >"$tmp/c2c.json"; check c2c "$tmp/c2c.json"
# argv with a byte 0xff: the document stays valid UTF-8 (U+FFFD in its place)
"$pms" stat -j -e task-clock -- sh -c true $'\xff' 2>"$tmp/ff.json"; check "stat argv 0xff" "$tmp/ff.json"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
assert d["command"][-1] == "\ufffd", d["command"]' "$tmp/ff.json" || bad "0xff not replaced by U+FFFD"
"$pms" mem --json --quiet -- sh -c true $'a\xffb' >"$tmp/mff.json" 2>/dev/null; check "mem argv 0xff" "$tmp/mff.json"
# a u64 beyond 2^63 stays exact (jansson's integers are long long)
"$pms" encode --json 'software/config=0xffffffffffffffff/' >"$tmp/big.json"; check "encode u64" "$tmp/big.json"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["events"][0]["config"] == 2**64 - 1, d["events"][0]["config"]' "$tmp/big.json" || bad "u64 config not exact"
# JSON Lines (script --json, stat -I --json): one compact valid document per line
"$pms" script --json -F ip,event -i "$tmp/m.data" | head -50 >"$tmp/s.jsonl"
python3 -c '
import json, sys
for l in open(sys.argv[1], encoding="utf-8"):
    json.loads(l)' "$tmp/s.jsonl" || bad "script --json lines"
exit $fail
