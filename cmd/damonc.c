// SPDX-License-Identifier: GPL-2.0-or-later
/* The damonc program: its commands are the damonc-cli library (main.c holds the table). */
#include "damonc.h"

int main(int argc, char **argv)
{
	return damonc_main(argc, argv);
}
