#!/usr/bin/env python3
"""List the C functions longer than a limit (issue 12: no function over ~100 lines outside
tables), longest first: lines from the one with the function's name to its closing brace.

Usage: tests/contrib/long-functions.py [--limit=N] FILE...   (default limit: 100)
e.g.   tests/contrib/long-functions.py cmd/*.c lib/*.c

It reads the project's style (the opening and closing braces of a function alone at the
start of a line, the name's line not indented): a measuring aid for reviewers, no test.
"""
import re
import sys


def functions(path):
    """(lines, name, first line) of each function in @path."""
    lines = open(path, encoding='utf-8').read().split('\n')
    i = 0
    while i < len(lines):
        if lines[i] == '{':
            name, j = None, i - 1
            while j >= 0 and j > i - 8:	# the signature's first line, a few lines up
                m = re.search(r'([A-Za-z_]\w*)\s*\(', lines[j])
                if m and not lines[j].startswith((' ', '\t')):
                    name = m.group(1)
                    break
                j -= 1
            k = i + 1
            while k < len(lines) and lines[k] != '}':
                k += 1
            if name:
                yield k - j + 1, name, j + 1
            i = k
        i += 1


def main(args):
    limit = 100
    if args and args[0].startswith('--limit='):
        limit = int(args[0].split('=', 1)[1])
        args = args[1:]
    rows = [(n, path, name, line) for path in args for n, name, line in functions(path)]
    for n, path, name, line in sorted(rows, key=lambda r: (-r[0], r[1], r[3])):
        if n > limit:
            print(f'{n:5d} {path}:{line} {name}')


if __name__ == '__main__':
    main(sys.argv[1:])
