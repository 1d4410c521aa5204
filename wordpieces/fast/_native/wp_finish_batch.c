/* Finish a batch into model inputs in C: id lists, or int64 columns, on threads.
 *
 * Encoder.encode_finish encodes a batch (wp_pipeline.c) and finishes it without
 * columns between: unpadded id lists are built chunk by chunk while other threads still
 * encode; columns (and padded lists) are laid out in one pass, then every thread writes
 * the finished rows of a range of inputs (core/wp_finish.c).
 * Not handled here: reading the plans and options (wp_finish_glue.c).
 */
#include "wp_finish_glue.h"

#include <string.h>

/* Below this many tokens per thread, writing the columns on more threads does not pay. */
#define WP_MIN_TOKENS_PER_THREAD 16384
/* At most this many threads write the finished rows. Writing is mostly first touches of
 * fresh pages; on the 2-vCPU guest this was measured on, two threads faulting fresh pages
 * at once sometimes stall each other for milliseconds (tok(..., "np") on 2 threads took
 * up to 1.8x the time of 1 thread: docs/performance.md, "Threads"), while one writer is
 * steady. Raise it where measurements on other machines say it pays. */
#define WP_WRITE_THREADS 1
/* encoding.padding.MAX_PADDED_BATCH: rows x padded length of one batch, at most */
#define WP_MAX_PADDED_BATCH ((int64_t)1 << 24)

#define WP_ID_CACHE 65536
static PyObject *id_cache[WP_ID_CACHE];

static inline PyObject *id_int(int64_t v)
{
    if (v < 0 || v >= WP_ID_CACHE)
        return PyLong_FromLongLong((long long)v);
    PyObject *o = id_cache[v];
    if (!o && !(o = id_cache[v] = PyLong_FromLongLong((long long)v)))
        return NULL;
    Py_INCREF(o);
    return o;
}

/* Leave a row of ints out of the cyclic collector. It holds no container, so it is in no
 * cycle; tracked, each collection would scan its items until it is freed (the rows of
 * one call are most of the objects it makes: 15-30 % of a list call's time went to
 * scanning them). CPython untracks tuples and dicts of atomic values the same way; a
 * list a user later fills with containers stays untracked, so a cycle made through it
 * is not collected (freed when its references go). NULL is passed through. */
static void wp_untrack_row(PyObject *row)
{
    if (row)
        PyObject_GC_UnTrack(row);
}

/* The rows of a column as lists of ints (width 2: of (start, end) tuples). The collector
 * is paused meanwhile, and each row (and pair) is left untracked (wp_untrack_row): made
 * tracked, every row would be scanned again by each collection until it is freed. */
static PyObject *column_lists(const int64_t *col, int width, const int64_t *splits, int64_t n)
{
    int was_enabled = PyGC_Disable();
    PyObject *out = PyList_New((Py_ssize_t)n);
    for (int64_t i = 0; out && i < n; i++) {
        PyObject *row = PyList_New((Py_ssize_t)(splits[i + 1] - splits[i]));
        if (!row) {
            Py_CLEAR(out);
            break;
        }
        PyList_SET_ITEM(out, (Py_ssize_t)i, row);
        for (int64_t k = splits[i]; k < splits[i + 1]; k++) {
            PyObject *x;
            if (width == 1) {
                x = id_int(col[k]);
            } else {
                PyObject *a = id_int(col[2 * k]), *b = a ? id_int(col[2 * k + 1]) : NULL;
                x = b ? PyTuple_Pack(2, a, b) : NULL;
                Py_XDECREF(a);
                Py_XDECREF(b);
                if (x)
                    PyObject_GC_UnTrack(x); /* two ints: what the collector does itself */
            }
            if (!x) {
                Py_CLEAR(out);
                break;
            }
            PyList_SET_ITEM(row, (Py_ssize_t)(k - splits[i]), x);
        }
        wp_untrack_row(row);
    }
    if (was_enabled)
        PyGC_Enable();
    return out;
}

