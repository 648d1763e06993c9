# bash completion for damonc. Commands, options and their values come from damonc itself
# (--list-cmds, --list-opts, --list-values), so this file never drifts from the code.
_damonc()
{
	# standalone: no dependency on the bash-completion package's helpers
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local -a words=("${COMP_WORDS[@]}") topic=() args=()
	local cword=$COMP_CWORD i cmd="" sub="" all root=${DAMONC_SYSROOT:-}
	all=$(damonc --list-cmds 2>/dev/null)

	for ((i = 1; i < cword; i++)); do
		case "${words[i]}" in
		--)
			# '-- COMMAND ARGS' (start, record, monitor): the command's own line from here on
			if [[ -n $cmd ]]; then
				if declare -F _command_offset >/dev/null; then
					_command_offset $((i + 1))
				elif ((cword == i + 1)); then
					mapfile -t COMPREPLY < <(compgen -c -- "$cur" | sort -u)
				else
					mapfile -t COMPREPLY < <(compgen -f -- "$cur")
				fi
				return
			fi
			;;
		--sysroot)
			if [[ ${words[i + 1]:-} == = ]]; then
				root=${words[i + 2]:-}
				((i += 2))
			else
				root=${words[i + 1]:-}
				((i++))
			fi
			;;
		--batch) ((i++)) ;;
		=) ((i++)) ;;	# '--option=VALUE', split by bash: the value is no command
		-*) ;;
		*)
			if [[ -z $cmd ]]; then
				cmd=${words[i]}
			elif [[ $cmd == module ]]; then
				args+=("${words[i]}")
			elif [[ $cmd == help ]]; then
				topic+=("${words[i]}")
			elif [[ -z $sub ]] && grep -qx "$cmd ${words[i]}" <<<"$all"; then
				sub=${words[i]}
			fi
			;;
		esac
	done

	local -a offer=() sysroot=()
	local full=$cmd kind
	[[ -n $sub ]] && full="$cmd $sub"
	[[ -n $root ]] && sysroot=(--sysroot "$root")
	# --option=VALUE: bash splits the word at '=' (COMP_WORDBREAKS), as "--option" "=" "VALUE"
	if [[ $cur == = ]]; then
		prev=${words[cword - 1]} cur=
	elif [[ $prev == = ]]; then
		prev=${words[cword - 2]}
	else
		prev=${prev%%=*}
		[[ $cur == --*=* ]] && prev=${cur%%=*} cur=${cur#*=}
	fi
	[[ $cmd == help ]] ||
		kind=$(damonc --list-opts "$full" 2>/dev/null | awk -v o="$prev" '$1 == o { print $2 }')
	# an optional value (--json[=pretty|compact]) only after '='
	if [[ $kind == optional ]] && [[ ${words[cword]} == = || ${words[cword - 1]} == = ]]; then
		kind=values
	fi
	case "$kind" in
	file) mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return ;;
	dir) mapfile -t COMPREPLY < <(compgen -d -- "$cur"); return ;;
	pid)
		mapfile -t COMPREPLY < <(compgen -W "$(cd /proc && printf '%s\n' [0-9]*)" -- "$cur")
		return ;;
	flag | optional | "") ;;
	*)
		# keywords, choices, the tree's kdamonds; nothing for what people type (times, ...)
		mapfile -t COMPREPLY < <(compgen -W "$(damonc "${sysroot[@]}" --list-values "$full" "$prev" 2>/dev/null)" -- "$cur")
		[[ ${COMPREPLY[0]:-} == *= ]] && compopt -o nospace 2>/dev/null
		return ;;
	esac

	if [[ $cmd == module && $cur != -* ]]; then
		# the modules and parameters this machine (or --sysroot) has
		if [[ ${#args[@]} == 0 ]]; then
			mapfile -t offer < <(damonc "${sysroot[@]}" --list-modules 2>/dev/null)
		elif [[ ${#args[@]} == 1 ]]; then
			offer=(enable disable set)
		elif [[ ${args[1]} == set ]]; then
			mapfile -t offer < <(damonc "${sysroot[@]}" --list-modules "${args[0]}" 2>/dev/null)
		fi
		mapfile -t COMPREPLY < <(compgen -W "${offer[*]}" -- "$cur")
		[[ ${COMPREPLY[0]:-} == *= ]] && compopt -o nospace 2>/dev/null
		return
	fi
	if [[ -z $cmd && $cur == -* ]]; then
		mapfile -t offer < <(damonc --list-opts '' 2>/dev/null | awk '$1 ~ /^--/ { print $1 }')
	elif [[ -z $cmd ]]; then
		mapfile -t offer < <(grep -v ' ' <<<"$all"; echo help)
	elif [[ $cmd == help ]]; then
		# damonc help COMMAND [SUBCOMMAND]
		if [[ ${#topic[@]} == 0 ]]; then
			mapfile -t offer < <(grep -v ' ' <<<"$all")
		elif [[ ${#topic[@]} == 1 ]]; then
			mapfile -t offer < <(sed -n "s/^${topic[0]} //p" <<<"$all")
		fi
	elif [[ -z $sub ]] && grep -q "^$cmd " <<<"$all"; then
		mapfile -t offer < <(sed -n "s/^$cmd //p" <<<"$all")
	elif [[ $cur == -* ]]; then
		mapfile -t offer < <(damonc --list-opts "$full" 2>/dev/null | awk '$1 ~ /^--/ { print $1 }')
	fi
	mapfile -t COMPREPLY < <(compgen -W "${offer[*]}" -- "$cur")
}
complete -F _damonc damonc
