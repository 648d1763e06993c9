// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A PNG is a signature and chunks (length, type, data, CRC-32 of type and data): IHDR,
 * IDAT holding the zlib-compressed scanlines (each led by its filter type, 0 here), and
 * IEND. That is all a heatmap needs, without libpng.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "image.h"

/* inferno-like stops: dark (cold) to bright yellow (hot) */
static const uint8_t stops[][3] = {
	{ 0, 0, 4 }, { 87, 16, 110 }, { 188, 55, 84 }, { 249, 142, 9 }, { 252, 255, 164 },
};

void heat_rgb(double v, uint8_t rgb[3])
{
	const unsigned int n = sizeof(stops) / sizeof(stops[0]) - 1;
	unsigned int i, c;
	double x, f;

	if (v < 0) {
		rgb[0] = rgb[1] = rgb[2] = 48;
		return;
	}
	if (v > 1)
		v = 1;
	x = v * n;
	i = (unsigned int)x;
	if (i >= n)
		i = n - 1;
	f = x - i;
	for (c = 0; c < 3; c++)
		rgb[c] = (uint8_t)(stops[i][c] + (stops[i + 1][c] - stops[i][c]) * f + 0.5);
}

static void be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static int chunk(FILE *f, const char *type, const uint8_t *data, uint32_t len)
{
	uint8_t b[4];
	uLong crc = crc32(0, (const Bytef *)type, 4);

	if (len)
		crc = crc32(crc, data, len);
	be32(b, len);
	if (fwrite(b, 1, 4, f) != 4 || fwrite(type, 1, 4, f) != 4 ||
	    (len && fwrite(data, 1, len, f) != len))
		return -EIO;
	be32(b, (uint32_t)crc);
	return fwrite(b, 1, 4, f) == 4 ? 0 : -EIO;
}

int png_write(FILE *f, uint32_t width, uint32_t height, const uint8_t *rgb)
{
	static const uint8_t sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	size_t stride = (size_t)width * 3 + 1, raw_len = stride * height, y;
	uLongf zlen = compressBound((uLong)raw_len);
	uint8_t ihdr[13], *raw = malloc(raw_len), *z = malloc(zlen);
	int r = -ENOMEM;

	if (!raw || !z || !width || !height)
		goto out;
	for (y = 0; y < height; y++) {
		raw[y * stride] = 0;	/* filter: none */
		memcpy(raw + y * stride + 1, rgb + y * width * 3, (size_t)width * 3);
	}
	if (compress2(z, &zlen, raw, (uLong)raw_len, 9) != Z_OK)
		goto out;
	be32(ihdr, width);
	be32(ihdr + 4, height);
	ihdr[8] = 8;	/* bit depth */
	ihdr[9] = 2;	/* truecolour */
	ihdr[10] = ihdr[11] = ihdr[12] = 0;
	r = -EIO;
	if (fwrite(sig, 1, 8, f) != 8 || chunk(f, "IHDR", ihdr, 13) ||
	    chunk(f, "IDAT", z, (uint32_t)zlen) || chunk(f, "IEND", NULL, 0))
		goto out;
	r = 0;
out:
	free(raw);
	free(z);
	return r;
}
