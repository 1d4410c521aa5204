/* Run a few tasks at once on native threads (POSIX threads, or Windows threads).
 *
 * The GIL-free phase of a batch is split into one task per thread, so that a batch
 * scales across cores without handing the GIL back and forth between Python threads.
 * Not handled here: splitting the work (wp_batch.c, wp_pipeline.c).
 */
#ifndef WP_THREADS_H
#define WP_THREADS_H

#include <stddef.h>

/* Call fn(tasks + i * size) for i in 0..n-1, on up to n threads, and return when all
 * are done. The caller's thread runs task 0, then any task no other thread took yet
 * (so every task runs even when no thread can be started: tasks must not wait for a
 * task of higher index to start). Tasks run without the GIL and touch no Python object.
 *
 * POSIX: the other threads are a process-wide pool of workers started on first need (up
 * to the most ever asked, at most 64), parked between calls, detached (they never keep
 * the process from exiting) and forgotten in a fork() child, which starts its own. One
 * call uses the pool at a time; a call made meanwhile (another Python thread's batch, or
 * a task calling this) starts threads of its own for that call. A worker done with a
 * call, and the caller waiting for the last task, spin up to 50 us before sleeping (so
 * calls in a loop, and a call's regions, find the worker awake). Linux: a parked worker
 * that last ran on the caller's CPU is moved off it before it is woken (see the .c).
 * Windows: a thread per task per call. */
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
