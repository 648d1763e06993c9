// SPDX-License-Identifier: GPL-2.0-or-later
/* What damonc learned of this kernel's features by probing (see known_features.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "known_features.h"
#include "started.h"

#define KNOWN_FILE "features.json"

/* This boot's id (proc's kernel/random/boot_id), or "" when it cannot be read. */
static void boot_id(struct damonctl_ctx *ctx, char *buf, size_t size)
{
	char path[4096], *text = NULL;

	buf[0] = '\0';
	if (damonctl_path(ctx, DAMONCTL_BASE_PROC, "sys/kernel/random/boot_id", path,
			  sizeof(path)) < 0 || damonctl_file_read(path, 64, &text, NULL))
		return;
	snprintf(buf, size, "%s", text);
	buf[strcspn(buf, "\n")] = '\0';
	free(text);
}

void known_features_save(struct damonctl_ctx *ctx, const struct damonctl_features *f)
{
	char path[4096], boot[64], *text = damonctl_features_to_json(f);
	json_object *root = json_object_new_object(), *feats = text ? json_tokener_parse(text) : NULL;
	int r = -ENOMEM;

	boot_id(ctx, boot, sizeof(boot));
	if (root && feats && *boot && run_path(ctx, KNOWN_FILE, path, sizeof(path)) >= 0) {
		json_object_object_add(root, "format_version", json_object_new_int(1));
		json_object_object_add(root, "boot_id", json_object_new_string(boot));
		json_object_object_add(root, "features", feats);
		feats = NULL;
		r = write_json_file(path, root);
	}
	if (r && *boot)
		warnx_("note: cannot keep what the probe found (%s): the next start probes again",
		       strerror(-r));
	json_object_put(feats);
	json_object_put(root);
	free(text);
}

char *known_features_load(struct damonctl_ctx *ctx)
{
	char path[4096], boot[64];
	json_object *root = NULL, *v, *feats;
	char *text = NULL;

	boot_id(ctx, boot, sizeof(boot));
	if (!*boot || run_path(ctx, KNOWN_FILE, path, sizeof(path)) < 0 ||
	    read_json_file(path, &root) || !root)
		return NULL;
	/* another boot's kernel may be another kernel */
	if (json_object_object_get_ex(root, "boot_id", &v) &&
	    !strcmp(json_object_get_string(v), boot) &&
	    json_object_object_get_ex(root, "features", &feats))
		text = strdup(json_object_to_json_string_ext(feats, JSON_C_TO_STRING_PLAIN));
	json_object_put(root);
	return text;
}
