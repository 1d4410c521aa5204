/* Python glue of core/wp_finish.c: _core.unzip(items) and _core.finish(...).
 *
 * Both do a batch's per-item work in C so that the Python layer does a constant amount
 * of work per batch. Neither raises the library's own input errors: unzip answers None
 * for an item it does not take and finish answers the index of an input truncation
 * refuses, and the caller lets the Python reference raise its error for it.
 */
#include "wp_module.h"
#include "wp_finish.h"

#include <string.h>

/* Below this many tokens per thread, writing the columns on more threads does not pay. */
#define WP_MIN_TOKENS_PER_THREAD 16384

/* ------------------------------------------------------------ unzip */

static int is_pair_item(PyObject *item)
{
    if ((!PyTuple_Check(item) && !PyList_Check(item)) || PySequence_Fast_GET_SIZE(item) != 2)
        return 0;
    PyObject *a = PySequence_Fast_GET_ITEM(item, 0), *b = PySequence_Fast_GET_ITEM(item, 1);
    return PyUnicode_Check(a) && (b == Py_None || PyUnicode_Check(b));
}

/* unzip(items) -> (texts, pair_rows int64 bytearray or None), or None.
 * texts: every first text, then every pair text; pair_rows[i]: the row of item i's pair
 * in texts, or -1. None: an item is neither a str nor a (str, str | None) pair. */
PyObject *wp_unzip(PyObject *module, PyObject *items)
{
    (void)module;
    PyObject *seq = PySequence_Fast(items, "items must be a sequence");
    if (!seq)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq), pairs = 0;
    PyObject **item = PySequence_Fast_ITEMS(seq);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (PyUnicode_Check(item[i]))
            continue;
        if (!is_pair_item(item[i])) {
            Py_DECREF(seq);
            Py_RETURN_NONE;
        }
        pairs += PySequence_Fast_GET_ITEM(item[i], 1) != Py_None;
    }
    PyObject *texts = PyList_New(n + pairs);
    PyObject *rows = pairs ? PyByteArray_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(int64_t)) : NULL;
    if (!texts || (pairs && !rows)) {
        Py_XDECREF(texts);
        Py_XDECREF(rows);
        Py_DECREF(seq);
        return NULL;
    }
    int64_t *row = rows ? (int64_t *)PyByteArray_AS_STRING(rows) : NULL;
    Py_ssize_t next = n;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *first = item[i], *second = NULL;
        if (!PyUnicode_Check(first)) {
            second = PySequence_Fast_GET_ITEM(first, 1);
            first = PySequence_Fast_GET_ITEM(first, 0);
            second = second == Py_None ? NULL : second;
        }
        Py_INCREF(first);
        PyList_SET_ITEM(texts, i, first);
        if (row)
            row[i] = second ? next : -1;
        if (second) {
            Py_INCREF(second);
            PyList_SET_ITEM(texts, next++, second);
        }
    }
    Py_DECREF(seq);
    if (!rows)
        return Py_BuildValue("(NO)", texts, Py_None);
    return Py_BuildValue("(NN)", texts, rows);
}

/* ------------------------------------------------------------ texts_with_chars */

#define WP_MAX_FIND_CHARS 16
/* Below this many code points per thread, one thread scans the texts alone. */
#define WP_MIN_FIND_CHARS_PER_THREAD 262144

/* Whether data[0:len] holds the code point c: blocks compared without an exit per
 * item (the compiler vectorizes them), for each storage width. */
#define WP_FIND_IN(type)                                                            \
    static int find_##type(const type *data, Py_ssize_t len, Py_UCS4 c)             \
    {                                                                               \
        Py_ssize_t i = 0;                                                           \
        for (; i + 64 <= len; i += 64) {                                            \
            int hit = 0;                                                            \
            for (int k = 0; k < 64; k++)                                            \
                hit |= data[i + k] == c;                                            \
            if (hit)                                                                \
                return 1;                                                           \
        }                                                                           \
        for (; i < len; i++)                                                        \
            if (data[i] == c)                                                       \
                return 1;                                                           \
        return 0;                                                                   \
    }
