# bash completion for damonc. Commands, options and keywords come from damonc itself
# (--list-cmds, --list-opts, --list-values), so this file never drifts from the code.
_damonc()
{
	# standalone: no dependency on the bash-completion package's helpers
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local -a words=("${COMP_WORDS[@]}")
	local cword=$COMP_CWORD

	local i cmd="" sub=""
	for ((i = 1; i < cword; i++)); do
		case "${words[i]}" in
		--sysroot) ((i++)) ;;
		-*) ;;
		*)
			if [[ -z $cmd ]]; then
				cmd=${words[i]}
			elif [[ -z $sub ]] && damonc --list-cmds 2>/dev/null | grep -qx "$cmd ${words[i]}"; then
				sub=${words[i]}
			fi
			;;
		esac
	done

	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			mapfile -t COMPREPLY < <(compgen -W "--sysroot --json --verbose --help --version" -- "$cur")
		else
			mapfile -t COMPREPLY < <(compgen -W "$(damonc --list-cmds 2>/dev/null | grep -v ' ') help" -- "$cur")
		fi
		return
	fi
	local full=$cmd
	[[ -n $sub ]] && full="$cmd $sub"
	if [[ -z $sub ]] && damonc --list-cmds 2>/dev/null | grep -q "^$cmd "; then
		mapfile -t COMPREPLY < <(compgen -W "$(damonc --list-cmds 2>/dev/null | sed -n "s/^$cmd //p")" -- "$cur")
		return
	fi

	local kind
	kind=$(damonc --list-opts "$full" 2>/dev/null | awk -v o="$prev" '$1 == o { print $2 }')
	case "$kind" in
	file) mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return ;;
	dir) mapfile -t COMPREPLY < <(compgen -d -- "$cur"); return ;;
	pid)
		mapfile -t COMPREPLY < <(compgen -W "$(cd /proc && printf '%s\n' [0-9]*)" -- "$cur")
		return ;;
	action | ops | metric | tuner | filter)
		mapfile -t COMPREPLY < <(compgen -W "$(damonc --list-values "$kind" 2>/dev/null)" -- "$cur")
		compopt -o nospace 2>/dev/null
		return ;;
	exposition)
		mapfile -t COMPREPLY < <(compgen -W "$(damonc --list-values "$kind" 2>/dev/null)" -- "$cur")
		return ;;
	flag | "") ;;
	*) return ;;	# a value to type: time, size, percent, ...
	esac
	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(damonc --list-opts "$full" 2>/dev/null | awk '{ print $1 }')" -- "$cur")
	fi
}
complete -F _damonc damonc
