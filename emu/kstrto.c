// SPDX-License-Identifier: GPL-2.0-or-later
/* Kernel-compatible string conversions; see kstrto.h. */
#include <errno.h>
#include <limits.h>

#include "kstrto.h"

static int lower(int c)
{
	return c | 0x20;
}

static bool is_xdigit(int c)
{
	return (c >= '0' && c <= '9') || (lower(c) >= 'a' && lower(c) <= 'f');
}

/* Base 0 picks 16 for "0x" followed by a hex digit, 8 for a leading 0, else 10. */
static const char *fixup_radix(const char *s, unsigned int *base)
{
	if (*base == 0) {
		if (s[0] == '0')
			*base = (lower(s[1]) == 'x' && is_xdigit(s[2])) ? 16 : 8;
		else
			*base = 10;
	}
	if (*base == 16 && s[0] == '0' && lower(s[1]) == 'x')
		s += 2;
	return s;
}

/*
 * Accumulate digits; like the kernel, keep counting digits after an overflow so that the
 * overflow wins over trailing garbage (ERANGE, not EINVAL).
 */
static unsigned int parse_digits(const char *s, unsigned int base, uint64_t *res,
				 bool *overflow)
{
	uint64_t v = 0;
	unsigned int n = 0;

	*overflow = false;
	for (;; s++, n++) {
		unsigned int d;
		int c = (unsigned char)*s;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (lower(c) >= 'a' && lower(c) <= 'f')
			d = lower(c) - 'a' + 10;
		else
			break;
		if (d >= base)
			break;
		if (v > (UINT64_MAX - d) / base)
			*overflow = true;
		v = v * base + d;
	}
	*res = v;
	return n;
}

static int parse_ull(const char *s, unsigned int base, uint64_t *res)
{
	uint64_t v;
	bool overflow;
	unsigned int n;

	s = fixup_radix(s, &base);
	n = parse_digits(s, base, &v, &overflow);
	if (overflow)
		return -ERANGE;
	if (n == 0)
		return -EINVAL;
	s += n;
	if (*s == '\n')
		s++;
	if (*s)
		return -EINVAL;
	*res = v;
	return 0;
}

int emu_kstrtoull(const char *s, unsigned int base, uint64_t *res)
{
	if (s[0] == '+')
		s++;
	return parse_ull(s, base, res);
}

int emu_kstrtoll(const char *s, unsigned int base, int64_t *res)
{
	uint64_t v;
	int err;

	if (s[0] == '-') {
		err = parse_ull(s + 1, base, &v);
		if (err)
			return err;
		if (v > (uint64_t)INT64_MAX + 1)
			return -ERANGE;
		*res = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
		return 0;
	}
	err = emu_kstrtoull(s, base, &v);
	if (err)
		return err;
	if (v > INT64_MAX)
		return -ERANGE;
	*res = (int64_t)v;
	return 0;
}

int emu_kstrtouint(const char *s, unsigned int base, unsigned int *res)
{
	uint64_t v;
	int err = emu_kstrtoull(s, base, &v);

	if (err)
		return err;
	if (v > UINT_MAX)
		return -ERANGE;
	*res = (unsigned int)v;
	return 0;
}

int emu_kstrtoint(const char *s, unsigned int base, int *res)
{
	int64_t v;
	int err = emu_kstrtoll(s, base, &v);

	if (err)
		return err;
	if (v < INT_MIN || v > INT_MAX)
		return -ERANGE;
	*res = (int)v;
	return 0;
}

/*
 * Only the first character decides, except "on"/"off" which need the second one. 't'/'T'
 * and 'f'/'F' ("true", "false") are accepted since 5.19 (lib/kstrtox.c, "add
 * false/true support to kstrtobool()"), so by every profile.
 */
int emu_kstrtobool(const char *s, bool *res)
{
	switch (s[0]) {
	case 'y': case 'Y': case 't': case 'T': case '1':
		*res = true;
		return 0;
	case 'n': case 'N': case 'f': case 'F': case '0':
		*res = false;
		return 0;
	case 'o': case 'O':
		if (lower(s[1]) == 'n') {
			*res = true;
			return 0;
		}
		if (lower(s[1]) == 'f') {
			*res = false;
			return 0;
		}
		break;
	}
	return -EINVAL;
}

bool emu_sysfs_streq(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	if (*a == *b)
		return true;
	if (!*a && *b == '\n' && !b[1])
		return true;
	if (*a == '\n' && !a[1] && !*b)
		return true;
	return false;
}
