/* Stress wp_threads.c alone under ThreadSanitizer (tests/unit/fast/test_thread_pool.py).
 *
 * Five threads each run 3,000 parallel regions of 2 to 4 tasks at once (one holds the
 * pool, the others start threads of their own), every region also handing out 1 to 64
 * chunks through a wp_progress; each task and chunk writes its own slot, checked after
 * the region. Prints "ok" and exits 0 when every slot holds its value.
 */
#include "wp_threads.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct { int *out; int value; wp_progress *p; int n_chunks; int *chunk_out; } task;

static void run(void *arg)
{
    task *t = arg;
    t->out[t->value] += t->value + 1;
    for (int k; t->p && (k = wp_progress_claim(t->p)) < t->n_chunks;) {
        t->chunk_out[k] = k * 3;
        wp_progress_done(t->p, k);
    }
}

static int one_region(int n, int chunks)
{
    int out[8] = {0}, chunk_out[64] = {0};
    task tasks[8];
    wp_progress *p = wp_progress_new(chunks);
    for (int i = 0; i < n; i++)
        tasks[i] = (task){out, i, p, chunks, chunk_out};
    wp_run_parallel(run, tasks, sizeof(task), n);
    int bad = 0;
    for (int i = 0; i < n; i++)
        bad |= out[i] != i + 1;
    for (int k = 0; k < chunks; k++)
        bad |= !wp_progress_wait(p, k) || chunk_out[k] != k * 3;
    wp_progress_free(p);
    return bad;
}

static void *caller(void *arg)
{
    long seed = (long)arg, bad = 0;
    for (int r = 0; r < 3000; r++)
        bad |= one_region(2 + (int)((seed + r) % 3), 1 + (int)((seed * 7 + r) % 64));
    return (void *)bad;
}

int main(void)
{
    pthread_t t[4];
    long bad = 0;
    for (long i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, caller, (void *)i);
    for (int i = 0; i < 4; i++) {
        void *r;
        pthread_join(t[i], &r);
        bad |= (long)r;
    }
    bad |= (long)caller((void *)9);
    printf(bad ? "WRONG\n" : "ok\n");
    return bad != 0;
}
