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

#else
#include <pthread.h>

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
