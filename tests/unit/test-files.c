// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Files a program is given and files it keeps (lib/state_file.c), and UTF-8 sequences as
 * damonctl_json_check() takes them (lib/json_check.c).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
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

/* Nothing in @dir but @n names (and . and ..): no temporary file left behind. */
static void assert_entries(const char *dir, unsigned int n)
{
	struct dirent *de;
	unsigned int seen = 0;
	DIR *d = opendir(dir);

	assert_non_null(d);
	while ((de = readdir(d)))
		seen += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	assert_int_equal(seen, n);
}

/* A device node of our own, a copy of /dev/null's numbers, in @dir: false where this process
 * may not make one (no CAP_MKNOD, a user namespace), and the device cases are skipped. */
static bool own_device(const char *path)
{
	if (!mknod(path, S_IFCHR | 0666, makedev(1, 3)))
		return true;
	print_message("no device node made here (%s): its cases skipped\n", strerror(errno));
	return false;
}

/* What a world-writable directory may hold where a root program writes: a symbolic link to a
 * file of someone else's, a FIFO, a device node, a socket. None is followed, opened or
 * replaced; the victims stay as they were; no temporary file is left. */
static void write_planted(void **state)
{
	char *dir = tmpdir_new(), victim[4200], path[4200], *text;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int sock;

	(void)state;
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	write_file(victim, "secret\n");
	assert_int_equal(chmod(victim, 0600), 0);
	snprintf(path, sizeof(path), "%s/out.prom", dir);
	assert_int_equal(symlink(victim, path), 0);
	assert_int_equal(damonctl_file_write(path, "x\n", 2, 0644), -ELOOP);
	assert_int_equal(damonctl_file_open(path, O_WRONLY | O_CREAT | O_TRUNC, 0), -ELOOP);
	assert_int_equal(damonctl_file_open(path, O_WRONLY | O_APPEND, 0), -ELOOP);
	text = slurp(victim);
	assert_string_equal(text, "secret\n");
	free(text);
	assert_int_equal(stat(victim, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);	/* not made world-readable */
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(unlink(path), 0);
	/* a FIFO: refused at once, never waited on, never replaced */
	assert_int_equal(mkfifo(path, 0666), 0);
	assert_int_equal(damonctl_file_write(path, "x\n", 2, 0), -ENODEV);
	assert_int_equal(damonctl_file_open(path, O_WRONLY | O_CREAT | O_TRUNC, 0), -ENODEV);
	assert_int_equal(damonctl_file_open(path, O_RDWR, 0), -ENODEV);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	assert_int_equal(unlink(path), 0);
	/* a device node: never written to, never replaced by a text file */
	if (own_device(path)) {
		assert_int_equal(damonctl_file_write(path, "x\n", 2, 0), -ENODEV);
		assert_int_equal(damonctl_file_write(path, "x\n", 2, DAMONCTL_FILE_SYNC), -ENODEV);
		assert_int_equal(damonctl_file_open(path, O_WRONLY | O_CREAT | O_TRUNC, 0),
				 -ENODEV);
		assert_int_equal(lstat(path, &st), 0);
		assert_true(S_ISCHR(st.st_mode));
		assert_int_equal(st.st_rdev, makedev(1, 3));
		assert_int_equal(unlink(path), 0);
	}
	/* a socket */
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/sock", dir);
	sock = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(sock >= 0);
	if (strlen(sa.sun_path) < sizeof(sa.sun_path) - 1 &&
	    !bind(sock, (struct sockaddr *)&sa, sizeof(sa))) {
		assert_int_equal(damonctl_file_write(sa.sun_path, "x", 1, 0), -ENODEV);
		assert_int_equal(damonctl_file_open(sa.sun_path, O_WRONLY, 0), -ENODEV);
		unlink(sa.sun_path);
	}
	close(sock);
	assert_entries(dir, 1);		/* the victim alone */
	tmpdir_remove(dir);
}

/* Written whole: a new file of mode 0600 unless asked, synced on request, "-" is stdout, and
 * a name that cannot be a file is refused. */
static void write_modes(void **state)
{
	char *dir = tmpdir_new(), path[4200], hard[4200], *text, buf[16] = "";
	int p[2], saved = dup(STDOUT_FILENO);
	struct stat st;

	(void)state;
	snprintf(path, sizeof(path), "%s/m", dir);
	assert_int_equal(damonctl_file_write(path, "a", 1, 0), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	/* an existing file is replaced, never written through: a hard link keeps the old text */
	snprintf(hard, sizeof(hard), "%s/hard", dir);
	assert_int_equal(link(path, hard), 0);
	assert_int_equal(damonctl_file_write(path, "bb", 2, 0644 | DAMONCTL_FILE_SYNC), 0);
	text = slurp(hard);
	assert_string_equal(text, "a");
	free(text);
	assert_int_equal(unlink(hard), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	text = slurp(path);
	assert_string_equal(text, "bb");
	free(text);
	/* names that are directories */
	snprintf(path, sizeof(path), "%s/", dir);
	assert_int_equal(damonctl_file_write(path, "a", 1, 0), -EISDIR);
	snprintf(path, sizeof(path), "%s/..", dir);
	assert_int_equal(damonctl_file_write(path, "a", 1, 0), -EISDIR);
	assert_entries(dir, 1);
	/* "-": standard output */
	assert_true(saved >= 0);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(dup2(p[1], STDOUT_FILENO), STDOUT_FILENO);
	close(p[1]);
	assert_int_equal(damonctl_file_write("-", "out\n", 4, 0), 0);
	assert_int_equal(dup2(saved, STDOUT_FILENO), STDOUT_FILENO);
	close(saved);
	assert_int_equal(read(p[0], buf, sizeof(buf) - 1), 4);
	assert_string_equal(buf, "out\n");
	close(p[0]);
	tmpdir_remove(dir);
}

/* Opened in place (a log, a lock, a record): created O_EXCL with its mode, appended to,
 * truncated only once known to be a regular file. */
static void open_in_place(void **state)
{
	char *dir = tmpdir_new(), path[4200], *text;
	struct stat st;
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/agent.log", dir);
	fd = damonctl_file_open(path, O_WRONLY | O_CREAT | O_APPEND, 0640);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "one\n", 4), 4);
	close(fd);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0640 & ~umask(022));
	fd = damonctl_file_open(path, O_WRONLY | O_CREAT | O_APPEND, 0640);
	assert_true(fd >= 0);
	assert_int_equal(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
	assert_int_equal(write(fd, "two\n", 4), 4);
	close(fd);
	text = slurp(path);
	assert_string_equal(text, "one\ntwo\n");
	free(text);
	fd = damonctl_file_open(path, O_RDWR | O_TRUNC, 0);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, 0);
	close(fd);
	assert_int_equal(damonctl_file_open(path, O_WRONLY | O_CREAT | O_EXCL, 0), -EEXIST);
	assert_int_equal(damonctl_file_open(dir, O_WRONLY, 0), -EISDIR);
	assert_int_equal(damonctl_file_open(path, O_WRONLY | O_SYNC, 0), -EINVAL);
	snprintf(path, sizeof(path), "%s/none", dir);
	assert_int_equal(damonctl_file_open(path, O_WRONLY, 0), -ENOENT);
	tmpdir_remove(dir);
}