/* Each wanted column's rows as lists (None: not wanted), in the order of the columns. */
static PyObject *columns_lists(const wp_columns *c, const int64_t *splits, int64_t n)
{
    const int64_t *cols[5] = {c->ids, c->type_ids, c->special, c->attention, c->offsets};
    PyObject *out = PyTuple_New(5);
    for (int k = 0; out && k < 5; k++) {
        PyObject *lists = cols[k] ? column_lists(cols[k], k == 4 ? 2 : 1, splits, n)
                                  : Py_NewRef(Py_None);
        if (!lists)
            Py_CLEAR(out);
        else
            PyTuple_SET_ITEM(out, k, lists);
    }
    return out;
}

/* An int64 column of n values (none when not `want`): a bytearray (alloc None), or
 * alloc(nbytes), or with windows (rows >= 0) alloc(nbytes, rows). */
static PyObject *column_bytes(int64_t n, int want, int64_t **data, PyObject *alloc,
                              int64_t rows)
{
    *data = NULL;
    if (!want)
        Py_RETURN_NONE;
    size_t nbytes = (size_t)n * sizeof(int64_t);
    if (alloc == Py_None) {
        PyObject *b = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)nbytes);
        if (b)
            *data = wp_advise_huge(PyByteArray_AS_STRING(b), nbytes);
        return b;
    }
    PyObject *col = rows < 0 ? PyObject_CallFunction(alloc, "n", (Py_ssize_t)nbytes)
                             : PyObject_CallFunction(alloc, "nn", (Py_ssize_t)nbytes,
                                                     (Py_ssize_t)rows);
    Py_buffer view;
    if (!col || PyObject_GetBuffer(col, &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) {
        Py_XDECREF(col);
        return NULL;
    }
    /* the object keeps its memory where it is (numpy arrays do): the view can go */
    int small = (size_t)view.len < nbytes;
    *data = view.buf;
    PyBuffer_Release(&view);
    if (small) {
        PyErr_Format(PyExc_ValueError, "alloc(%zu) gave %zd bytes", nbytes, view.len);
        Py_DECREF(col);
        return NULL;
    }
    return col;
}

/* One thread's share of the rows to write. */
typedef struct {
    const wp_sequences *s;
    const wp_plan *single, *pair;
    const wp_truncation *t;
    const wp_padding *p;
    const wp_layout *l;
    wp_columns *c;
    int64_t from, to;
} write_task;

static void write_rows(void *arg)
{
    const write_task *w = arg;
    wp_finish_write(w->s, w->single, w->pair, w->t, w->p, w->l, w->c, w->from, w->to);
}

/* Write every row, on up to `threads` (at most WP_WRITE_THREADS) threads each taking
 * rows of about as many tokens (the fresh columns' page faults, most of this time on
 * padded batches, included). */
static void write_all(const wp_sequences *s, const wp_plan *single, const wp_plan *pair,
                      const wp_truncation *t, const wp_padding *p, const wp_layout *l,
                      wp_columns *c, int threads)
{
    write_task tasks[WP_WRITE_THREADS];
    int64_t total = l->row_splits[l->n_rows];
    int n = threads < 1 ? 1 : threads > WP_WRITE_THREADS ? WP_WRITE_THREADS : threads;
    if (n > l->n_rows || total < WP_MIN_TOKENS_PER_THREAD * n)
        n = 1;
    int64_t i = 0;
    for (int k = 0; k < n; k++) {
        tasks[k] = (write_task){s, single, pair, t, p, l, c, i, i};
        int64_t goal = total * (k + 1) / n;
        while (i < l->n_rows && (l->row_splits[i] < goal || k == n - 1))
            i++;
        tasks[k].to = i;
    }
    if (total >= WP_RELEASE_GIL_CHARS) {
        Py_BEGIN_ALLOW_THREADS
        wp_run_parallel(write_rows, tasks, sizeof(write_task), n);
        Py_END_ALLOW_THREADS
    } else {
        write_rows(tasks);
    }
}

