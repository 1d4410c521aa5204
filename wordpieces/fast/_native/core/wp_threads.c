/* Portable "run these tasks in parallel" (see wp_threads.h).
 *
 * POSIX: a pool of workers kept between calls (started on first need, parked between
 * regions, forgotten in a fork child). Windows: a thread per task per region.
 * Not handled here: what a task does, or how a batch is cut into them (wp_pipeline.c).
 */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* sched_getcpu, pthread_setaffinity_np: to steer workers */
#endif
#include "wp_threads.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
#if defined(__linux__)
#include <sched.h>
#define WP_STEER 1
#else
#define WP_STEER 0
#endif

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

/* ------------------------------------------------------------ threads per region */

static void *trampoline(void *p)
{
    job *j = p;
    j->fn(j->arg);
    return NULL;
}

/* Tasks 1..n-1 on threads started now and joined after: what a caller does while the
 * pool serves another region (another Python thread's batch). */
static void run_on_new_threads(void (*fn)(void *), void *tasks, size_t size, int n)
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

/* ------------------------------------------------------------ the pool */

/* Workers parked between regions, each on its own condition variable: waking one costs
 * a few microseconds where starting a thread cost ~0.1 ms. One region at a time uses the
 * pool (`busy`): it hands out task indices next..n-1, and `running` counts those taken
 * and not finished yet. A worker takes tasks, not a task of its own, so that tasks no
 * worker took yet are done by the caller (a worker slow to wake, or none started). */
#define WP_POOL_MAX 64

typedef struct {
    pthread_t thread;
    pthread_cond_t wake;
    int go;       /* woken for a region */
    int last_cpu; /* where it last ran tasks, -1: unknown */
#if WP_STEER
    int steered;  /* its CPUs narrowed to leave the caller's alone: to widen again */
    cpu_set_t cpus; /* the CPUs it may run on, as inherited at start */
#endif
} pool_slot;

static struct {
    pthread_mutex_t lock;
    pthread_cond_t idle; /* the region's caller: the last running task finished */
    int workers;         /* alive in this process */
    int busy;
    void (*fn)(void *);
    char *tasks;
    size_t size;
    int n, next, running;
    pool_slot slots[WP_POOL_MAX];
} pool = {.lock = PTHREAD_MUTEX_INITIALIZER, .idle = PTHREAD_COND_INITIALIZER};

static pthread_once_t pool_once = PTHREAD_ONCE_INIT;

/* Spin this long (with the lock released) for a flag before sleeping on a condition
 * variable: waking a sleeping thread, in a VM an idle virtual CPU, takes 20-50 us, as
 * much as a batch of a few hundred texts takes to encode, and a batch's regions (and
 * batches in a loop) follow each other closer than that. */
#define WP_SPIN_NS 50000

static int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Whether *flag became nonzero (set 1) or zero (set 0) within WP_SPIN_NS; lock held on
 * entry and on return, released meanwhile. */
static int spin_until(int *flag, int set)
{
    pthread_mutex_unlock(&pool.lock);
    int64_t end = now_ns() + WP_SPIN_NS;
    int seen = 0;
    for (int i = 1; !seen; i++) {
        seen = (__atomic_load_n(flag, __ATOMIC_ACQUIRE) != 0) == set;
        if (!seen && i % 64 == 0 && now_ns() > end)
            break;
    }
    pthread_mutex_lock(&pool.lock);
    return (*flag != 0) == set;
}

static int spin_until_set(int *flag) { return spin_until(flag, 1); }
static int spin_until_zero(int *count) { return spin_until(count, 0); }

/* Take task indices until none is left, with the lock held on entry and on return. */
static void take_tasks(int counted)
{
    while (pool.next < pool.n) {
        void (*fn)(void *) = pool.fn;
        void *arg = pool.tasks + (size_t)pool.next++ * pool.size;
        __atomic_add_fetch(&pool.running, counted, __ATOMIC_RELEASE);
        pthread_mutex_unlock(&pool.lock);
        fn(arg);
        pthread_mutex_lock(&pool.lock);
        __atomic_sub_fetch(&pool.running, counted, __ATOMIC_RELEASE);
    }
}

#if WP_STEER
/* A woken thread runs where it last ran if that CPU is idle, else it may queue behind
 * the thread that woke it: in some VMs (here, a 2-vCPU Firecracker guest) the
 * scheduler does not look for another idle CPU, and the two threads then share one CPU
 * for milliseconds until load balancing moves one (half of the calls ran no faster on 2
 * threads). So a worker that last ran on the caller's CPU is told, before it is woken,
 * to leave that CPU, then takes back all its CPUs once running elsewhere. */
static int current_cpu(void) { return sched_getcpu(); }

static void steer_away(pool_slot *s, int caller_cpu)
{
    if (caller_cpu < 0 || s->last_cpu != caller_cpu || !CPU_ISSET(caller_cpu, &s->cpus)
        || CPU_COUNT(&s->cpus) < 2)
        return;
    cpu_set_t others = s->cpus;
    CPU_CLR(caller_cpu, &others);
    s->steered = pthread_setaffinity_np(s->thread, sizeof(others), &others) == 0;
}

