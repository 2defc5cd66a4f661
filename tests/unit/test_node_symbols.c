/* test_node_symbols.c: unit tests of instrument/hct_node_symbols.c, the
 * node's shared table of symbolized addresses, and instrument/hct_code_files.c:
 * answers published are found whole (keys and names) and absent ones are not;
 * four threads publishing the same answers in different orders while a fifth
 * reads leave each answer once and whole, and the reader never sees a part
 * of one; processes killed while they publish leave only whole answers; a
 * request is answered by the owner's server in another process; an owner
 * stopped makes it give up after its limit, and once the owner is gone
 * (ended, even not yet reaped) a request gives up at once and the claim
 * passes on; a code address maps to its file and offset and back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#define TEST_TMPDIR_NAME "test_node_symbols"
#include "test_tmpdir.h"

#include "hct_code_files.h"
#include "hct_node_symbols.h"

#define FILE_A 0x1234567890abcdefull

/* The answer every test expects for (file, offset): 1-5 levels, names of
 * varying lengths. */
static int expected(uint64_t file, uint64_t offset, uint64_t *keys, hct_symbol *names)
{
    int n = 1 + (int)(offset % 5);
    for (int i = 0; i < n; i++) {
        keys[i] = (file ^ (offset * 31 + (uint64_t)i)) | 1;
        memset(&names[i], 0, sizeof(names[i]));
        snprintf(names[i].function, sizeof(names[i].function), "f%llu_%d", (unsigned long long)offset, i);
        snprintf(names[i].signature, sizeof(names[i].signature), "void f%llu_%d(%.*s)", (unsigned long long)offset, i,
                 (int)(offset % 40), "int, int, int, int, int, int, int, int, int");
        snprintf(names[i].file, sizeof(names[i].file), "/src/%llx/unit%d.c", (unsigned long long)file, i);
        names[i].line = (uint32_t)(offset + (uint64_t)i);
        names[i].function_line = (uint32_t)offset;
    }
    return n;
}

static int publish(uint64_t file, uint64_t offset)
{
    uint64_t keys[HCT_INLINE_MAX];
    hct_symbol names[HCT_INLINE_MAX];
    int n = expected(file, offset, keys, names);
    return hct_node_symbols_publish(file, offset, keys, n, names, n);
}

/* 1: found and equal to the expected answer; 0: not found; -1: found but different */
static int check(uint64_t file, uint64_t offset)
{
    uint64_t keys[HCT_INLINE_MAX];
    hct_symbol names[HCT_INLINE_MAX], got[HCT_INLINE_MAX];
    hct_node_answer a;
    int n = expected(file, offset, keys, names);
    if (!hct_node_symbols_find(file, offset, &a, got, HCT_INLINE_MAX))
        return 0;
    if (a.nkeys != n || a.nnames != n || memcmp(a.keys, keys, (size_t)n * sizeof(*keys)) != 0)
        return -1;
    for (int i = 0; i < n; i++)
        if (strcmp(got[i].function, names[i].function) != 0 || strcmp(got[i].signature, names[i].signature) != 0 ||
            strcmp(got[i].file, names[i].file) != 0 || got[i].line != names[i].line ||
            got[i].function_line != names[i].function_line)
            return -1;
    return 1;
}

static int attach(void **state)
{
    if (setup(state) != 0)
        return -1;
    char path[128];
    snprintf(path, sizeof(path), "%s/node", dir);
    return hct_node_symbols_attach(path);
}

static void published_found_absent_not(void **state)
{
    (void)state;
    assert_true(hct_node_symbols_attached());
    for (uint64_t off = 0; off < 1000; off++)
        assert_int_equal(publish(FILE_A, off * 16), 0);
    for (uint64_t off = 0; off < 1000; off++) {
        assert_int_equal(check(FILE_A, off * 16), 1);
        assert_int_equal(check(FILE_A, off * 16 + 1), 0);
        assert_int_equal(check(FILE_A + 2, off * 16), 0);
    }
    /* again: the first answer stays, one slot */
    assert_int_equal(publish(FILE_A, 16), 0);
    assert_int_equal(check(FILE_A, 16), 1);
    /* only a part of the names wanted */
    hct_node_answer a;
    hct_symbol one[1];
    assert_true(hct_node_symbols_find(FILE_A, 4 * 16, &a, one, 1));
    assert_int_equal(a.nnames, 1);
    assert_string_equal(one[0].function, "f64_0");
}

#define FILE_T 0x7777000011112223ull
#define N_T 3000
static _Atomic int writers_done;
static _Atomic long torn_seen, whole_seen;

static void *writer(void *arg)
{
    long id = *(const long *)arg;
    for (long i = 0; i < N_T; i++) {
        long k = id % 2 ? N_T - 1 - i : (i * 7 + id) % N_T; /* different orders */
        publish(FILE_T, (uint64_t)k * 8);
    }
    return NULL;
}

static void *reader(void *arg)
{
    (void)arg;
    unsigned seed = 1;
    while (!atomic_load(&writers_done)) {
        int r = check(FILE_T, (uint64_t)(rand_r(&seed) % N_T) * 8);
        if (r < 0)
            atomic_fetch_add(&torn_seen, 1);
        else if (r > 0)
            atomic_fetch_add(&whole_seen, 1);
    }
    return NULL;
}