/* With windows, the mapping (each row's input, int64) joins the output tuple last. */
static PyObject *with_mapping(PyObject *out, const wp_layout *l)
{
    if (!out || !l->input)
        return out;
    PyObject *mapping = PyByteArray_FromStringAndSize((const char *)l->input,
                                                      (Py_ssize_t)(l->n_rows * 8));
    PyObject *last = mapping ? PyTuple_Pack(1, mapping) : NULL;
    PyObject *joined = last ? PySequence_Concat(out, last) : NULL;
    Py_XDECREF(mapping);
    Py_XDECREF(last);
    Py_DECREF(out);
    return joined;
}

static PyObject *finish_columns(const wp_sequences *s, const wp_plan *single,
                                const wp_plan *pair, const wp_truncation *t,
                                const wp_padding *p, const wp_layout *l, int want, int threads,
                                PyObject *alloc)
{
    int64_t total = l->row_splits[l->n_rows], rows = l->input ? l->n_rows : -1;
    wp_columns c;
    PyObject *ids = column_bytes(total, 1, &c.ids, alloc, rows);
    PyObject *types = ids ? column_bytes(total, want & WANT_TYPES, &c.type_ids, alloc, rows)
                          : NULL;
    PyObject *special = types ? column_bytes(total, want & WANT_SPECIAL, &c.special, alloc,
                                             rows) : NULL;
    PyObject *attention = special ? column_bytes(total, want & WANT_ATTENTION, &c.attention,
                                                 alloc, rows) : NULL;
    PyObject *offsets = attention ? column_bytes(2 * total, want & WANT_OFFSETS, &c.offsets,
                                                 alloc, rows) : NULL;
    /* word and sequence ids stay columns (read row by row later): memory of their own */
    PyObject *words = offsets ? column_bytes(total, want & WANT_WORDS, &c.words, Py_None, -1)
                              : NULL;
    PyObject *sequences = words ? column_bytes(total, want & WANT_SEQUENCES, &c.sequences,
                                               Py_None, -1) : NULL;
    PyObject *splits = sequences ? PyByteArray_FromStringAndSize(
        (const char *)l->row_splits, (Py_ssize_t)((l->n_rows + 1) * 8)) : NULL;
    if (!ids || !types || !special || !attention || !offsets || !words || !sequences
        || !splits) {
        Py_XDECREF(ids); Py_XDECREF(types); Py_XDECREF(special);
        Py_XDECREF(attention); Py_XDECREF(offsets); Py_XDECREF(words);
        Py_XDECREF(sequences); Py_XDECREF(splits);
        return NULL;
    }
    write_all(s, single, pair, t, p, l, &c, threads);
    if (want == WANT_LISTS) { /* ids alone: their lists */
        PyObject *lists = column_lists(c.ids, 1, l->row_splits, l->n_rows);
        Py_DECREF(ids); Py_DECREF(types); Py_DECREF(special); Py_DECREF(attention);
        Py_DECREF(offsets); Py_DECREF(words); Py_DECREF(sequences); Py_DECREF(splits);
        return lists;
    }
    if (want & WANT_LISTS) { /* each wanted column's lists, then the id columns */
        PyObject *lists = columns_lists(&c, l->row_splits, l->n_rows);
        Py_DECREF(ids); Py_DECREF(types); Py_DECREF(special);
        Py_DECREF(attention); Py_DECREF(offsets);
        if (!lists) {
            Py_DECREF(words); Py_DECREF(sequences); Py_DECREF(splits);
            return NULL;
        }
        return with_mapping(Py_BuildValue("(NNNN)", lists, words, sequences, splits), l);
    }
    return with_mapping(Py_BuildValue("(NNNNNNNN)", ids, types, special, attention, offsets,
                                      words, sequences, splits), l);
}

/* The layout of sequences s, then their columns (or lists), or a refused input's index;
 * alloc makes the int64 columns (zeros), or None: bytearrays. */
