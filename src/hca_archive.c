/* hca_archive.c: flush callbacks shared by every writer of the trace schema
 * (the tracer and the synthesizer); see hca_archive.h. */
#include "hca_archive.h"

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc, void *caller, bool final)
{
    (void)loc;
    (void)caller;
    const hca_flush_clock *clock = user;
    if (clock && clock->before && !clock->before(clock->user, type, final))
        return OTF2_NO_FLUSH;
    return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc)
{
    (void)type;
    (void)loc;
    const hca_flush_clock *clock = user;
    return clock->now(clock->user);
}

static OTF2_FlushCallbacks flush_callbacks = { .otf2_pre_flush = pre_flush, .otf2_post_flush = post_flush };

OTF2_ErrorCode hca_archive_set_flush(OTF2_Archive *archive, hca_flush_clock *clock)
{
    return OTF2_Archive_SetFlushCallbacks(archive, &flush_callbacks, clock);
}
