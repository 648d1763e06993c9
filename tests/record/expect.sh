# shellcheck shell=bash
# The JSON checks of report-shape.sh and report-holistic.sh, queued and run in one python
# process at the end (expect.py: a python start costs more than most checks). Needs S R T V
# K P (gen-record's parameters), work (a scratch directory) and bad() from the script.
#   expect WHAT JSON_FILE PYTHON_CHECK   queue a check of JSON_FILE as it is now
#   expect_run                           run the queue; bad() for each check that failed
expect_queue=${work:?}/expect
expect_n=0
mkdir -p "$expect_queue"

expect() { # WHAT JSON_FILE PYTHON_CHECK
	expect_n=$((expect_n + 1))
	printf '%s' "$1" >"$expect_queue/$expect_n.what"
	# a report that wrote nothing fails its check by name, not the script
	cp "$2" "$expect_queue/$expect_n.json" 2>/dev/null || : >"$expect_queue/$expect_n.json"
	printf '%s\n' "$3" >"$expect_queue/$expect_n.py"
}

expect_run() {
	local out
	out=$(WORK=$work S=$S R=$R T=$T V=$V K=$K P=$P python3 "$(dirname "${BASH_SOURCE[0]}")/expect.py" \
		"$expect_queue" 2>&1) || bad "the JSON checks: $out"
}