static PyObject *wp_layout_and_finish(const wp_sequences *s, const plan_store *single,
                                      const plan_store *pair, const wp_truncation *t,
                                      const wp_padding *p, int want, int threads,
                                      PyObject *alloc)
{
    int windows = (want & WANT_WINDOWS) != 0;
    int64_t n_rows = s->n_inputs;
    if (windows) {
        int64_t refused = wp_finish_windows(s, &single->plan, &pair->plan, t, p,
                                            WP_MAX_PADDED_BATCH, &n_rows);
        if (refused >= 0)
            return PyLong_FromLongLong(refused);
    }
    size_t size = ((size_t)n_rows + 1) * 8;
    wp_layout l = {PyMem_Malloc(size), PyMem_Malloc(size), PyMem_Malloc(size), 0, n_rows,
                   NULL, NULL, NULL};
    if (windows) {
        l.input = PyMem_Malloc(size);
        l.start1 = PyMem_Malloc(size);
        l.start2 = PyMem_Malloc(size);
    }
    PyObject *out = NULL;
    if (!l.keep1 || !l.keep2 || !l.row_splits
        || (windows && (!l.input || !l.start1 || !l.start2))) {
        PyErr_NoMemory();
    } else {
        int64_t refused = wp_finish_layout(s, &single->plan, &pair->plan, t, p, &l);
        out = refused >= 0 ? PyLong_FromLongLong(refused)
                           : finish_columns(s, &single->plan, &pair->plan, t, p, &l, want,
                                            threads, alloc);
    }
    PyMem_Free(l.keep1);
    PyMem_Free(l.keep2);
    PyMem_Free(l.row_splits);
    PyMem_Free(l.input);
    PyMem_Free(l.start1);
    PyMem_Free(l.start2);
    return out;
}

/* finish(ids, offsets, row_splits, pair_rows, n_inputs, single, pair, truncation, padding,
 *        want) -> with want & 16: the id lists (want == 16), else a tuple of each
 *        column's lists (ids, type_ids, special_tokens_mask, attention_mask, offsets as
 *        (start, end) tuples; None: not wanted); without: (ids, type_ids,
 *        special_tokens_mask, attention_mask, offsets, row_splits) int64 bytearrays
 *        (None: not wanted); or the index of the first input truncation refuses (an int).
 *        With want & 128 (windows): one row per truncation window, and the tuple ends
 *        with each row's input (int64 bytearray). */
typedef struct {
    plan_store single, pair;
    wp_truncation t;
    wp_padding p;
    int want;
    const int64_t *pair_rows; /* NULL: no pairs */
    Py_ssize_t n_inputs;
    PyObject *alloc; /* makes the columns, or None: bytearrays */
    /* NULL: each text is a sequence; else sequence j is texts [groups[j], groups[j + 1])
     * joined (pre-split words), and pair_rows index sequences */
    const int64_t *groups;
    Py_ssize_t n_seqs;
} finish_opts;

/* Input i's finished ids as a list: the plan's pieces, its rows cut as kept. */
static PyObject *finished_list(const batch *b, const finish_opts *o, const wp_plan *plan,
                               Py_ssize_t rows[2], int64_t keep[2])
{
    PyObject *list = PyList_New(keep[0] + (keep[1] < 0 ? 0 : keep[1]) + plan->n_special);
    Py_ssize_t at = 0;
    for (int k = 0; list && k < plan->n_pieces; k++) {
        const wp_piece *piece = &plan->pieces[k];
        const int64_t *special = piece->ids;
        const int32_t *ids = NULL, *unused_w;
        const int64_t *unused_o;
        int64_t n = piece->n_ids, len;
        if (piece->seq >= 0) {
            wp_batch_row(b, rows[piece->seq], &ids, &unused_o, &unused_w, &len);
            n = keep[piece->seq];
            ids += o->t.on && o->t.left ? len - n : 0;
        }
        for (int64_t j = 0; j < n; j++) {
            PyObject *x = id_int(ids ? ids[j] : special[j]);
            if (!x) {
                Py_CLEAR(list);
                break;
            }
            PyList_SET_ITEM(list, at++, x);
        }
    }
    wp_untrack_row(list);
    return list;
}

typedef struct {
    EncoderObject *self;
    const finish_opts *o;
    PyObject *lists;
    Py_ssize_t refused; /* the first input truncation refuses, or -1 */
} lists_ctx;

