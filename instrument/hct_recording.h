/* hct_recording.h: the first and the last events of a traced process, shared
 * by the serial lifecycle (hct_core.c) and the MPI one (hct_mpi_env.c)
 * (hct_recording.c). */
#ifndef HCT_RECORDING_H
#define HCT_RECORDING_H

/* First events of the master location, once its archive is open. */
void hct_write_program_begin(void);
/* Stops recording: every location gets its last samples, counter values and
 * (the master) the end of the program. */
void hct_stop_recording(void);

#endif
