# bash completion for pmuscope.  Commands and options are read from the
# program's own help ('pmuscope help' and 'pmuscope CMD --help'), the one
# source the man pages are generated from, so they never go stale.
_pmuscope()
{
	local cur prev cmd i words
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	cmd=
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		--root) ((i++)) ;;
		--) break ;;
		-*) ;;
		*) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done
	case $prev in
	--root|-i|--input|-o|--output|--report-file|--catalog)
		COMPREPLY=($(compgen -f -- "$cur")); return ;;
	--engine)
		COMPREPLY=($(compgen -W "ibs pebs spe damon software" -- "$cur")); return ;;
	-t|--type)
		COMPREPLY=($(compgen -W "load store load,store" -- "$cur")); return ;;
	esac
	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "--root --version --help" -- "$cur"))
		else
			words=$("${COMP_WORDS[0]}" help 2>/dev/null | awk '/^Commands:/ { on = 1; next } /^$/ { on = 0 } on { print $1 }')
			COMPREPLY=($(compgen -W "$words" -- "$cur"))
		fi
		return
	fi
	if [[ $cmd == help ]]; then
		words=$("${COMP_WORDS[0]}" help 2>/dev/null | awk '/^Commands:/ { on = 1; next } /^$/ { on = 0 } on { print $1 }')
		COMPREPLY=($(compgen -W "$words" -- "$cur"))
		return
	fi
	if [[ $cur == -* ]]; then
		words=$("${COMP_WORDS[0]}" "$cmd" --help 2>/dev/null |
			grep -oE '^ +(-[A-Za-z], )?--?[A-Za-z][-A-Za-z0-9]*' | grep -oE -- '--?[A-Za-z][-A-Za-z0-9]*')
		COMPREPLY=($(compgen -W "$words" -- "$cur"))
		return
	fi
	COMPREPLY=($(compgen -f -- "$cur"))
}
complete -F _pmuscope pmuscope