static void threads_publish_concurrently(void **state)
{
    (void)state;
    pthread_t w[4], r;
    static const long ids[4] = { 0, 1, 2, 3 };
    assert_int_equal(pthread_create(&r, NULL, reader, NULL), 0);
    for (long i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&w[i], NULL, writer, (void *)&ids[i]), 0);
    for (int i = 0; i < 4; i++)
        pthread_join(w[i], NULL);
    atomic_store(&writers_done, 1);
    pthread_join(r, NULL);
    assert_int_equal(atomic_load(&torn_seen), 0);
    for (long k = 0; k < N_T; k++)
        assert_int_equal(check(FILE_T, (uint64_t)k * 8), 1);
}

#define FILE_K 0x5555aaaa5555aaabull

static void processes_killed_leave_only_whole_answers(void **state)
{
    (void)state;
    pid_t kids[3];
    for (int c = 0; c < 3; c++) {
        kids[c] = fork();
        assert_true(kids[c] >= 0);
        if (kids[c] == 0) {
            for (uint64_t k = 0; k < 10000; k++) /* most of them before it is killed, as it seems */
                publish(FILE_K + (uint64_t)c * 2, k);
            pause();
        }
    }
    struct timespec ts = { 0, 5 * 1000000L };
    nanosleep(&ts, NULL);
    for (int c = 0; c < 3; c++) {
        kill(kids[c], SIGKILL);
        waitpid(kids[c], NULL, 0);
    }
    long whole = 0;
    for (int c = 0; c < 3; c++)
        for (uint64_t k = 0; k < 10000; k++) {
            int r = check(FILE_K + (uint64_t)c * 2, k);
            assert_true(r >= 0);
            whole += r;
        }
    assert_true(whole > 0);
}

#define FILE_R 0x3333444455556667ull

static void serve_publish(uint64_t file, uint64_t offset, void *arg)
{
    (void)arg;
    publish(file, offset);
}

static void request_served_by_owner_then_owner_gone(void **state)
{
    (void)state;
    int ready[2];
    assert_int_equal(pipe(ready), 0);
    pid_t owner = fork();
    assert_true(owner >= 0);
    if (owner == 0) {
        char one = hct_node_symbols_claim() ? 1 : 0;
        if (write(ready[1], &one, 1) != 1)
            _exit(1);
        hct_node_symbols_serve(serve_publish, NULL);
        _exit(0);
    }
    char claimed = 0;
    assert_int_equal(read(ready[0], &claimed, 1), 1);
    assert_int_equal(claimed, 1);
    assert_int_equal(hct_node_symbols_claim(), 0); /* the child owns it */
    hct_node_stats before, after;
    hct_node_symbols_stats(&before);
    for (uint64_t off = 100; off < 150; off++) {
        assert_int_equal(check(FILE_R, off), 0);
        assert_int_equal(hct_node_symbols_request(FILE_R, off, 5000000000ull), 1);
        assert_int_equal(check(FILE_R, off), 1);
    }
    hct_node_symbols_stats(&after);
    assert_int_equal(after.asked - before.asked, 50);
    kill(owner, SIGSTOP); /* alive but silent: the request gives up after its limit */
    assert_int_equal(hct_node_symbols_request(FILE_R, 998, 50000000ull), -1);
    assert_int_equal(check(FILE_R, 998), 0);
    kill(owner, SIGKILL);
    /* ended, not yet reaped (a zombie): gone for a request, and the claim passes on */
    siginfo_t info;
    memset(&info, 0, sizeof(info));
    assert_int_equal(waitid(P_PID, (id_t)owner, &info, WEXITED | WNOWAIT), 0);
    assert_int_equal(hct_node_symbols_request(FILE_R, 999, 5000000000ull), -1);
    assert_int_equal(check(FILE_R, 999), 0);
    assert_int_equal(hct_node_symbols_claim(), 1);
    assert_int_equal(hct_node_symbols_request(FILE_R, 999, 5000000000ull), -1); /* not of itself */
    waitpid(owner, NULL, 0);
    close(ready[0]);
    close(ready[1]);
}

static void code_address_to_file_and_back(void **state)
{
    (void)state;
    hct_code_files f = { NULL, 0, 0 };
    assert_int_equal(hct_code_files_read(&f, "/proc/self/maps"), 0);
    uintptr_t fn = (uintptr_t)&expected;
    uint64_t file = 0, offset = 0;
    assert_int_equal(hct_code_files_find(&f, fn, &file, &offset), 0);
    assert_true(file != 0);
    assert_true(hct_code_files_address(&f, file, offset) == fn);
    assert_true(hct_code_files_address(&f, file ^ 2, offset) == 0);
    void *heap = malloc(64);
    assert_int_equal(hct_code_files_find(&f, (uintptr_t)heap, &file, &offset), -1);
    free(heap);
    /* libc's code: another file */
    uint64_t libc = 0;
    assert_int_equal(hct_code_files_find(&f, (uintptr_t)&memcpy, &libc, &offset), 0);
    assert_true(libc != file);
    hct_code_files_free(&f);
    assert_int_equal(hct_code_files_read(&f, "/nonexistent/maps"), -1);
    hct_code_files_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(published_found_absent_not),
        cmocka_unit_test(threads_publish_concurrently),
        cmocka_unit_test(request_served_by_owner_then_owner_gone),
        cmocka_unit_test(code_address_to_file_and_back),
        cmocka_unit_test(processes_killed_leave_only_whole_answers),
    };
    return cmocka_run_group_tests(tests, attach, teardown);
}