/* Finish the inputs of chunk k into lists (its rows and their pairs' are encoded). */
static int finish_chunk(void *arg, batch *b, int k)
{
    lists_ctx *ctx = arg;
    const finish_opts *o = ctx->o;
    int rc = 0;
    b->gc_paused = PyGC_Disable();
    for (Py_ssize_t i = b->chunks[k].a0; rc == 0 && i < b->chunks[k].a1; i++) {
        Py_ssize_t rows[2] = {i, o->pair_rows ? (Py_ssize_t)o->pair_rows[i] : -1};
        for (int s = 0; rc == 0 && s < 2; s++)
            if (rows[s] >= 0 && b->status[rows[s]] != WP_OK)
                rc = wp_batch_materialize(ctx->self, b, rows[s]);
        if (rc < 0)
            break;
        const wp_plan *plan = rows[1] < 0 ? &o->single.plan : &o->pair.plan;
        int64_t keep[2];
        if (wp_finish_keep(&o->t, plan, b->row_len[i], rows[1] < 0 ? -1 : b->row_len[rows[1]],
                           &keep[0], &keep[1]) < 0) {
            ctx->refused = i;
            rc = -1;
            break;
        }
        PyObject *list = finished_list(b, o, plan, rows, keep);
        if (!list)
            rc = -1;
        else
            PyList_SET_ITEM(ctx->lists, i, list);
    }
    if (b->gc_paused)
        PyGC_Enable();
    b->gc_paused = 0;
    return rc;
}

/* Unpadded id lists, each chunk's inputs finished while later chunks are encoded. */
static PyObject *encode_lists(EncoderObject *self, batch *b, const finish_opts *o, int threads)
{
    lists_ctx ctx = {self, o, PyList_New(o->n_inputs), -1};
    if (!ctx.lists || wp_batch_split(b, o->n_inputs, o->pair_rows, threads) < 0)
        goto fail;
    if (wp_batch_run(self, b, threads, finish_chunk, &ctx) < 0) {
        if (ctx.refused >= 0 && !PyErr_Occurred()) {
            Py_DECREF(ctx.lists);
            return PyLong_FromSsize_t(ctx.refused);
        }
        goto fail;
    }
    return ctx.lists;
fail:
    Py_XDECREF(ctx.lists);
    return NULL;
}

/* Columns (or padded lists): encode every chunk, copy the rows into one flat column on
 * every thread, then lay out and write the finished rows on every thread. */
static PyObject *encode_columns(EncoderObject *self, batch *b, const finish_opts *o,
                                int threads)
{
    if (wp_batch_split(b, o->groups ? b->n : o->n_inputs, o->groups ? NULL : o->pair_rows,
                       threads) < 0
        || wp_batch_run(self, b, threads, NULL, NULL) < 0)
        return NULL;
    for (Py_ssize_t r = 0; r < b->n; r++)
        if (b->status[r] != WP_OK && wp_batch_materialize(self, b, r) < 0)
            return NULL;
    wp_flat f = {NULL, NULL, NULL, PyMem_Malloc(((size_t)b->n + 1) * sizeof(int64_t))};
    PyObject *out = NULL;
    if (f.splits) {
        f.splits[0] = 0;
        for (Py_ssize_t r = 0; r < b->n; r++)
            f.splits[r + 1] = f.splits[r] + b->row_len[r];
        size_t total = (size_t)f.splits[b->n] + 1;
        f.ids = wp_advise_huge(PyMem_Malloc(total * sizeof(int32_t)), total * sizeof(int32_t));
        f.offsets = b->want_offsets ? wp_advise_huge(PyMem_Malloc(2 * total * sizeof(int64_t)),
                                                     2 * total * sizeof(int64_t))
                                    : NULL;
        if (o->want & WANT_WORDS)
            f.word_ids = PyMem_Malloc(total * sizeof(int32_t));
    }
    if (!f.splits || !f.ids || (b->want_offsets && !f.offsets)
        || ((o->want & WANT_WORDS) && !f.word_ids)) {
        PyErr_NoMemory();
    } else {
        wp_batch_flatten(b, threads, &f);
        /* a sequence's words are consecutive rows: their tokens too */
        int64_t *seq_splits = o->groups ? PyMem_Malloc(((size_t)o->n_seqs + 1) * 8) : f.splits;
        for (Py_ssize_t j = 0; o->groups && seq_splits && j <= o->n_seqs; j++)
            seq_splits[j] = f.splits[o->groups[j]];
        /* pre-split words: a token's word is its text's place in the sequence */
        for (Py_ssize_t j = 0; o->groups && f.word_ids && j < o->n_seqs; j++)
            for (int64_t r = o->groups[j]; r < o->groups[j + 1]; r++)
                for (int64_t k = f.splits[r]; k < f.splits[r + 1]; k++)
                    f.word_ids[k] = (int32_t)(r - o->groups[j]);
        wp_sequences s = {f.ids, f.offsets, seq_splits, o->pair_rows, o->n_inputs,
                          f.word_ids};
        out = seq_splits ? wp_layout_and_finish(&s, &o->single, &o->pair, &o->t, &o->p,
                                                o->want, threads, o->alloc)
                         : PyErr_NoMemory();
        if (o->groups)
            PyMem_Free(seq_splits);
    }
    PyMem_Free(f.splits);
    PyMem_Free(f.ids);
    PyMem_Free(f.offsets);
    PyMem_Free(f.word_ids);
    return out;
}