WP_FIND_IN(Py_UCS2)
WP_FIND_IN(Py_UCS4)

/* Whether text holds one of the n code points `chars`. */
static int holds_any(PyObject *text, const Py_UCS4 *chars, int n)
{
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t len = PyUnicode_GET_LENGTH(text);
    for (int k = 0; k < n; k++) {
        Py_UCS4 c = chars[k];
        if (kind == PyUnicode_1BYTE_KIND ? c < 256 && memchr(data, (int)c, (size_t)len)
            : kind == PyUnicode_2BYTE_KIND ? c < 65536 && find_Py_UCS2(data, len, c)
            : find_Py_UCS4(data, len, c))
            return 1;
    }
    return 0;
}

typedef struct {
    PyObject *const *texts;
    const Py_UCS4 *chars;
    int n_chars;
    Py_ssize_t from, to;
    char *hits;
} find_task;

/* Runs on a native thread while the caller holds the GIL: no Python thread can change
 * or free the texts meanwhile, and only their (immutable) storage is read. */
static void find_rows(void *arg)
{
    const find_task *f = arg;
    for (Py_ssize_t i = f->from; i < f->to; i++)
        f->hits[i] = (char)holds_any(f->texts[i], f->chars, f->n_chars);
}

/* Mark in hits the texts holding one of chars, on up to `threads` threads. */
static void find_all(PyObject *const *texts, Py_ssize_t n, const Py_UCS4 *chars, int n_chars,
                     char *hits, int threads)
{
    int64_t total = 0;
    for (Py_ssize_t i = 0; i < n; i++)
        total += PyUnicode_GET_LENGTH(texts[i]);
    int k_max = threads < 1 ? 1 : threads > 64 ? 64 : threads;
    while (k_max > 1 && total < (int64_t)WP_MIN_FIND_CHARS_PER_THREAD * k_max)
        k_max--;
    find_task tasks[64];
    Py_ssize_t i = 0;
    int64_t seen = 0;
    for (int k = 0; k < k_max; k++) {
        tasks[k] = (find_task){texts, chars, n_chars, i, i, hits};
        int64_t goal = total * (k + 1) / k_max;
        while (i < n && (seen < goal || k == k_max - 1))
            seen += PyUnicode_GET_LENGTH(texts[i++]);
        tasks[k].to = i;
    }
    wp_run_parallel(find_rows, tasks, sizeof(find_task), k_max);
}

/* Check that every text is a ready str (naming the first that is not). */
static int check_texts(PyObject *const *texts, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!PyUnicode_Check(texts[i])) {
            PyErr_Format(PyExc_TypeError, "texts[%zd] must be str, not %.100s", i,
                         Py_TYPE(texts[i])->tp_name);
            return -1;
        }
#if PY_VERSION_HEX < 0x030C0000
        if (PyUnicode_READY(texts[i]) < 0)
            return -1;
#endif
    }
    return 0;
}

/* texts_with_chars(texts, chars, threads=1) -> indices of the texts holding one of the
 * characters of the str `chars` (at most 16), or None when chars holds more. */