static void widen_again(pool_slot *s)
{
    if (!s->steered)
        return;
    s->steered = 0;
    pthread_mutex_unlock(&pool.lock);
    pthread_setaffinity_np(pthread_self(), sizeof(s->cpus), &s->cpus);
    pthread_mutex_lock(&pool.lock);
}

static void learn_cpus(pool_slot *s)
{
    if (pthread_getaffinity_np(pthread_self(), sizeof(s->cpus), &s->cpus))
        CPU_ZERO(&s->cpus); /* unknown: never steered */
}
#else
static int current_cpu(void) { return -1; }
static void steer_away(pool_slot *s, int caller_cpu) { (void)s, (void)caller_cpu; }
static void widen_again(pool_slot *s) { (void)s; }
static void learn_cpus(pool_slot *s) { (void)s; }
#endif

static void *pool_worker(void *arg)
{
    pool_slot *s = arg;
    pthread_mutex_lock(&pool.lock);
    learn_cpus(s);
    for (;;) {
        if (!spin_until_set(&s->go))
            while (!s->go)
                pthread_cond_wait(&s->wake, &pool.lock);
        __atomic_store_n(&s->go, 0, __ATOMIC_RELAXED);
        widen_again(s);
        if (pool.next < pool.n) {
            take_tasks(1);
            s->last_cpu = current_cpu();
            if (pool.running == 0)
                pthread_cond_signal(&pool.idle);
        }
    }
    return NULL;
}

/* fork(): the child has none of the parent's workers (only the forking thread), so
 * it starts with an empty pool. Holding the lock across fork keeps the state whole. */
static void before_fork(void) { pthread_mutex_lock(&pool.lock); }
static void after_fork_parent(void) { pthread_mutex_unlock(&pool.lock); }

static void after_fork_child(void)
{
    pool.workers = 0;
    pool.busy = 0;
    pool.fn = NULL;
    pool.tasks = NULL;
    pool.n = pool.next = pool.running = 0;
    /* the parent's workers may have been waiting on these: start them afresh */
    pthread_cond_init(&pool.idle, NULL);
    pthread_mutex_unlock(&pool.lock);
}

static void pool_setup(void) { pthread_atfork(before_fork, after_fork_parent, after_fork_child); }

/* Start one more worker, woken already (detached: a parked worker must not keep the
 * process from exiting). Lock held. 0 when it cannot be started. */
static int add_worker(void)
{
    pool_slot *s = &pool.slots[pool.workers];
    memset(s, 0, sizeof(*s));
    s->last_cpu = -1;
    __atomic_store_n(&s->go, 1, __ATOMIC_RELEASE);
    pthread_attr_t attr;
    if (pthread_cond_init(&s->wake, NULL))
        return 0;
    if (pthread_attr_init(&attr)) {
        pthread_cond_destroy(&s->wake);
        return 0;
    }
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int ok = pthread_create(&s->thread, &attr, pool_worker, s) == 0;
    pthread_attr_destroy(&attr);
    if (!ok) {
        pthread_cond_destroy(&s->wake);
        return 0;
    }
    pool.workers++;
    return 1;
}

/* Wake (or start) up to `want` workers for the region just set up. Lock held. */
static void wake_workers(int want, int caller_cpu)
{
    if (want > WP_POOL_MAX)
        want = WP_POOL_MAX;
    for (int i = 0; i < want; i++) {
        if (i == pool.workers) {
            if (!add_worker())
                return;
            continue;
        }
        pool_slot *s = &pool.slots[i];
        steer_away(s, caller_cpu);
        __atomic_store_n(&s->go, 1, __ATOMIC_RELEASE);
        pthread_cond_signal(&s->wake);
    }
}

void wp_run_parallel(void (*fn)(void *), void *tasks, size_t size, int n)
{
    if (n <= 1) {
        for (int i = 0; i < n; i++)
            fn((char *)tasks + (size_t)i * size);
        return;
    }
    pthread_once(&pool_once, pool_setup);
    int caller_cpu = current_cpu();
    pthread_mutex_lock(&pool.lock);
    if (pool.busy) {
        pthread_mutex_unlock(&pool.lock);
        run_on_new_threads(fn, tasks, size, n);
        return;
    }
    pool.busy = 1;
    pool.fn = fn;
    pool.tasks = tasks;
    pool.size = size;
    pool.n = n;
    pool.next = 1;
    pool.running = 0;
    wake_workers(n - 1, caller_cpu);
    pthread_mutex_unlock(&pool.lock);
    fn(tasks);
    pthread_mutex_lock(&pool.lock);
    take_tasks(0); /* what no worker took yet (or none could be started) */
    if (pool.running > 0 && !spin_until_zero(&pool.running))
        while (pool.running > 0)
            pthread_cond_wait(&pool.idle, &pool.lock);
    pool.fn = NULL;
    pool.tasks = NULL;
    pool.n = pool.next = 0;
    pool.busy = 0;
    pthread_mutex_unlock(&pool.lock);
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
