/* Encode a batch in chunks on native threads while the caller's thread builds results.
 *
 * A batch is cut into chunks of about WP_CHUNK_CHARS code points. Every thread claims
 * the next chunk, encodes it without the GIL into the chunk's own output, and marks it
 * done (wp_progress). The caller's thread also encodes, but whenever the next chunk in
 * order is done it takes the GIL and builds that chunk's results (Python lists): list
 * building then overlaps the other threads' encoding instead of following it. Columns
 * (bytearrays) are instead copied into place after the encoding, by every thread at
 * once (wp_batch_flatten), so the copy and its page faults are parallel too.
 * Not handled here: learning code points (wp_batch.c, before), what a result holds
 * (wp_batch.c, wp_finish_glue.c).
 */
#include "wp_module.h"

#include <string.h>

#if defined(__linux__)
#include <sys/mman.h>
#endif

/* Below this many code points per thread, more threads cost more than they save. */
#define WP_MIN_CHARS_PER_THREAD 16384
/* A chunk: small enough that the caller's thread starts building results early (and
 * that the last chunk ends soon after the others), big enough to be cheap to hand out. */
#define WP_CHUNK_CHARS 32768
#define WP_MAX_CHUNKS 256

int wp_thread_count(const batch *b, int threads)
{
    int64_t most = b->chars / WP_MIN_CHARS_PER_THREAD;
    int n = threads < 1 ? 1 : threads;
    if (n > most)
        n = most > 1 ? (int)most : 1;
    if (n > b->n_chunks)
        n = b->n_chunks > 1 ? b->n_chunks : 1;
    return n;
}

static int64_t text_chars(const batch *b, Py_ssize_t r)
{
    return PyUnicode_GET_LENGTH(b->texts[r]);
}

/* Whether the pair rows are -1 or follow each other from n_inputs on (unzip's order):
 * then the pairs of a range of inputs are a range of rows. */
static int pairs_in_order(const batch *b, Py_ssize_t n_inputs, const int64_t *pair_rows)
{
    int64_t next = n_inputs;
    for (Py_ssize_t i = 0; pair_rows && i < n_inputs; i++)
        if (pair_rows[i] >= 0 && pair_rows[i] != next++)
            return 0;
    return next == b->n || !pair_rows;
}

static int alloc_chunks(batch *b, int n)
{
    b->chunks = n == 1 ? b->few_chunks : PyMem_Calloc((size_t)n + 1, sizeof(wp_chunk));
    if (!b->chunks) {
        PyErr_NoMemory();
        return -1;
    }
    b->n_chunks = n;
    return 0;
}

/* Cut the inputs [0, n_inputs) into chunks of about the same number of code points; a
 * chunk holds its inputs' rows and their pairs' rows. Rows of pairs out of order, or
 * rows that are no input's, make one chunk of everything. */
int wp_batch_split(batch *b, Py_ssize_t n_inputs, const int64_t *pair_rows, int threads)
{
    int64_t want = b->chars / WP_CHUNK_CHARS, most = b->chars / WP_MIN_CHARS_PER_THREAD;
    if (threads > most)
        threads = most > 1 ? (int)most : 1;
    if (threads > 1 && want < 4 * threads)
        want = 4 * threads; /* no thread is left with a share much bigger than another's */
    if (want > WP_MAX_CHUNKS)
        want = WP_MAX_CHUNKS;
    if (want > n_inputs)
        want = n_inputs;
    if (want < 1 || (n_inputs != b->n && !pair_rows) || !pairs_in_order(b, n_inputs, pair_rows)) {
        if (alloc_chunks(b, 1) < 0)
            return -1;
        b->chunks[0] = (wp_chunk){.a0 = 0, .a1 = n_inputs, .p0 = n_inputs, .p1 = b->n};
        return 0;
    }
    if (alloc_chunks(b, (int)want) < 0)
        return -1;
    Py_ssize_t i = 0, p = n_inputs;
    int64_t seen = 0;
    for (int k = 0; k < want; k++) {
        wp_chunk *c = &b->chunks[k];
        c->a0 = i;
        c->p0 = p;
        int64_t goal = b->chars * (k + 1) / want;
        while (i < n_inputs && (seen < goal || k == want - 1)) {
            seen += text_chars(b, i);
            if (pair_rows && pair_rows[i] >= 0)
                seen += text_chars(b, p++);
            i++;
        }
        c->a1 = i;
        c->p1 = p;
    }
    return 0;
}

/* ------------------------------------------------------------ encoding */

typedef struct {
    EncoderObject *self;
    batch *b;
    wp_progress *progress;
    wp_consumer consume;
    void *ctx;
    PyThreadState *saved; /* the caller's thread state while it runs without the GIL */
    int failed;           /* the consumer raised (with the GIL) */
} run_state;