PyObject *wp_texts_with_chars(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *texts, *chars_obj;
    int threads = 1;
    if (!PyArg_ParseTuple(args, "OU|i:texts_with_chars", &texts, &chars_obj, &threads))
        return NULL;
    Py_ssize_t n_chars = PyUnicode_GET_LENGTH(chars_obj);
    if (n_chars > WP_MAX_FIND_CHARS)
        Py_RETURN_NONE;
    Py_UCS4 chars[WP_MAX_FIND_CHARS];
    for (Py_ssize_t k = 0; k < n_chars; k++)
        chars[k] = PyUnicode_READ_CHAR(chars_obj, k);
    PyObject *seq = PySequence_Fast(texts, "texts must be a sequence");
    if (!seq)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject *const *items = PySequence_Fast_ITEMS(seq);
    char *hits = NULL;
    if (check_texts(items, n) == 0 && !(hits = PyMem_Calloc((size_t)(n ? n : 1), 1)))
        PyErr_NoMemory();
    PyObject *found = hits ? PyList_New(0) : NULL;
    if (found)
        find_all(items, n, chars, (int)n_chars, hits, threads);
    for (Py_ssize_t i = 0; found && i < n; i++) {
        if (!hits[i])
            continue;
        PyObject *index = PyLong_FromSsize_t(i);
        if (!index || PyList_Append(found, index) < 0)
            Py_CLEAR(found);
        Py_XDECREF(index);
    }
    PyMem_Free(hits);
    Py_DECREF(seq);
    return found;
}

/* ------------------------------------------------------------ finish */

typedef struct {
    wp_piece pieces[16];
    int64_t ids[64];
    wp_plan plan;
} plan_store;

/* A plan is a tuple of (seq, type_id, ids tuple) pieces. */
static int read_plan(PyObject *obj, plan_store *st)
{
    if (!PyTuple_Check(obj) || PyTuple_GET_SIZE(obj) > 16) {
        PyErr_SetString(PyExc_ValueError, "a plan is a tuple of at most 16 pieces");
        return -1;
    }
    int used = 0;
    st->plan.pieces = st->pieces;
    st->plan.n_pieces = (int)PyTuple_GET_SIZE(obj);
    st->plan.n_special = 0;
    for (int k = 0; k < st->plan.n_pieces; k++) {
        PyObject *ids;
        wp_piece *p = &st->pieces[k];
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(obj, k), "iLO!", &p->seq, &p->type_id,
                              &PyTuple_Type, &ids))
            return -1;
        p->n_ids = PyTuple_GET_SIZE(ids);
        if (used + p->n_ids > 64) {
            PyErr_SetString(PyExc_ValueError, "a plan holds at most 64 special ids");
            return -1;
        }
        for (Py_ssize_t j = 0; j < p->n_ids; j++) {
            st->ids[used + j] = PyLong_AsLongLong(PyTuple_GET_ITEM(ids, j));
            if (st->ids[used + j] == -1 && PyErr_Occurred())
                return -1;
        }
        p->ids = st->ids + used;
        used += (int)p->n_ids;
        st->plan.n_special += p->seq < 0 ? p->n_ids : 0;
    }
    return 0;
}

static int read_truncation(PyObject *obj, wp_truncation *t)
{
    t->on = obj != Py_None;
    return !t->on || PyArg_ParseTuple(obj, "LLii", &t->max_length, &t->stride, &t->strategy,
                                      &t->left) ? 0 : -1;
}

static int read_padding(PyObject *obj, wp_padding *p)
{
    p->on = obj != Py_None;
    return !p->on || PyArg_ParseTuple(obj, "LLLLi", &p->length, &p->multiple, &p->pad_id,
                                      &p->pad_type_id, &p->left) ? 0 : -1;
}

/* A read-only view of a bytes-like column, checked to hold `count` items of `width`. */
static int column(PyObject *obj, Py_buffer *view, Py_ssize_t width, Py_ssize_t count,
                  const char *name)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_SIMPLE) < 0)
        return -1;
    if (view->len % width || (count >= 0 && view->len / width < count)) {
        PyErr_Format(PyExc_ValueError, "column %s: %zd bytes, not %zd items of %zd bytes",
                     name, view->len, count, width);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/* Ids are small ints repeated endlessly: one shared int per id below WP_ID_CACHE, made
 * on first use and kept, spares an allocation (and a free) per token of every list. */
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

/* The rows as lists of ints. The collector is paused meanwhile: every new list is a
 * tracked container, and left running it would rescan them again and again. */
static PyObject *ids_lists(const int64_t *ids, const int64_t *splits, int64_t n)
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
            PyObject *x = id_int(ids[k]);
            if (!x) {
                Py_CLEAR(out);
                break;
            }
            PyList_SET_ITEM(row, (Py_ssize_t)(k - splits[i]), x);
        }
    }
    if (was_enabled)
        PyGC_Enable();
    return out;
}

