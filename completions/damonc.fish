# fish completion for damonc; commands, options, their descriptions and values come from
# damonc itself (--describe-cmds, --list-opts, --list-values), so they never drift.

# The words typed so far that are not options or option values (--sysroot DIR, --batch FILE).
function __damonc_words
	set -l tokens (commandline -opc)
	set -l skip 0
	for t in $tokens[2..-1]
		if test $skip -eq 1
			set skip 0
			continue
		end
		switch $t
			case --sysroot --batch
				set skip 1
			case '-*'
			case '*'
				echo $t
		end
	end
end

# The command words typed so far: "status", "report heatmap", "help report", ...
function __damonc_cmd
	set -l cmd
	for t in (__damonc_words)
		if test (count $cmd) -eq 0
			set cmd $t
		else if test "$cmd[1]" = help
			set cmd $cmd $t
		else if test (count $cmd) -eq 1; and damonc --list-cmds 2>/dev/null | string match -q -- "$cmd[1] $t"
			set cmd $cmd $t
		end
	end
	string join ' ' -- $cmd
end

# The words after "module" (its NAME, action and PARAM=VALUE), and the sysroot the line or
# $DAMONC_SYSROOT names.
function __damonc_module_args
	set -l seen 0
	for t in (__damonc_words)
		if test $seen -eq 1
			echo $t
		else if test $t = module
			set seen 1
		end
	end
end

function __damonc_sysroot
	set -l tokens (commandline -opc)
	set -l i (contains -i -- --sysroot $tokens)
	and test (count $tokens) -gt $i
	and echo $tokens[(math $i + 1)]
	and return
	set -l eq (string replace -f -r -- '^--sysroot=' '' $tokens)
	and echo $eq[1]
	and return
	set -q DAMONC_SYSROOT; and echo $DAMONC_SYSROOT
end

# "--sysroot DIR" when the line or $DAMONC_SYSROOT names one, for damonc's live values
function __damonc_sysroot_opt
	set -l root (__damonc_sysroot)
	test -n "$root"; and printf '%s\n' --sysroot $root
end

# the modules and parameters this machine (or --sysroot) has, as damonc lists them
function __damonc_module_complete
	set -l args (__damonc_module_args)
	switch (count $args)
		case 0
			damonc (__damonc_sysroot_opt) --list-modules 2>/dev/null
		case 1
			printf '%s\n' enable disable set
		case '*'
			test "$args[2]" = set; or return
			damonc (__damonc_sysroot_opt) --list-modules $args[1] 2>/dev/null
	end
end

# The kind of the value the previous token asks for ("" when it is no option with a value).
function __damonc_value_kind
	set -l full (__damonc_cmd)
	set -l prev (commandline -opc)[-1]
	string match -q -- '-*' $prev; or return
	set -l kind (damonc --list-opts "$full" 2>/dev/null | string match -r -- "^\Q$prev\E (\S+)" | tail -n 1)
	switch "$kind"
		case flag optional ''
		case '*'
			echo $kind
	end
end

# "name<TAB>summary" of the commands under $argv[1] ('' for the top level)
function __damonc_described
	for line in (damonc --describe-cmds 2>/dev/null)
		set -l parts (string split -m 1 \t -- $line)
		if test -z "$argv[1]"
			string match -q -- '* *' $parts[1]; or printf '%s\t%s\n' $parts[1] $parts[2]
		else if string match -q -- "$argv[1] *" $parts[1]
			printf '%s\t%s\n' (string replace -- "$argv[1] " '' $parts[1]) $parts[2]
		end
	end
end

# What to offer at the cursor.
function __damonc_complete
	# '-- COMMAND ARGS' (start, record, monitor): the command's own line from there on
	set -l tokens (commandline -opc)
	set -l dd (contains -i -- -- $tokens[3..-1])
	if test -n "$dd"
		__fish_complete_subcommand --commandline $tokens[(math $dd + 3)..-1] (commandline -ct)
		return
	end
	set -l full (__damonc_cmd)
	set -l words (string split ' ' -- $full)
	set -l kind (__damonc_value_kind)
	set -l cur (commandline -ct)
	# --option=VALUE (--json=pretty): the option's values after its '='
	if string match -q -r -- '^--[^=]+=' $cur
		set -l opt (string replace -r -- '=.*' '' $cur)
		set -l okind (damonc --list-opts "$full" 2>/dev/null | string match -r -- "^\Q$opt\E (\S+)" | tail -n 1)
		switch "$okind"
			case '' flag file dir pid
			case '*'
				for v in (damonc (__damonc_sysroot_opt) --list-values "$full" $opt 2>/dev/null)
					echo $opt=$v
				end
		end
		return
	end
	if test -n "$kind"
		switch $kind
			case file
				__fish_complete_path $cur
			case dir
				__fish_complete_directories $cur
			case pid
				__fish_complete_pids
			case '*'
				# keywords, choices, the tree's kdamonds; nothing for what people type
				damonc (__damonc_sysroot_opt) --list-values "$full" (commandline -opc)[-1] 2>/dev/null
		end
		return
	end
	if test -z "$full"
		if string match -q -- '-*' $cur
			__damonc_opts ''
		else
			__damonc_described ''
			printf 'help\tshow the usage of a command\n'
		end
		return
	end
	if test "$words[1]" = module; and not string match -q -- '-*' $cur
		__damonc_module_complete
		return
	end
	if test "$words[1]" = help
		switch (count $words)
			case 1
				__damonc_described ''
			case 2
				__damonc_described $words[2]
		end
		return
	end
	if test (count $words) -eq 1; and damonc --list-cmds 2>/dev/null | string match -q -- "$words[1] *"
		__damonc_described $words[1]
		return
	end
	string match -q -- '-*' $cur; and __damonc_opts $full
end

# "--option<TAB>description" of command $argv[1] ('' before any command)
function __damonc_opts
	for line in (damonc --list-opts "$argv[1]" 2>/dev/null)
		set -l parts (string split -m 2 ' ' -- $line)
		string match -q -- '--*' $parts[1]; and printf '%s\t%s\n' $parts[1] $parts[3]
	end
end

complete -c damonc -f -a '(__damonc_complete)'
