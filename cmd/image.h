/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Images for reports: a heat colour map and a PNG writer (zlib-compressed scanlines). */
#ifndef DAMONC_IMAGE_H
#define DAMONC_IMAGE_H

#include <stdint.h>
#include <stdio.h>

/* @v in [0, 1]; v < 0 means "no data" (dark grey). */
void heat_rgb(double v, uint8_t rgb[3]);
/* Write an 8-bit RGB image (rows top to bottom, 3 bytes a pixel) as PNG; -errno. */
int png_write(FILE *f, uint32_t width, uint32_t height, const uint8_t *rgb);

#endif
