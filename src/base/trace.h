/*
 * trace.h -- Chrome trace-event output of the host pipeline (trace.c owns it).
 *
 * CLHGEMM_TRACE=file.json (or clhgemm_options_t.trace_file) makes every host call write a
 * trace that Perfetto or chrome://tracing opens: one track ("thread") per command queue of every
 * device and one per pack thread, so the overlap of copies in both directions with the kernels
 * can be seen. Device commands are timed with OpenCL profiling (the queues are created with
 * CL_QUEUE_PROFILING_ENABLE when tracing) and put on the host clock by an offset measured per
 * device (chg_trace_align). Host spans are timed with CLOCK_MONOTONIC. Thread-safe.
 */
#ifndef CHG_TRACE_H
#define CHG_TRACE_H

#include "clhgemm.h"

typedef struct chg_trace_s chg_trace_t;

/* Monotonic host clock in nanoseconds. */
unsigned long long chg_now_ns(void);
/* Seconds since t0 (a chg_now_ns() reading). */
static inline double chg_seconds_since(unsigned long long t0) { return (chg_now_ns() - t0) * 1e-9; }

/* Starts collecting for one call (path NULL → returns NULL; every function accepts NULL and
 * then does nothing). `origin` names what set the path (e.g. "CLHGEMM_TRACE"), for the warning
 * when the file cannot be written. */
chg_trace_t *chg_trace_begin(const char *path, const char *origin);

/* Measures the offset between `queue`'s device clock and chg_now_ns() (a marker enqueued and
 * waited for; its profiling end time against the host clock right after) and remembers it for
 * `device_index`. Call once per device and call, before the device's events are added. */
void chg_trace_align(chg_trace_t *t, int device_index, cl_command_queue queue);

/* A span of host work on track `track` (e.g. "pack 3"), host clock times in ns. */
void chg_trace_host(chg_trace_t *t, const char *track, const char *name, unsigned long long t0_ns,
                    unsigned long long t1_ns);

/* A device command: the event is retained and read (CL_PROFILING_COMMAND_START/END) when the
 * trace is finished; `track` names the queue (e.g. "gpu0 h2d"). name is copied. */
void chg_trace_device(chg_trace_t *t, int device_index, const char *track, const char *name,
                      cl_event ev);

/* A span of several device commands of one in-order queue: from the end of `first` (a marker
 * enqueued before them) to the end of `last` (the last of them, or a marker after them). Both
 * events are retained. */
void chg_trace_device_span(chg_trace_t *t, int device_index, const char *track,
                           const char *name, cl_event first, cl_event last);

/* Waits for nothing: all recorded events must be complete. Resolves device times, writes the
 * JSON file (replacing it), releases everything. Returns 0, or -1 if the file could not be
 * written: one line "clhgemm: <origin>=<path> cannot be written (...)" on stderr whatever
 * CLHGEMM_VERBOSE says, once per (origin, path) per process (the details with CLHGEMM_VERBOSE). */
int chg_trace_end(chg_trace_t *t);

#endif
