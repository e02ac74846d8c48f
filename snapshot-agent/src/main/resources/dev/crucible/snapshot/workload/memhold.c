/*
 * memhold: a process with a known memory state, for CRIU tests and the snapshot benchmark.
 *   memhold SIZE_MIB DIRTY_KIB TICK_MS VERIFY_EVERY
 * Fills SIZE_MIB with a deterministic pseudo-random pattern and remembers its checksum; every
 * TICK_MS it increments a counter and rewrites DIRTY_KIB of a separate scratch area (the "small
 * dirty set" of the freeze-window target); every VERIFY_EVERY ticks (0 = never) it re-checks the
 * big buffer. State is published without holding any file open (open files would have to match
 * on restore): the task name (/proc/PID/comm) reads "c<count> ok", or "c<count> BAD" once the
 * buffer no longer matches its checksum.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>

static uint64_t checksum(const uint64_t *w, size_t n) {
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) {
        h = (h ^ w[i]) * 1099511628211ULL;
    }
    return h;
}

static void publish(unsigned long count, int ok) {
    char name[16];
    snprintf(name, sizeof name, "c%lu %s", count, ok ? "ok" : "BAD");
    prctl(PR_SET_NAME, name, 0, 0, 0);
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: memhold SIZE_MIB DIRTY_KIB TICK_MS VERIFY_EVERY\n");
        return 2;
    }
    size_t size = (size_t) strtoull(argv[1], 0, 10) << 20;
    size_t dirty = (size_t) strtoull(argv[2], 0, 10) << 10;
    long tick_ms = strtol(argv[3], 0, 10);
    unsigned long verify_every = strtoul(argv[4], 0, 10);
    prctl(PR_SET_NAME, "filling", 0, 0, 0);

    size_t words = size / sizeof(uint64_t);
    uint64_t *buf = mmap(0, size ? size : 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    unsigned char *scratch = mmap(0, dirty ? dirty : 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buf == MAP_FAILED || scratch == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    uint64_t x = 0x9E3779B97F4A7C15ULL;
    for (size_t i = 0; i < words; i++) { /* xorshift64: every page differs, nothing compresses to zero pages */
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        buf[i] = x;
    }
    const uint64_t expected = checksum(buf, words);
    volatile unsigned long count = 0;
    int ok = 1;
    publish(count, ok);

    struct timespec ts = { tick_ms / 1000, (tick_ms % 1000) * 1000000L };
    for (;;) {
        nanosleep(&ts, 0);
        count++;
        for (size_t off = 0; off < dirty; off += 4096) {
            scratch[off] = (unsigned char) count;
        }
        if (verify_every && count % verify_every == 0 && checksum(buf, words) != expected) {
            ok = 0;
        }
        publish(count, ok);
    }
}
