/* test_otf2_direct.c: unit tests of instrument/hct_otf2_direct.c (OTF2's files
 * written without its 4 MiB file buffer) and of the event budget's default
 * (hct_buffers_budget). The same events are written twice through OTF2 with the
 * tracer's memory callbacks (hct_buffers.c): first as OTF2 3.0 does it, then with
 * libotf2's malloc redirected. Checked: the two event files are the same bytes;
 * with a 2 MiB budget, what a flush during the run wrote is on disk before the
 * file is closed (whole 1 MiB chunks; OTF2's buffer holds it back, 0 bytes); the
 * close of a file of 3 MiB of events adds less than 1.5 MiB to the process's peak
 * RSS (VmHWM reset before it; with OTF2's buffer it copies the events: more than
 * 2 MiB; not checked under ASan, whose allocator makes the peak, nor under
 * qemu-user, the aarch64 cross tests). The budget's near_full hook comes once,
 * when the buffer takes the chunk after which the budget leaves none, before the
 * first flush. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <otf2/otf2.h>

#include "hct_buffers.h"
#include "hct_otf2_direct.h"

#define MIB ((size_t)1 << 20)

#define TEST_TMPDIR_NAME "test_otf2_direct"
#include "test_tmpdir.h"

typedef struct {
    off_t before_close[2]; /* the event file's size before its close: flushing, not */
    long close_growth_kb;  /* the peak RSS the close of 3 MiB of events added */
} run;

static run buffered, direct;

/* the peak RSS is the process's own: not under gcc's -fsanitize=address (the
 * build's SANITIZE=1: its allocator's), nor in the aarch64 build, which runs
 * under qemu-user (qemu's) */
#if defined(__SANITIZE_ADDRESS__) || !defined(__x86_64__)
#define PEAK_MEASURED 0
#else
#define PEAK_MEASURED 1
#endif

static long status_kb(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    size_t n = strlen(field);
    while (f && fgets(line, sizeof(line), f))
        if (strncmp(line, field, n) == 0)
            v = strtol(line + n, NULL, 10);
    if (f)
        fclose(f);
    return v;
}

/* Resets VmHWM to the current VmRSS (Linux 4.0 and later); 0 when done. */
static int reset_peak(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (!f)
        return -1;
    int bad = fputs("5", f) < 0;
    int closed = fclose(f) == 0;
    return closed && !bad ? 0 : -1;
}

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc, void *caller, bool final)
{
    (void)user, (void)type, (void)loc, (void)caller, (void)final;
    return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc)
{
    (void)user, (void)type, (void)loc;
    return 42; /* the same bytes in both files */
}

static const OTF2_FlushCallbacks flush_callbacks = { pre_flush, post_flush };

static off_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? st.st_size : -1;
}

/* Writes bytes of Enter/Leave events on one location into DIR/NAME with a budget;
 * the file's size before the close; the peak RSS the close added (kB). */
static int near_full_calls;
static off_t near_full_on_disk = -1; /* the event file's size when near_full came */
static char near_full_path[256];

static void near_full(void)
{
    struct stat st;
    near_full_calls++;
    near_full_on_disk = stat(near_full_path, &st) == 0 ? st.st_size : 0;
}

