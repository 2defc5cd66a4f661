/* test_journal.c: unit tests of a rank's definitions journal (src/hca_journal.c) and
 * the definition deltas it appends (hca_defs_serialize_since, hca_defs_append): the
 * records read back give the definitions the process had at its last complete
 * record, with its locations and time; a record cut short (a kill or a full disk
 * while appending) is recognized and the records before it kept; a team's members
 * that grew between records are the latest. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "hca_defs.h"
#include "hca_journal.h"

#define TEST_TMPDIR_NAME "test_journal"
#include "test_tmpdir.h"

static hca_partial_header header(uint64_t end_ts, uint32_t nlocs)
{
    hca_partial_header h;
    memset(&h, 0, sizeof(h));
    memcpy(h.magic, HCA_PARTIAL_MAGIC, sizeof(h.magic));
    h.rank = 1;
    h.size = 2;
    h.nlocs = nlocs;
    h.begin_ts = 100;
    h.end_ts = end_ts;
    snprintf(h.how, sizeof(h.how), "%s", HCA_JOURNAL_HOW);
    return h;
}

/* Two records: the first holds main and one context, the second adds a region, a
 * context under the first and a thread to the team. */
static void write_two(const char *path, hca_defs *d)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND, 0644);
    assert_true(fd >= 0);
    hca_defs_marks marks;
    hca_defs_init(d);
    hca_defs_marks_of(d, &marks);
    hca_ref fn = hca_defs_region(d, "main", HCA_KIND_FUNCTION, "cg.c", 10, 0, OTF2_REGION_ROLE_FUNCTION,
                                 OTF2_PARADIGM_SAMPLING);
    hca_ref root = hca_defs_cc(d, fn, hca_defs_scl(d, "cg.c", 12), HCA_UNDEF);
    uint32_t one[1] = { 0 };
    hca_defs_team(d, "team", 1, HCA_TEAM_KEY(1, 0), 1, one);
    hca_location_info locs[2] = { { 1, 1, 0, 0 }, { (1ull << 32) | 1, 1, 1, 0 } };
    hca_partial_header h = header(1000, 1);
    assert_int_equal(hca_journal_append(fd, &h, locs, d, &marks), 0);
    hca_ref mpi = hca_defs_region(d, "MPI_Allreduce", HCA_KIND_MPI, "", 0, 0, OTF2_REGION_ROLE_COLL_ALL2ALL,
                                  OTF2_PARADIGM_MPI);
    hca_defs_cc(d, mpi, HCA_UNDEF, root);
    uint32_t two[2] = { 0, 1 };
    free(d->comms[0].members); /* the team grew, as hct_comms_define updates it */
    d->comms[0].members = malloc(sizeof(two));
    memcpy(d->comms[0].members, two, sizeof(two));
    d->comms[0].nmembers = 2;
    h = header(2000, 2);
    assert_int_equal(hca_journal_append(fd, &h, locs, d, &marks), 0);
    assert_int_equal(close(fd), 0);
}

static void same_defs(const hca_defs *a, const hca_defs *b)
{
    unsigned char *x = NULL, *y = NULL;
    size_t nx = 0, ny = 0;
    assert_int_equal(hca_defs_serialize(a, &x, &nx), 0);
    assert_int_equal(hca_defs_serialize(b, &y, &ny), 0);
    assert_int_equal(nx, ny);
    assert_memory_equal(x, y, nx);
    free(x);
    free(y);
}

static void records_give_the_last_state(void **state)
{
    (void)state;
    char path[128];
    snprintf(path, sizeof(path), "%s/a.journal", dir);
    hca_defs d;
    write_two(path, &d);
    hca_partial p;
    unsigned records = 0;
    int torn = 1;
    char err[256];
    assert_int_equal(hca_journal_read(path, &p, &records, &torn, err, sizeof(err)), 0);
    assert_int_equal(records, 2);
    assert_int_equal(torn, 0);
    assert_int_equal(p.h.end_ts, 2000);
    assert_int_equal(p.h.nlocs, 2);
    assert_int_equal(p.locs[1].thread, 1);
    assert_string_equal(p.h.how, HCA_JOURNAL_HOW);
    same_defs(&p.defs, &d);
    assert_int_equal(p.defs.comms[0].nmembers, 2);
    hca_partial_free(&p);
    hca_defs_free(&d);
}

static void a_record_cut_short_is_left_out(void **state)
{
    (void)state;
    char path[128];
    snprintf(path, sizeof(path), "%s/b.journal", dir);
    hca_defs d;
    write_two(path, &d);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    /* the second record loses its last byte (a kill or a full disk while writing) */
    assert_int_equal(truncate(path, st.st_size - 1), 0);
    hca_partial p;
    unsigned records = 0;
    int torn = 0;
    char err[256];
    assert_int_equal(hca_journal_read(path, &p, &records, &torn, err, sizeof(err)), 0);
    assert_int_equal(records, 1);
    assert_int_equal(torn, 1);
    assert_int_equal(p.h.end_ts, 1000);
    assert_int_equal(p.defs.nregions, 1);
    assert_int_equal(p.defs.nccs, 1);
    assert_int_equal(p.defs.comms[0].nmembers, 1);
    hca_partial_free(&p);
    /* a damaged byte inside a record: its checksum no longer holds */
    assert_int_equal(unlink(path), 0);
    hca_defs_free(&d);
    write_two(path, &d);
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, (long)sizeof(hca_journal_record) + 3, SEEK_SET), 0);
    fputc(0x5a, f);
    fclose(f);
    assert_int_equal(hca_journal_read(path, &p, &records, &torn, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "no complete journal record"));
    hca_defs_free(&d);
}

static void a_delta_applies_only_where_it_was_taken(void **state)
{
    (void)state;
    hca_defs d, delta, other;
    hca_defs_init(&d);
    hca_defs_init(&other);
    hca_defs_marks since, none;
    hca_defs_marks_of(&d, &none);
    hca_defs_string(&d, "a");
    hca_defs_marks_of(&d, &since);
    hca_defs_string(&d, "b");
    unsigned char *buf = NULL;
    size_t len = 0;
    assert_int_equal(hca_defs_serialize_since(&d, &since, &buf, &len), 0);
    assert_int_equal(hca_defs_deserialize(&delta, buf, len), 0);
    assert_int_equal(delta.strings.n, 1);
    /* other holds nothing: "b" would get ID 0, not the 1 its users refer to */
    assert_int_equal(hca_defs_append(&other, &since, &delta), -1);
    hca_defs_string(&other, "a");
    assert_int_equal(hca_defs_append(&other, &since, &delta), 0);
    assert_string_equal(other.strings.items[1], "b");
    (void)none;
    free(buf);
    hca_defs_free(&delta);
    hca_defs_free(&other);
    hca_defs_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(records_give_the_last_state),
        cmocka_unit_test(a_record_cut_short_is_left_out),
        cmocka_unit_test(a_delta_applies_only_where_it_was_taken),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