typedef struct {
    run_state *run;
    int main; /* the caller's thread: also builds the results */
} worker;

static int encode_rows(const run_state *rs, wp_chunk *c, Py_ssize_t from, Py_ssize_t to,
                       int k, wp_scratch *s)
{
    batch *b = rs->b;
    for (Py_ssize_t r = from; r < to; r++) {
        PyObject *t = b->texts[r];
        size_t before = c->out.ids.len;
        int rc = wp_encode_text(&rs->self->model, PyUnicode_KIND(t), PyUnicode_DATA(t),
                                PyUnicode_GET_LENGTH(t), b->want_offsets, s, &c->out);
        if (rc == WP_NOMEM)
            return rc;
        b->status[r] = (signed char)rc;
        b->row_chunk[r] = k;
        b->row_at[r] = (int64_t)before;
        b->row_len[r] = (int64_t)(c->out.ids.len - before);
    }
    return WP_OK;
}

static void encode_chunk(const run_state *rs, int k, wp_scratch *s)
{
    wp_chunk *c = &rs->b->chunks[k];
    c->rc = encode_rows(rs, c, c->a0, c->a1, k, s);
    if (c->rc == WP_OK)
        c->rc = encode_rows(rs, c, c->p0, c->p1, k, s);
    if (c->rc != WP_OK)
        wp_progress_stop(rs->progress);
    wp_progress_done(rs->progress, k);
}

/* Build the results of the done chunks from `*next` on, with the GIL. */
static void consume_ready(run_state *rs, int *next, int wait)
{
    int n = rs->b->n_chunks;
    if (rs->saved)
        PyEval_RestoreThread(rs->saved);
    while (!rs->failed && *next < n && (wait || wp_progress_is_done(rs->progress, *next))) {
        wait = 0;
        if (rs->b->chunks[*next].rc != WP_OK) {
            PyErr_NoMemory();
            rs->failed = 1;
        } else if (rs->consume(rs->ctx, rs->b, *next) < 0) {
            rs->failed = 1;
        }
        ++*next;
    }
    if (rs->failed)
        wp_progress_stop(rs->progress);
    if (rs->saved)
        rs->saved = PyEval_SaveThread();
}

static void work(void *arg)
{
    worker *w = arg;
    run_state *rs = w->run;
    int n = rs->b->n_chunks, next = 0;
    wp_scratch s;
    memset(&s, 0, sizeof(s));
    for (;;) {
        if (w->main && rs->consume && !rs->failed && next < n
            && wp_progress_is_done(rs->progress, next)) {
            consume_ready(rs, &next, 0);
            continue;
        }
        int k = wp_progress_claim(rs->progress);
        if (k < n) {
            encode_chunk(rs, k, &s);
            continue;
        }
        if (!w->main || !rs->consume || rs->failed || next >= n)
            break;
        if (!wp_progress_wait(rs->progress, next))
            break; /* stopped: a chunk ran out of memory */
        consume_ready(rs, &next, 1);
    }
    wp_scratch_free(&s);
}

/* One thread: each chunk encoded (without the GIL when big enough), then its results
 * built; no lock, no thread. */
static int run_alone(EncoderObject *self, batch *b, wp_consumer consume, void *ctx)
{
    run_state rs = {self, b, NULL, consume, ctx, NULL, 0};
    wp_scratch s;
    memset(&s, 0, sizeof(s));
    int release = b->chars >= WP_RELEASE_GIL_CHARS, rc = 0;
    for (int k = 0; rc == 0 && k < b->n_chunks; k++) {
        wp_chunk *c = &b->chunks[k];
        if (release)
            rs.saved = PyEval_SaveThread();
        c->rc = encode_rows(&rs, c, c->a0, c->a1, k, &s);
        if (c->rc == WP_OK)
            c->rc = encode_rows(&rs, c, c->p0, c->p1, k, &s);
        if (release)
            PyEval_RestoreThread(rs.saved);
        if (c->rc != WP_OK) {
            PyErr_NoMemory();
            rc = -1;
        } else if (consume && consume(ctx, b, k) < 0) {
            rc = -1;
        }
    }
    wp_scratch_free(&s);
    return rc;
}

/* Encode every chunk on up to `threads` threads; with a consumer, build each chunk's
 * results in order on this thread meanwhile. -1 with an exception on failure. */