enum { WANT_TYPES = 1, WANT_SPECIAL = 2, WANT_ATTENTION = 4, WANT_OFFSETS = 8, WANT_LISTS = 16 };

typedef struct {
    Py_buffer ids, offsets, splits, rows;
    int have_offsets, have_rows;
} views;

static void release(views *v)
{
    PyBuffer_Release(&v->ids);
    PyBuffer_Release(&v->splits);
    if (v->have_offsets)
        PyBuffer_Release(&v->offsets);
    if (v->have_rows)
        PyBuffer_Release(&v->rows);
}

static int read_views(PyObject *ids, PyObject *offsets, PyObject *splits, PyObject *rows,
                      Py_ssize_t n_inputs, views *v, wp_sequences *s)
{
    memset(v, 0, sizeof *v);
    if (column(splits, &v->splits, 8, n_inputs + 1, "row_splits") < 0)
        return -1;
    if (column(ids, &v->ids, 4, -1, "ids") < 0) {
        PyBuffer_Release(&v->splits);
        return -1;
    }
    Py_ssize_t n_rows = v->splits.len / 8 - 1, n_tokens = v->ids.len / 4;
    const int64_t *sp = v->splits.buf;
    int ok = sp[0] == 0 && sp[n_rows] <= n_tokens;
    for (Py_ssize_t r = 0; ok && r < n_rows; r++)
        ok = sp[r] <= sp[r + 1];
    v->have_offsets = offsets != Py_None && ok
                      && column(offsets, &v->offsets, 16, n_tokens, "offsets") == 0;
    v->have_rows = rows != Py_None && ok && (offsets == Py_None || v->have_offsets)
                   && column(rows, &v->rows, 8, n_inputs, "pair_rows") == 0;
    if (!ok || (offsets != Py_None && !v->have_offsets) || (rows != Py_None && !v->have_rows)) {
        if (!ok)
            PyErr_SetString(PyExc_ValueError, "row_splits do not split the ids column");
        release(v);
        return -1;
    }
    const int64_t *pr = v->have_rows ? v->rows.buf : NULL;
    for (Py_ssize_t i = 0; pr && i < n_inputs; i++) {
        if (pr[i] < -1 || pr[i] >= n_rows) {
            PyErr_Format(PyExc_ValueError, "pair_rows[%zd] = %lld is not a row", i,
                         (long long)pr[i]);
            release(v);
            return -1;
        }
    }
    *s = (wp_sequences){v->ids.buf, v->have_offsets ? v->offsets.buf : NULL, sp, pr, n_inputs};
    return 0;
}

/* A new column of n int64: a bytearray, or alloc(nbytes) (a writable buffer of zeros:
 * numpy.zeros gets fresh pages the kernel zeroes, and padding then costs no writes). */
static PyObject *column_bytes(int64_t n, int want, int64_t **data, PyObject *alloc)
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
    PyObject *col = PyObject_CallFunction(alloc, "n", (Py_ssize_t)nbytes);
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

/* Write every row, on `threads` threads each taking inputs of about as many tokens
 * (the fresh columns' page faults, most of this time on padded batches, included). */