/* A private copy of pair_rows (int64 per input, -1 or a row of the texts), or NULL. */
static int64_t *read_pair_rows(PyObject *obj, Py_ssize_t n_inputs, Py_ssize_t n_rows, int *err)
{
    *err = 0;
    if (obj == Py_None)
        return NULL;
    Py_buffer view;
    int64_t *rows = NULL;
    *err = 1;
    if (wp_column_view(obj, &view, 8, n_inputs, "pair_rows") < 0)
        return NULL;
    if (view.len / 8 != n_inputs)
        PyErr_Format(PyExc_ValueError, "pair_rows holds %zd items, not %zd", view.len / 8,
                     n_inputs);
    else if (!(rows = PyMem_Malloc((size_t)(n_inputs ? n_inputs : 1) * 8)))
        PyErr_NoMemory();
    for (Py_ssize_t i = 0; rows && i < n_inputs; i++) {
        rows[i] = ((const int64_t *)view.buf)[i];
        if (rows[i] < -1 || rows[i] >= n_rows) {
            PyErr_Format(PyExc_ValueError, "pair_rows[%zd] = %lld is not a row", i,
                         (long long)rows[i]);
            PyMem_Free(rows);
            rows = NULL;
        }
    }
    PyBuffer_Release(&view);
    *err = rows == NULL;
    return rows;
}

/* A private copy of groups (n_seqs + 1 int64 text boundaries, 0 to n_texts, in order),
 * or NULL (None, or an error: *err). */
static int64_t *read_groups(PyObject *obj, Py_ssize_t n_texts, Py_ssize_t *n_seqs, int *err)
{
    *err = 0;
    *n_seqs = n_texts;
    if (obj == Py_None)
        return NULL;
    Py_buffer view;
    *err = 1;
    if (wp_column_view(obj, &view, 8, -1, "groups") < 0)
        return NULL;
    Py_ssize_t n = view.len / 8;
    const int64_t *g = view.buf;
    int64_t *groups = NULL;
    if (n < 1 || g[0] != 0 || g[n - 1] != n_texts)
        PyErr_Format(PyExc_ValueError, "groups must run from 0 to the %zd texts", n_texts);
    else if (!(groups = PyMem_Malloc((size_t)n * 8)))
        PyErr_NoMemory();
    for (Py_ssize_t j = 0; groups && j < n; j++) {
        groups[j] = g[j];
        if (j > 0 && groups[j] < groups[j - 1]) {
            PyErr_Format(PyExc_ValueError, "groups[%zd] = %lld is below groups[%zd]", j,
                         (long long)groups[j], j - 1);
            PyMem_Free(groups);
            groups = NULL;
        }
    }
    PyBuffer_Release(&view);
    *err = groups == NULL;
    *n_seqs = n - 1;
    return groups;
}

