/*
 * jkvm-vsock: echo over AF_VSOCK, for the vsock test guest (see README.md).
 *   jkvm-vsock listen PORT COUNT
 *       accepts COUNT connections on PORT, one after another, and sends back what each sends
 *       until its end of file; prints "VSOCK-LISTEN port=P conn=I bytes=N" per connection.
 *   jkvm-vsock connect CID PORT SIZE ROUNDS
 *       connects to CID:PORT and, ROUNDS times, writes SIZE bytes (at most 65536) and reads
 *       them back, checking every byte; prints "VSOCK-CONNECT cid=C port=P size=S rounds=R
 *       bytes=N us_per_round=U".
 * Exit status 0 on success, 1 with a line on stderr otherwise.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/vm_sockets.h>

#define MAX_SIZE 65536

static int fail(const char *what)
{
	fprintf(stderr, "jkvm-vsock: %s: %s\n", what, strerror(errno));
	return 1;
}

static unsigned long number(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);
	if (*s == 0 || *end != 0) {
		fprintf(stderr, "jkvm-vsock: not a number: %s\n", s);
		exit(2);
	}
	return v;
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int listen_echo(unsigned port, unsigned count)
{
	struct sockaddr_vm addr = { .svm_family = AF_VSOCK, .svm_cid = VMADDR_CID_ANY, .svm_port = port };
	static unsigned char buf[MAX_SIZE];
	int s = socket(AF_VSOCK, SOCK_STREAM, 0);
	if (s < 0)
		return fail("socket");
	if (bind(s, (struct sockaddr *)&addr, sizeof addr) < 0)
		return fail("bind");
	if (listen(s, 4) < 0)
		return fail("listen");
	printf("VSOCK-LISTENING port=%u\n", port);
	fflush(stdout);
	for (unsigned i = 0; i < count; i++) {
		int c = accept(s, NULL, NULL);
		unsigned long total = 0;
		ssize_t n;
		if (c < 0)
			return fail("accept");
		while ((n = read(c, buf, sizeof buf)) != 0) {
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 || write_all(c, buf, (size_t)n) < 0)
				return fail("echo");
			total += (unsigned long)n;
		}
		close(c);
		printf("VSOCK-LISTEN port=%u conn=%u bytes=%lu\n", port, i, total);
		fflush(stdout);
	}
	close(s);
	return 0;
}

static int connect_echo(unsigned cid, unsigned port, size_t size, unsigned rounds)
{
	struct sockaddr_vm addr = { .svm_family = AF_VSOCK, .svm_cid = cid, .svm_port = port };
	static unsigned char out[MAX_SIZE], in[MAX_SIZE];
	struct timespec t0, t1;
	int s = socket(AF_VSOCK, SOCK_STREAM, 0);
	if (s < 0)
		return fail("socket");
	if (connect(s, (struct sockaddr *)&addr, sizeof addr) < 0)
		return fail("connect");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned r = 0; r < rounds; r++) {
		for (size_t i = 0; i < size; i++)
			out[i] = (unsigned char)(i * 31 + r);
		if (write_all(s, out, size) < 0)
			return fail("write");
		for (size_t got = 0; got < size;) {
			ssize_t n = read(s, in + got, size - got);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				return fail("read");
			if (n == 0) {
				fprintf(stderr, "jkvm-vsock: end of file after %zu of %zu bytes in round %u\n", got, size, r);
				return 1;
			}
			got += (size_t)n;
		}
		if (memcmp(in, out, size) != 0) {
			fprintf(stderr, "jkvm-vsock: round %u came back different\n", r);
			return 1;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	close(s);
	long long us = (t1.tv_sec - t0.tv_sec) * 1000000LL + (t1.tv_nsec - t0.tv_nsec) / 1000;
	printf("VSOCK-CONNECT cid=%u port=%u size=%zu rounds=%u bytes=%llu us_per_round=%lld\n", cid, port, size, rounds,
	       (unsigned long long)size * rounds, rounds ? us / rounds : 0);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "listen") == 0)
		return listen_echo((unsigned)number(argv[2]), (unsigned)number(argv[3]));
	if (argc == 6 && strcmp(argv[1], "connect") == 0) {
		size_t size = number(argv[4]);
		if (size == 0 || size > MAX_SIZE) {
			fprintf(stderr, "jkvm-vsock: SIZE must be 1 to %d\n", MAX_SIZE);
			return 2;
		}
		return connect_echo((unsigned)number(argv[2]), (unsigned)number(argv[3]), size, (unsigned)number(argv[5]));
	}
	fprintf(stderr, "usage: jkvm-vsock listen PORT COUNT | connect CID PORT SIZE ROUNDS\n");
	return 2;
}
