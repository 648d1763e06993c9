// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Files a program is given and files it keeps (lib/state_file.c), and UTF-8 sequences as
 * damonctl_json_check() takes them (lib/json_check.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "common.h"

static void read_whole(void **state)
{
	char *dir = tmpdir_new(), path[4096], *text = NULL;
	size_t len = 0;

	(void)state;
	snprintf(path, sizeof(path), "%s/a.json", dir);
	write_file(path, "{\"kdamonds\": []}\n");
	assert_int_equal(damonctl_file_read(path, 100, &text, &len), 0);
	assert_string_equal(text, "{\"kdamonds\": []}\n");
	assert_int_equal(len, 17);
	free(text);
	/* the bound is inclusive; one byte more is too large */
	assert_int_equal(damonctl_file_read(path, 17, &text, NULL), 0);
	free(text);
	text = NULL;
	assert_int_equal(damonctl_file_read(path, 16, &text, &len), -EFBIG);
	assert_null(text);
	/* larger than the first buffer, and empty */
	{
		size_t n = 200000;
		char *big = malloc(n + 1);

		assert_non_null(big);
		memset(big, 'x', n);
		big[n] = '\0';
		write_file(path, big);
		assert_int_equal(damonctl_file_read(path, n, &text, &len), 0);
		assert_int_equal(len, n);
		assert_int_equal(strlen(text), n);
		free(text);
		assert_int_equal(damonctl_file_read(path, n - 1, &text, &len), -EFBIG);
		free(big);
	}
	write_file(path, "");
	assert_int_equal(damonctl_file_read(path, 10, &text, &len), 0);
	assert_string_equal(text, "");
	assert_int_equal(len, 0);
	free(text);
	tmpdir_remove(dir);
}

static void read_refusals(void **state)
{
	char *dir = tmpdir_new(), path[4096], *text = NULL;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, sock;

	(void)state;
	/* not text */
	snprintf(path, sizeof(path), "%s/nul", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "a\0b", 3), 3);
	close(fd);
	assert_int_equal(damonctl_file_read(path, 100, &text, NULL), -EILSEQ);
	/* what would block or never end, refused before reading */
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(damonctl_file_read(path, 100, &text, NULL), -ENODEV);
	assert_int_equal(damonctl_file_read("/dev/zero", 100, &text, NULL), -ENODEV);
	assert_int_equal(damonctl_file_read(dir, 100, &text, NULL), -EISDIR);
	snprintf(path, sizeof(path), "%s/none", dir);
	assert_int_equal(damonctl_file_read(path, 100, &text, NULL), -ENOENT);
	/* a socket cannot even be opened: the system's errno */
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/sock", dir);
	sock = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(sock >= 0);
	if (strlen(sa.sun_path) < sizeof(sa.sun_path) - 1 &&
	    !bind(sock, (struct sockaddr *)&sa, sizeof(sa)))
		assert_int_equal(damonctl_file_read(sa.sun_path, 100, &text, NULL), -ENXIO);
	close(sock);
	assert_null(text);
	tmpdir_remove(dir);
}

/* "-": standard input, whatever it is (here a pipe) */
static void read_stdin(void **state)
{
	int p[2], saved = dup(STDIN_FILENO);
	char *text = NULL;

	(void)state;
	assert_true(saved >= 0);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], "kdamonds: []\n", 13), 13);
	close(p[1]);
	assert_int_equal(dup2(p[0], STDIN_FILENO), STDIN_FILENO);
	close(p[0]);
	assert_int_equal(damonctl_file_read("-", 100, &text, NULL), 0);
	assert_string_equal(text, "kdamonds: []\n");
	free(text);
	assert_int_equal(dup2(saved, STDIN_FILENO), STDIN_FILENO);
	close(saved);
}

static void write_whole(void **state)
{
	char *dir = tmpdir_new(), path[4200], sub[4000], *text;
	struct stat st;

	(void)state;
	/* directories made as needed, and existing ones are fine */
	snprintf(sub, sizeof(sub), "%s/a/b/c", dir);
	assert_int_equal(damonctl_make_dirs(sub), 0);
	assert_int_equal(damonctl_make_dirs(sub), 0);
	assert_int_equal(stat(sub, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	snprintf(path, sizeof(path), "%s/state.json", sub);
	assert_int_equal(damonctl_make_dirs(path), 0);	/* a directory now */
	assert_int_equal(damonctl_file_write(path, "x", 1, 0), -EISDIR);
	assert_int_equal(rmdir(path), 0);
	/* whole, replaced whole, with the mode asked */
	assert_int_equal(damonctl_file_write(path, "{\"a\": 1}\n", 9, 0), 0);
	assert_int_equal(damonctl_file_write(path, "{}", 2, 0600), 0);
	text = slurp(path);
	assert_string_equal(text, "{}");
	free(text);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	/* no directory: nothing left beside it */
	snprintf(path, sizeof(path), "%s/none/state.json", dir);
	assert_int_equal(damonctl_file_write(path, "{}", 2, 0), -ENOENT);
	/* a file in the way of a directory */
	snprintf(path, sizeof(path), "%s/state.json/d", sub);
	assert_int_equal(damonctl_make_dirs(path), -ENOTDIR);
	tmpdir_remove(dir);
}

static void utf8_sequences(void **state)
{
	(void)state;
	assert_int_equal(damonctl_utf8_len("a", SIZE_MAX), 1);
	assert_int_equal(damonctl_utf8_len("", SIZE_MAX), 1);
	assert_int_equal(damonctl_utf8_len("\xc3\xa9", SIZE_MAX), 2);		/* é */
	assert_int_equal(damonctl_utf8_len("\xe2\x82\xac", SIZE_MAX), 3);	/* € */
	assert_int_equal(damonctl_utf8_len("\xf0\x9f\x98\x80", SIZE_MAX), 4);
	/* a stray byte, a cut sequence, overlong forms, a surrogate, beyond U+10FFFF */
	assert_int_equal(damonctl_utf8_len("\xe9", SIZE_MAX), 0);
	assert_int_equal(damonctl_utf8_len("\xe2\x82", SIZE_MAX), 0);
	assert_int_equal(damonctl_utf8_len("\xe2\x82\xac", 2), 0);
	assert_int_equal(damonctl_utf8_len("\xc0\xaf", SIZE_MAX), 0);
	assert_int_equal(damonctl_utf8_len("\xe0\x80\xaf", SIZE_MAX), 0);
	assert_int_equal(damonctl_utf8_len("\xed\xa0\x80", SIZE_MAX), 0);
	assert_int_equal(damonctl_utf8_len("\xf4\x90\x80\x80", SIZE_MAX), 0);
	assert_int_equal(damonctl_utf8_len("\x80", SIZE_MAX), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(read_whole),
		cmocka_unit_test(read_refusals),
		cmocka_unit_test(read_stdin),
		cmocka_unit_test(write_whole),
		cmocka_unit_test(utf8_sequences),
	};

	unit_init(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