/* The plans read last (single, pair), kept with a reference to their tuples: the
 * callers pass the same plan objects call after call (encode/plans.py remembers them),
 * and reading a plan costs more than encoding a short text. Read under the GIL. */
static PyObject *last_plan_obj[2];
static plan_store last_plan[2];

static int read_plan_cached(PyObject *obj, int k, plan_store *st)
{
    if (obj != last_plan_obj[k]) {
        Py_CLEAR(last_plan_obj[k]);
        if (wp_read_plan(obj, &last_plan[k]) < 0)
            return -1;
        last_plan_obj[k] = Py_NewRef(obj);
    }
    *st = last_plan[k]; /* then its pointers into itself, moved to the copy */
    st->plan.pieces = st->pieces;
    for (int i = 0; i < st->plan.n_pieces; i++)
        st->pieces[i].ids = st->ids + (last_plan[k].pieces[i].ids - last_plan[k].ids);
    return 0;
}

static int read_opts(PyObject *const objs[4], int want, finish_opts *o)
{
    o->want = want;
    return read_plan_cached(objs[0], 0, &o->single) < 0
           || read_plan_cached(objs[1], 1, &o->pair) < 0
           || wp_read_truncation(objs[2], &o->t) < 0 || wp_read_padding(objs[3], &o->p) < 0 ? -1 : 0;
}

/* Encoder.encode_finish(texts, pair_rows, n_inputs, single, pair, truncation, padding,
 * want, threads[, alloc[, groups]]): the encoding of texts finished, without the
 * columns between; with groups, each sequence is a run of texts (see finish_opts). */
PyObject *wp_encode_finish(EncoderObject *self, PyObject *args)
{
    PyObject *texts, *rows_obj, *objs[4], *groups_obj = Py_None;
    Py_ssize_t n_inputs;
    int want, threads, err;
    finish_opts o;
    o.alloc = Py_None;
    if (!PyArg_ParseTuple(args, "OOnOOOOii|OO:encode_finish", &texts, &rows_obj, &n_inputs,
                          &objs[0], &objs[1], &objs[2], &objs[3], &want, &threads, &o.alloc,
                          &groups_obj)
        || read_opts(objs, want, &o) < 0)
        return NULL;
    if (o.alloc != Py_None && !PyCallable_Check(o.alloc))
        return PyErr_Format(PyExc_TypeError, "alloc must be callable or None");
    if (threads < 1 || threads > 1024)
        return PyErr_Format(PyExc_ValueError, "threads must be 1 to 1024, not %d", threads);
    PyObject *seq = PySequence_Fast(texts, "texts must be a sequence"); /* see encode_batch */
    if (!seq)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    o.groups = read_groups(groups_obj, n, &o.n_seqs, &err);
    if (err) {
        Py_DECREF(seq);
        return NULL;
    }
    if (n_inputs < 0 || n_inputs > o.n_seqs) {
        Py_DECREF(seq);
        PyMem_Free((void *)o.groups);
        return PyErr_Format(PyExc_ValueError, "n_inputs %zd: not 0 to %zd", n_inputs,
                            o.n_seqs);
    }
    o.n_inputs = n_inputs;
    o.pair_rows = NULL;
    batch b;
    memset(&b, 0, sizeof(b));
    b.want_offsets = (want & (WANT_OFFSETS | WANT_WORDS)) != 0; /* words come with offsets */
    PyObject *out = NULL;
    if (wp_batch_collect(self, &b, PySequence_Fast_ITEMS(seq), n, 0) == 0) {
        o.pair_rows = read_pair_rows(rows_obj, n_inputs, o.n_seqs, &err); /* may run Python */
        if (err)
            out = NULL;
        else if (want == WANT_LISTS && !o.p.on && !o.groups) /* ids alone, unpadded */
            out = encode_lists(self, &b, &o, threads);
        else
            out = encode_columns(self, &b, &o, threads);
    }
    wp_batch_free(&b);
    PyMem_Free((void *)o.pair_rows);
    PyMem_Free((void *)o.groups);
    Py_DECREF(seq);
    return out;
}

