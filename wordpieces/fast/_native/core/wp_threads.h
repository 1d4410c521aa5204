/* Run a few tasks at once on native threads (POSIX threads, or Windows threads).
 *
 * The GIL-free phase of a batch is split into one task per thread, so that a batch
 * scales across cores without handing the GIL back and forth between Python threads.
 * Not handled here: splitting the work (wp_batch.c).
 */
#ifndef WP_THREADS_H
#define WP_THREADS_H

#include <stddef.h>

/* Call fn(tasks + i * size) for i in 0..n-1, on up to n threads (the caller's thread
 * runs one); a task whose thread cannot be started runs on the caller's thread. */
void wp_run_parallel(void (*fn)(void *), void *tasks, size_t size, int n);

#endif
