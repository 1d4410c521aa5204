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

/* A batch cut into chunks that threads claim one by one and mark done, so that one
 * thread can use the chunks done so far (in order) while the others still work.
 * The lock also publishes each chunk's output to the thread that waits for it. */
typedef struct wp_progress wp_progress;

wp_progress *wp_progress_new(int n_chunks); /* NULL: out of memory */
void wp_progress_free(wp_progress *p);
/* The next unclaimed chunk, or n_chunks when none is left (or after a stop). */
int wp_progress_claim(wp_progress *p);
void wp_progress_done(wp_progress *p, int chunk);
int wp_progress_is_done(wp_progress *p, int chunk);
/* Block until `chunk` is done (1), or known never to be: stopped before its claim (0).
 * A claimed chunk must be worked on by a running thread. */
int wp_progress_wait(wp_progress *p, int chunk);
/* Hand out no more chunks (an error: what is left is not needed). */
void wp_progress_stop(wp_progress *p);

#endif
