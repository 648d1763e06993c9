# fish completion for damonc; commands, options and keywords come from damonc itself.

function __damonc_cmd
	set -l tokens (commandline -opc)
	set -l cmd
	set -l skip 0
	for t in $tokens[2..-1]
		if test $skip -eq 1
			set skip 0
			continue
		end
		switch $t
			case --sysroot
				set skip 1
			case '-*'
			case '*'
				if test (count $cmd) -eq 0
					set cmd $t
				else if test (count $cmd) -eq 1; and damonc --list-cmds 2>/dev/null | string match -q -- "$cmd[1] $t"
					set cmd $cmd $t
				end
		end
	end
	string join ' ' -- $cmd
end

function __damonc_needs_cmd
	test -z (__damonc_cmd)
end

function __damonc_opts
	set -l full (__damonc_cmd)
	test -n "$full"; or return
	for line in (damonc --list-opts "$full" 2>/dev/null)
		set -l parts (string split ' ' -- $line)
		string match -q -- '--*' $parts[1]; and echo $parts[1]
	end
end

function __damonc_value_kind
	set -l prev (commandline -opc)[-1]
	damonc --list-opts (__damonc_cmd) 2>/dev/null | string match -r -- "^$prev (\S+)\$" | tail -n 1
end

function __damonc_values
	set -l kind (__damonc_value_kind)
	switch "$kind"
		case action ops metric tuner filter exposition
			damonc --list-values $kind 2>/dev/null
		case pid
			__fish_complete_pids
	end
end

complete -c damonc -f
complete -c damonc -n __damonc_needs_cmd -a '(damonc --list-cmds 2>/dev/null | string match -v "* *")'
complete -c damonc -n 'not __damonc_needs_cmd' -a '(__damonc_opts)'
complete -c damonc -n 'not __damonc_needs_cmd' -a '(__damonc_values)'
complete -c damonc -l sysroot -r -F
complete -c damonc -l json
complete -c damonc -l verbose -s v
complete -c damonc -l help -s h
complete -c damonc -l version