/* damonc's run/damonc: 0700 and its owner's, made so, tightened, or refused. */
static void state_dir(void **state)
{
	char *dir = tmpdir_new(), path[4200], other[4200];
	struct stat st;

	(void)state;
	snprintf(path, sizeof(path), "%s/run/damonc", dir);
	assert_int_equal(damonctl_make_state_dir(path), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_int_equal(damonctl_make_state_dir(path), 0);
	assert_int_equal(chmod(path, 0755), 0);
	assert_int_equal(damonctl_make_state_dir(path), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	/* a link to a directory someone else chose */
	snprintf(other, sizeof(other), "%s/elsewhere", dir);
	assert_int_equal(mkdir(other, 0777), 0);
	snprintf(path, sizeof(path), "%s/run/link", dir);
	assert_int_equal(symlink(other, path), 0);
	assert_int_equal(damonctl_make_state_dir(path), -ELOOP);
	assert_int_equal(stat(other, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0777 & ~umask(022));
	snprintf(path, sizeof(path), "%s/run/file", dir);
	write_file(path, "");
	assert_int_equal(damonctl_make_state_dir(path), -ENOTDIR);
	/* another user's directory: not taken over */
	if (geteuid() == 0 && !chown(other, 65534, 65534))
		assert_int_equal(damonctl_make_state_dir(other), -EPERM);
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
		cmocka_unit_test(write_planted),
		cmocka_unit_test(write_modes),
		cmocka_unit_test(open_in_place),
		cmocka_unit_test(state_dir),
		cmocka_unit_test(utf8_sequences),
	};

	unit_init(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
