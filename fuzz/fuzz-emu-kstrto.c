// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damon-emu's kstrto*() (emu/kstrto.c), the kernel's integer and boolean parsing as sysfs
 * store handlers see it: what one width accepts, the wider one accepts with the same value.
 */
#include "fuzz.h"
#include "kstrto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_string(data, size);
	unsigned int u, base = size ? data[0] % 3 : 0;
	uint64_t ull;
	int64_t ll;
	int i;
	bool b;

	base = base == 0 ? 0 : base == 1 ? 10 : 16;
	if (!emu_kstrtouint(s, base, &u) && (emu_kstrtoull(s, base, &ull) || ull != u))
		abort();
	if (!emu_kstrtoint(s, base, &i) && (emu_kstrtoll(s, base, &ll) || ll != i))
		abort();
	emu_kstrtobool(s, &b);
	emu_sysfs_streq(s, size > 1 ? s + 1 : "");
	free(s);
	return 0;
}