static off_t write_events(const char *name, size_t budget, size_t bytes, long *growth_kb)
{
    OTF2_Archive *ar = OTF2_Archive_Open(dir, name, OTF2_FILEMODE_WRITE, OTF2_CHUNK_SIZE_EVENTS_DEFAULT,
                                         OTF2_CHUNK_SIZE_MIN, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    assert_non_null(ar);
    assert_int_equal(OTF2_Archive_SetFlushCallbacks(ar, &flush_callbacks, NULL), OTF2_SUCCESS);
    assert_int_equal(hct_buffers_attach(ar, budget, near_full), OTF2_SUCCESS);
    assert_int_equal(OTF2_Archive_SetSerialCollectiveCallbacks(ar), OTF2_SUCCESS);
    assert_int_equal(OTF2_Archive_OpenEvtFiles(ar), OTF2_SUCCESS);
    OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(ar, 0);
    assert_non_null(w);
    /* an Enter or a Leave with a new timestamp: 13 bytes or fewer */
    for (uint64_t i = 0; i < bytes / 13; i += 2) {
        assert_int_equal(OTF2_EvtWriter_Enter(w, NULL, 1000 + 10 * i, (OTF2_RegionRef)(i % 7)), OTF2_SUCCESS);
        assert_int_equal(OTF2_EvtWriter_Leave(w, NULL, 1005 + 10 * i, (OTF2_RegionRef)(i % 7)), OTF2_SUCCESS);
    }
    char path[128];
    snprintf(path, sizeof(path), "%s/%s/0.evt", dir, name);
    off_t before = file_size(path);
    long rss = status_kb("VmRSS:");
    int reset = reset_peak();
    assert_int_equal(OTF2_Archive_CloseEvtWriter(ar, w), OTF2_SUCCESS);
    *growth_kb = reset == 0 ? status_kb("VmHWM:") - rss : -1;
    assert_int_equal(OTF2_Archive_CloseEvtFiles(ar), OTF2_SUCCESS);
    assert_int_equal(OTF2_Archive_Close(ar), OTF2_SUCCESS);
    return before < 0 ? 0 : before;
}

static void write_both(run *r, const char *prefix)
{
    char name[64];
    long unused;
    snprintf(name, sizeof(name), "%s-flushing", prefix);
    snprintf(near_full_path, sizeof(near_full_path), "%s/%s/0.evt", dir, name);
    near_full_calls = 0;
    r->before_close[0] = write_events(name, 2 * MIB, 7 * MIB / 2, &unused);
    /* the buffer's second chunk leaves the 2 MiB budget none: near_full once, before
     * the first flush (the chunks reused after it ask for no more) */
    assert_int_equal(near_full_calls, 1);
    assert_int_equal(near_full_on_disk, 0);
    near_full_calls = 0;
    snprintf(name, sizeof(name), "%s-at-close", prefix);
    r->before_close[1] = write_events(name, 16 * MIB, 3 * MIB, &r->close_growth_kb);
    assert_int_equal(near_full_calls, 0); /* 3 MiB within 16: never near full */
}

static int same_bytes(const char *a, const char *b)
{
    char pa[128], pb[128];
    snprintf(pa, sizeof(pa), "%s/%s/0.evt", dir, a);
    snprintf(pb, sizeof(pb), "%s/%s/0.evt", dir, b);
    FILE *fa = fopen(pa, "rb"), *fb = fopen(pb, "rb");
    int same = fa && fb;
    long n = 0;
    while (same) {
        int ca = fgetc(fa), cb = fgetc(fb);
        same = ca == cb;
        n++;
        if (ca == EOF)
            break;
    }
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    return same && n > (long)MIB;
}

/* OTF2 as it is: the flushed events held in its file buffer; the close copies. */
static void test_buffered(void **state)
{
    (void)state;
    write_both(&buffered, "buffered");
    assert_int_equal(hct_otf2_direct_refused(), 0);
    assert_int_equal(buffered.before_close[0], 0);
    assert_int_equal(buffered.before_close[1], 0);
}

static void test_direct(void **state)
{
    (void)state;
    assert_int_equal(hct_otf2_direct_install(), 0);
    assert_int_equal(hct_otf2_direct_install(), 0); /* again: kept */
    write_both(&direct, "direct");
    assert_true(hct_otf2_direct_refused() > 0);
    /* the flush during the run is on disk at once, in whole chunks */
    assert_true(direct.before_close[0] >= (off_t)MIB);
    assert_int_equal(direct.before_close[0] % (off_t)MIB, 0);
    assert_int_equal(direct.before_close[1], 0); /* within the budget: nothing before the close */
    assert_true(same_bytes("buffered-flushing", "direct-flushing"));
    assert_true(same_bytes("buffered-at-close", "direct-at-close"));
#if !PEAK_MEASURED
    print_message("peak RSS at the close not compared (ASan's allocator, or qemu-user)\n");
    return;
#endif
    if (buffered.close_growth_kb < 0) {
        print_message("peak RSS at the close not compared (no /proc/self/clear_refs)\n");
        return;
    }
    print_message("peak RSS added by the close of 3 MiB of events: buffered %ld kB, direct %ld kB\n",
                  buffered.close_growth_kb, direct.close_growth_kb);
    assert_true(buffered.close_growth_kb > 2048);
    assert_true(direct.close_growth_kb < 1536);
}

static void test_budget(void **state)
{
    (void)state;
    assert_int_equal(hct_buffers_budget(8, 0, NULL), 8 * MIB);
    assert_int_equal(hct_buffers_budget(8, 0, "1"), 8 * MIB);
    assert_int_equal(hct_buffers_budget(8, 0, "2"), 4 * MIB);
    assert_int_equal(hct_buffers_budget(8, 0, "8"), 1 * MIB); /* one event chunk each */
    assert_int_equal(hct_buffers_budget(8, 0, "64"), 1 * MIB); /* never under the minimum */
    assert_int_equal(hct_buffers_budget(8, 0, "x8"), 8 * MIB);
    assert_int_equal(hct_buffers_budget(8, 0, ""), 8 * MIB);
    assert_int_equal(hct_buffers_budget(HCT_DEFAULT_TOTAL_MEMORY_MIB, 0, "8"), 1 * MIB); /* the default's share */
    assert_int_equal(hct_buffers_budget(64, 1, "8"), 64 * MIB); /* set: the user's */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_buffered),
        cmocka_unit_test(test_direct),
        cmocka_unit_test(test_budget),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