int wp_batch_run(EncoderObject *self, batch *b, int threads, wp_consumer consume, void *ctx)
{
    if (wp_batch_learn(self, b, threads) < 0)
        return -1;
    int n = wp_thread_count(b, threads);
    if (n == 1)
        return run_alone(self, b, consume, ctx);
    run_state rs = {self, b, wp_progress_new(b->n_chunks), consume, ctx, NULL, 0};
    worker *workers = PyMem_Calloc((size_t)n, sizeof(worker));
    if (!rs.progress || !workers) {
        wp_progress_free(rs.progress);
        PyMem_Free(workers);
        PyErr_NoMemory();
        return -1;
    }
    for (int k = 0; k < n; k++)
        workers[k] = (worker){&rs, k == 0};
    if (b->chars >= WP_RELEASE_GIL_CHARS) {
        rs.saved = PyEval_SaveThread();
        wp_run_parallel(work, workers, sizeof(worker), n);
        PyEval_RestoreThread(rs.saved);
    } else {
        work(workers);
    }
    int nomem = 0;
    for (int k = 0; k < b->n_chunks; k++)
        nomem |= b->chunks[k].rc != WP_OK;
    wp_progress_free(rs.progress);
    PyMem_Free(workers);
    if (rs.failed)
        return -1;
    if (nomem) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------ flat columns */

/* Below this many bytes per thread, starting a thread (and waking an idle core: ~0.1 ms
 * in a VM) costs more than copying them. */
#define WP_MIN_COPY_BYTES_PER_THREAD (4 << 20)

typedef struct {
    const batch *b;
    wp_flat *dst;
    Py_ssize_t from, to; /* rows */
} copy_task;

/* Copy rows [from, to) into place, one memcpy per run of rows stored one after the other. */
static void copy_rows(void *arg)
{
    const copy_task *t = arg;
    const batch *b = t->b;
    wp_flat *d = t->dst;
    Py_ssize_t r = t->from;
    while (r < t->to) {
        Py_ssize_t end = r + 1;
        int32_t k = b->row_chunk[r];
        while (end < t->to && b->row_chunk[end] == k
               && b->row_at[end] == b->row_at[end - 1] + b->row_len[end - 1])
            end++;
        const wp_output *o = &b->chunks[k].out;
        size_t from = (size_t)b->row_at[r], at = (size_t)d->splits[r];
        size_t n = (size_t)(d->splits[end] - d->splits[r]);
        if (n && d->ids)
            memcpy(d->ids + at, o->ids.data + from, n * sizeof(int32_t));
        if (n && d->offsets)
            memcpy(d->offsets + 2 * at, o->offsets.data + 2 * from, 2 * n * sizeof(int64_t));
        if (n && d->word_ids)
            memcpy(d->word_ids + at, o->word_ids.data + from, n * sizeof(int32_t));
        r = end;
    }
}

/* Copy every row's tokens into dst (row splits given, every row materialized), on up
 * to `threads` threads each taking rows of about as many tokens. Needs no GIL. */
int wp_batch_flatten(batch *b, int threads, wp_flat *dst)
{
    int n = wp_thread_count(b, threads);
    copy_task tasks[64];
    if (n > 64)
        n = 64;
    int64_t total = dst->splits[b->n];
    int64_t bytes = total * (int64_t)(sizeof(int32_t) + (dst->offsets ? 20 : 0));
    if (bytes < (int64_t)WP_MIN_COPY_BYTES_PER_THREAD * n)
        n = 1;
    Py_ssize_t r = 0;
    for (int k = 0; k < n; k++) {
        int64_t goal = total * (k + 1) / n;
        tasks[k] = (copy_task){b, dst, r, r};
        while (r < b->n && (dst->splits[r] < goal || k == n - 1))
            r++;
        tasks[k].to = r;
    }
    if (total * (int64_t)sizeof(int32_t) >= WP_RELEASE_GIL_CHARS) {
        Py_BEGIN_ALLOW_THREADS
        wp_run_parallel(copy_rows, tasks, sizeof(copy_task), n);
        Py_END_ALLOW_THREADS
    } else {
        for (int k = 0; k < n; k++)
            copy_rows(&tasks[k]);
    }
    return 0;
}

/* ------------------------------------------------------------ fresh memory */

/* From this size on, glibc's malloc always maps a block of its own (its mmap threshold
 * never grows past 32 MB): smaller blocks may lie in the heap, whose later small
 * allocations would then fault in (and zero) 2 MB at a time. */
#define WP_HUGE_MIN_BYTES (32u << 20)

/* Ask for transparent huge pages under a big fresh column (Linux; a no-op elsewhere).
 *
 * Columns of this size are mapped fresh by malloc on every call, and written once: with
 * 4 KB pages, the kernel's page faults were the biggest cost of a padded batch
 * ("np" call on prose lines: 43 -> 27 ms on one thread with huge pages). Kernels set to
 * "never" ignore the advice; with "always" it changes nothing. */
void *wp_advise_huge(void *data, size_t nbytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    uintptr_t start = ((uintptr_t)data + 4095) & ~(uintptr_t)4095;
    uintptr_t end = ((uintptr_t)data + nbytes) & ~(uintptr_t)4095;
    if (data && nbytes >= WP_HUGE_MIN_BYTES && end > start)
        (void)madvise((void *)start, end - start, MADV_HUGEPAGE);
#endif
    return data;
}
