#!/usr/bin/env bash
# Man pages and bash completion come from the one help text (issue 18):
# pmuscope(1) and pmuscope-CMD(1) for every command of 'pmuscope help', built
# (and installed by meson install) from the option tables; each page renders
# without groff warnings and names every option --help lists; the completion
# offers the commands and a command's options.
set -u
pms=${1:?usage: man.sh PMUSCOPE}
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${PMS_BUILD_DIR:-$(dirname "$pms")}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL: $*"; fail=1; }

cmds=$("$pms" help | awk '/^Commands:/ { on = 1; next } /^$/ { on = 0 } on && $1 != "help" { print $1 }')
[ -n "$cmds" ] || { echo "FAIL: no commands in 'pmuscope help'"; exit 1; }
"$pms" --man >"$tmp/pmuscope.1" || bad "--man"
cmp -s "$tmp/pmuscope.1" "$build/pmuscope.1" || bad "build/pmuscope.1 is not what --man writes"
for c in $cmds; do
  grep -q "^pmuscope\\\\-$c(1)\$\|BR pmuscope\\\\-$c (1)" "$tmp/pmuscope.1" || bad "pmuscope(1) does not list $c"
  "$pms" --man "$c" >"$tmp/$c.1" || { bad "--man $c"; continue; }
  [ -f "$build/pmuscope-$c.1" ] || bad "the build has no pmuscope-$c.1 (meson.build man_cmds lacks $c?)"
  cmp -s "$tmp/$c.1" "$build/pmuscope-$c.1" || bad "build/pmuscope-$c.1 differs from --man $c"
  if command -v groff >/dev/null; then
    groff -man -Tascii -P-cbou -ww "$tmp/$c.1" >"$tmp/$c.txt" 2>"$tmp/w"
    [ -s "$tmp/w" ] && bad "groff warns on pmuscope-$c.1: $(head -3 "$tmp/w")"
    # every long option of --help is in the page
    for o in $("$pms" "$c" --help | grep -oE '^ +(-[A-Za-z], )?--[a-z][-a-z0-9]*' | grep -oE -- '--[a-z][-a-z0-9]*'); do
      grep -q -- "$o" "$tmp/$c.txt" || bad "pmuscope-$c.1 lacks $o"
    done
  fi
done
"$pms" --man nosuch >/dev/null 2>&1; [ $? = 2 ] || bad "--man nosuch exit"

# completion
comp=$top/tools/completion/pmuscope.bash
[ -r "$comp" ] || { echo "FAIL: no $comp"; exit 1; }
complete_words() { # words... ; the last is the one being completed
  bash -c '
    source "$1"; shift
    COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    _pmuscope; printf "%s\n" "${COMPREPLY[@]}"' _ "$comp" "$@"
}
[ "$(complete_words "$pms" st)" = stat ] || bad "completion of 'st': $(complete_words "$pms" st)"
complete_words "$pms" stat --per-n | grep -qx -- --per-node || bad "completion of 'stat --per-n'"
complete_words "$pms" report --to | grep -qx -- --top || bad "completion of 'report --to'"
complete_words "$pms" help to | grep -qx topology || bad "completion of 'help to'"
complete_words "$pms" mem --engine s | grep -qx software || bad "completion of --engine"
exit $fail
