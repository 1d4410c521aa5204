/* Portable "run these tasks in parallel" (see wp_threads.h). */
#include "wp_threads.h"

#include <stdlib.h>

typedef struct {
    void (*fn)(void *);
    void *arg;
} job;

#if defined(_WIN32)
#include <windows.h>

static DWORD WINAPI trampoline(LPVOID p)
{
    job *j = p;
    j->fn(j->arg);
    return 0;
}

void wp_run_parallel(void (*fn)(void *), void *tasks, size_t size, int n)
{
    job *jobs = calloc((size_t)n, sizeof(job));
    HANDLE *handles = calloc((size_t)n, sizeof(HANDLE));
    for (int i = 1; i < n; i++) {
        if (!jobs || !handles)
            break;
        jobs[i] = (job){fn, (char *)tasks + (size_t)i * size};
        handles[i] = CreateThread(NULL, 0, trampoline, &jobs[i], 0, NULL);
    }
    fn(tasks);
    for (int i = 1; i < n; i++) {
        if (handles && handles[i]) {
            WaitForSingleObject(handles[i], INFINITE);
            CloseHandle(handles[i]);
        } else {
            fn((char *)tasks + (size_t)i * size);
        }
    }
    free(jobs);
    free(handles);
}


struct wp_progress {
    CRITICAL_SECTION lock;
    CONDITION_VARIABLE changed;
    int n, next, stopped;
    char *done;
};

static void lock(wp_progress *p) { EnterCriticalSection(&p->lock); }
static void unlock(wp_progress *p) { LeaveCriticalSection(&p->lock); }
static void signal_all(wp_progress *p) { WakeAllConditionVariable(&p->changed); }
static void wait_change(wp_progress *p) { SleepConditionVariableCS(&p->changed, &p->lock, INFINITE); }

static int progress_init(wp_progress *p)
{
    InitializeCriticalSection(&p->lock);
    InitializeConditionVariable(&p->changed);
    return 0;
}

static void progress_destroy(wp_progress *p)
{
    DeleteCriticalSection(&p->lock);
}

#else
#include <pthread.h>

struct wp_progress {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int n, next, stopped;
    char *done;
};

static void lock(wp_progress *p) { pthread_mutex_lock(&p->lock); }
static void unlock(wp_progress *p) { pthread_mutex_unlock(&p->lock); }
static void signal_all(wp_progress *p) { pthread_cond_broadcast(&p->changed); }
static void wait_change(wp_progress *p) { pthread_cond_wait(&p->changed, &p->lock); }

static int progress_init(wp_progress *p)
{
    if (pthread_mutex_init(&p->lock, NULL))
        return -1;
    if (pthread_cond_init(&p->changed, NULL)) {
        pthread_mutex_destroy(&p->lock);
        return -1;
    }
    return 0;
}

static void progress_destroy(wp_progress *p)
{
    pthread_cond_destroy(&p->changed);
    pthread_mutex_destroy(&p->lock);
}

static void *trampoline(void *p)
{
    job *j = p;
    j->fn(j->arg);
    return NULL;
}

void wp_run_parallel(void (*fn)(void *), void *tasks, size_t size, int n)
{
    job *jobs = calloc((size_t)n, sizeof(job));
    pthread_t *threads = calloc((size_t)n, sizeof(pthread_t));
    char *started = calloc((size_t)n, 1);
    for (int i = 1; i < n; i++) {
        if (!jobs || !threads || !started)
            break;
        jobs[i] = (job){fn, (char *)tasks + (size_t)i * size};
        started[i] = pthread_create(&threads[i], NULL, trampoline, &jobs[i]) == 0;
    }
    fn(tasks);
    for (int i = 1; i < n; i++) {
        if (started && started[i])
            pthread_join(threads[i], NULL);
        else
            fn((char *)tasks + (size_t)i * size);
    }
    free(jobs);
    free(threads);
    free(started);
}
#endif

/* ------------------------------------------------------------ progress of chunks */

wp_progress *wp_progress_new(int n_chunks)
{
    wp_progress *p = calloc(1, sizeof(wp_progress));
    char *done = calloc((size_t)(n_chunks > 0 ? n_chunks : 1), 1);
    if (!p || !done || progress_init(p) < 0) {
        free(p);
        free(done);
        return NULL;
    }
    p->n = n_chunks;
    p->done = done;
    return p;
}

void wp_progress_free(wp_progress *p)
{
    if (!p)
        return;
    progress_destroy(p);
    free(p->done);
    free(p);
}

int wp_progress_claim(wp_progress *p)
{
    lock(p);
    int k = !p->stopped && p->next < p->n ? p->next++ : p->n;
    unlock(p);
    return k;
}

void wp_progress_done(wp_progress *p, int chunk)
{
    lock(p);
    p->done[chunk] = 1;
    signal_all(p);
    unlock(p);
}

int wp_progress_is_done(wp_progress *p, int chunk)
{
    lock(p);
    int done = p->done[chunk];
    unlock(p);
    return done;
}

int wp_progress_wait(wp_progress *p, int chunk)
{
    lock(p);
    while (!p->done[chunk] && !(p->stopped && chunk >= p->next))
        wait_change(p);
    int done = p->done[chunk];
    unlock(p);
    return done;
}

void wp_progress_stop(wp_progress *p)
{
    lock(p);
    p->stopped = 1;
    signal_all(p);
    unlock(p);
}