static void write_all(const wp_sequences *s, const wp_plan *single, const wp_plan *pair,
                      const wp_truncation *t, const wp_padding *p, const wp_layout *l,
                      wp_columns *c, int threads)
{
    write_task tasks[64];
    int64_t total = l->row_splits[s->n_inputs];
    int n = threads < 1 ? 1 : threads > 64 ? 64 : threads;
    if (n > s->n_inputs || total < WP_MIN_TOKENS_PER_THREAD * n)
        n = 1;
    int64_t i = 0;
    for (int k = 0; k < n; k++) {
        tasks[k] = (write_task){s, single, pair, t, p, l, c, i, i};
        int64_t goal = total * (k + 1) / n;
        while (i < s->n_inputs && (l->row_splits[i] < goal || k == n - 1))
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

static PyObject *finish_columns(const wp_sequences *s, const wp_plan *single,
                                const wp_plan *pair, const wp_truncation *t,
                                const wp_padding *p, const wp_layout *l, int want, int threads,
                                PyObject *alloc)
{
    int64_t total = l->row_splits[s->n_inputs];
    wp_columns c;
    if (want & WANT_LISTS)
        alloc = Py_None; /* the ids column only lives until the lists are made */
    c.zeroed = alloc != Py_None;
    PyObject *ids = column_bytes(total, 1, &c.ids, alloc);
    PyObject *types = ids ? column_bytes(total, want & WANT_TYPES, &c.type_ids, alloc) : NULL;
    PyObject *special = types ? column_bytes(total, want & WANT_SPECIAL, &c.special, alloc)
                              : NULL;
    PyObject *attention = special ? column_bytes(total, want & WANT_ATTENTION, &c.attention,
                                                 alloc) : NULL;
    PyObject *offsets = attention ? column_bytes(2 * total, want & WANT_OFFSETS, &c.offsets,
                                                 alloc) : NULL;
    PyObject *splits = offsets ? PyByteArray_FromStringAndSize(
        (const char *)l->row_splits, (Py_ssize_t)((s->n_inputs + 1) * 8)) : NULL;
    if (!ids || !types || !special || !attention || !offsets || !splits) {
        Py_XDECREF(ids); Py_XDECREF(types); Py_XDECREF(special);
        Py_XDECREF(attention); Py_XDECREF(offsets); Py_XDECREF(splits);
        return NULL;
    }
    write_all(s, single, pair, t, p, l, &c, threads);
    if (want & WANT_LISTS) {
        PyObject *lists = ids_lists(c.ids, l->row_splits, s->n_inputs);
        Py_DECREF(ids); Py_DECREF(types); Py_DECREF(special);
        Py_DECREF(attention); Py_DECREF(offsets); Py_DECREF(splits);
        return lists;
    }
    return Py_BuildValue("(NNNNNN)", ids, types, special, attention, offsets, splits);
}

/* The layout of sequences s, then their columns (or lists), or a refused input's index. */
static PyObject *layout_and_finish(const wp_sequences *s, const plan_store *single,
                                   const plan_store *pair, const wp_truncation *t,
                                   const wp_padding *p, int want, int threads, PyObject *alloc)
{
    size_t size = ((size_t)s->n_inputs + 1) * 8;
    wp_layout l = {PyMem_Malloc(size), PyMem_Malloc(size), PyMem_Malloc(size), 0};
    PyObject *out = NULL;
    if (!l.keep1 || !l.keep2 || !l.row_splits) {
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
    return out;
}

/* finish(ids, offsets, row_splits, pair_rows, n_inputs, single, pair, truncation, padding,
 *        want) -> list of id lists (want & 16), or (ids, type_ids, special_tokens_mask,
 *        attention_mask, offsets, row_splits) int64 bytearrays (None: not wanted), or the
 *        index of the first input truncation refuses (an int). */
PyObject *wp_finish(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *ids, *offsets, *splits, *rows, *single_obj, *pair_obj, *trunc_obj, *pad_obj;
    Py_ssize_t n_inputs;
    int want;
    if (!PyArg_ParseTuple(args, "OOOOnOOOOi", &ids, &offsets, &splits, &rows, &n_inputs,
                          &single_obj, &pair_obj, &trunc_obj, &pad_obj, &want))
        return NULL;
    plan_store single, pair;
    wp_truncation t;
    wp_padding p;
    if (n_inputs < 0 || read_plan(single_obj, &single) < 0 || read_plan(pair_obj, &pair) < 0
        || read_truncation(trunc_obj, &t) < 0 || read_padding(pad_obj, &p) < 0)
        return n_inputs < 0 ? PyErr_Format(PyExc_ValueError, "n_inputs < 0") : NULL;
    views v;
    wp_sequences s;
    if (read_views(ids, offsets, splits, rows, n_inputs, &v, &s) < 0)
        return NULL;
    PyObject *out = layout_and_finish(&s, &single, &pair, &t, &p, want, 1, Py_None);
    release(&v);
    return out;
}

/* ------------------------------------------------------------ encode and finish */

typedef struct {
    plan_store single, pair;
    wp_truncation t;
    wp_padding p;
    int want;
    const int64_t *pair_rows; /* NULL: no pairs */
    Py_ssize_t n_inputs;
    PyObject *alloc; /* makes the columns, or None: bytearrays */
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
    if (wp_batch_split(b, o->n_inputs, o->pair_rows, threads) < 0
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
    }
    if (!f.splits || !f.ids || (b->want_offsets && !f.offsets)) {
        PyErr_NoMemory();
    } else {
        wp_batch_flatten(b, threads, &f);
        wp_sequences s = {f.ids, f.offsets, f.splits, o->pair_rows, o->n_inputs};
        out = layout_and_finish(&s, &o->single, &o->pair, &o->t, &o->p, o->want, threads,
                                o->alloc);
    }
    PyMem_Free(f.splits);
    PyMem_Free(f.ids);
    PyMem_Free(f.offsets);
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
    if (column(obj, &view, 8, n_inputs, "pair_rows") < 0)
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

static int read_opts(PyObject *const objs[4], int want, finish_opts *o)
{
    o->want = want;
    return read_plan(objs[0], &o->single) < 0 || read_plan(objs[1], &o->pair) < 0
           || read_truncation(objs[2], &o->t) < 0 || read_padding(objs[3], &o->p) < 0 ? -1 : 0;
}

/* Encoder.encode_finish(texts, pair_rows, n_inputs, single, pair, truncation, padding,
 * want, threads): _core.finish over the encoding of texts, without the columns between. */
PyObject *wp_encode_finish(EncoderObject *self, PyObject *args)
{
    PyObject *texts, *rows_obj, *objs[4];
    Py_ssize_t n_inputs;
    int want, threads, err;
    finish_opts o;
    o.alloc = Py_None;
    if (!PyArg_ParseTuple(args, "OOnOOOOii|O:encode_finish", &texts, &rows_obj, &n_inputs,
                          &objs[0], &objs[1], &objs[2], &objs[3], &want, &threads, &o.alloc)
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
    if (n_inputs < 0 || n_inputs > n) {
        Py_DECREF(seq);
        return PyErr_Format(PyExc_ValueError, "n_inputs %zd: not 0 to %zd", n_inputs, n);
    }
    o.n_inputs = n_inputs;
    o.pair_rows = NULL;
    batch b;
    memset(&b, 0, sizeof(b));
    b.want_offsets = (want & WANT_OFFSETS) != 0;
    PyObject *out = NULL;
    if (wp_batch_collect(self, &b, PySequence_Fast_ITEMS(seq), n, 0) == 0) {
        o.pair_rows = read_pair_rows(rows_obj, n_inputs, n, &err); /* may run Python code */
        if (err)
            out = NULL;
        else if ((want & WANT_LISTS) && !o.p.on)
            out = encode_lists(self, &b, &o, threads);
        else
            out = encode_columns(self, &b, &o, threads);
    }
    wp_batch_free(&b);
    PyMem_Free((void *)o.pair_rows);
    Py_DECREF(seq);
    return out;
}
