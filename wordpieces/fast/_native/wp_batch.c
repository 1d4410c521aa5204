/* A batch's texts: collected, their code points learned, and their results built.
 *
 * Not handled here: how chunks are encoded on threads (wp_pipeline.c).
 */
#include "wp_module.h"

#include <string.h>

/* ------------------------------------------------------------ learning code points */

/* Run classes by letter (pipeline/char_forms.RUN_LETTERS): 'w' is WP_RUN_WORD, the
 * next ones 2, 3, ...; 'g' is WP_RUN_GLUE. */
static const char RUN_LETTERS[] = "wpdmABCDEFGHIJKLMNOPQRSTUVWXYZ";

/* The class of a class letter, and its run class in *run; -1 if it is none. */
static int class_of_letter(PyObject *letter, int *run)
{
    *run = 0;
    if (!PyUnicode_Check(letter) || PyUnicode_GET_LENGTH(letter) != 1)
        return -1;
    Py_UCS4 c = PyUnicode_READ_CHAR(letter, 0);
    switch (c) {
    case 's': return WP_SPACE;
    case 'i': return WP_ISOLATE;
    case 'c': return WP_COMPLEX;
    case 'b': return WP_BEGIN; /* Metaspace's (pipeline/metaspace_form.BEGIN) */
    case 'g': return WP_WORD; /* WP_RUN_GLUE */
    default:
        for (int k = 0; RUN_LETTERS[k]; k++)
            if (c == (Py_UCS4)RUN_LETTERS[k]) {
                *run = WP_RUN_WORD + k;
                return WP_WORD;
            }
        return -1;
    }
}

/* Ask the Python reference about code point cp and record its answer. */
int wp_learn_code_point(EncoderObject *self, uint32_t cp)
{
    PyObject *arg = PyLong_FromUnsignedLong(cp);
    if (!arg)
        return -1;
    PyObject *res = PyObject_CallOneArg(self->lookup, arg);
    Py_DECREF(arg);
    if (!res)
        return -1;
    int cls = -1, run = 0;
    if (PyTuple_Check(res) && PyTuple_GET_SIZE(res) == 2 && PyBytes_Check(PyTuple_GET_ITEM(res, 1)))
        cls = class_of_letter(PyTuple_GET_ITEM(res, 0), &run);
    if (cls == WP_WORD && run == WP_RUN_GLUE && PyBytes_GET_SIZE(PyTuple_GET_ITEM(res, 1)))
        cls = -1; /* glue is a deleted character: it has no text */
    if (cls < 0) {
        PyErr_Format(PyExc_TypeError,
                     "lookup(%lu) must return (one of 's', 'i', 'c', 'g', 'b', %s; bytes), got %R",
                     (unsigned long)cp, RUN_LETTERS, res);
        Py_DECREF(res);
        return -1;
    }
    int rc = 0;
    /* the callback may have let another thread learn cp meanwhile: never rewrite */
    if (!wp_table_is_set(&self->table, cp)) {
        PyObject *b = PyTuple_GET_ITEM(res, 1);
        rc = wp_table_set(&self->table, cp, cls, run, (const uint8_t *)PyBytes_AS_STRING(b),
                          (size_t)PyBytes_GET_SIZE(b));
        if (rc < 0)
            PyErr_NoMemory();
    }
    Py_DECREF(res);
    return rc;
}

/* Make sure the table knows every code point of text (Latin-1 is known upfront). */
static int learn_text(EncoderObject *self, PyObject *text)
{
    int kind = PyUnicode_KIND(text);
    if (kind == PyUnicode_1BYTE_KIND)
        return 0;
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 cp = PyUnicode_READ(kind, data, i);
        if (!wp_table_is_set(&self->table, cp) && wp_learn_code_point(self, cp) < 0)
            return -1;
    }
    return 0;
}

/* ------------------------------------------------------------ phase 1: collect */

void wp_batch_free(batch *b)
{
    for (Py_ssize_t i = 0; i < b->n; i++)
        Py_XDECREF(b->texts[i]);
    PyMem_Free(b->texts); /* the row arrays share its block */
    for (int k = 0; b->chunks && k <= b->n_chunks; k++)
        wp_output_free(&b->chunks[k].out);
    if (b->chunks != b->few_chunks)
        PyMem_Free(b->chunks);
}

static int check_text(PyObject *text, Py_ssize_t index)
{
    if (!PyUnicode_Check(text)) {
        if (index < 0)
            PyErr_Format(PyExc_TypeError, "text must be str, not %.100s", Py_TYPE(text)->tp_name);
        else
            PyErr_Format(PyExc_TypeError, "texts[%zd] must be str, not %.100s", index,
                         Py_TYPE(text)->tp_name);
        return -1;
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(text) < 0)
        return -1;
#endif
    return 0;
}

/* Take references to the texts (a list may change once the GIL is released). */
int wp_batch_collect(EncoderObject *self, batch *b, PyObject *const *items, Py_ssize_t n,
                     int single)
{
    size_t rows = (size_t)(n ? n : 1);
    /* one block for the texts and every per-row array (one allocation per call) */
    char *block = PyMem_Calloc(rows, 3 * sizeof(int64_t) + sizeof(int32_t) + 1);
    b->texts = (PyObject **)block;
    if (block) {
        b->row_at = (int64_t *)(block + rows * sizeof(PyObject *));
        b->row_len = b->row_at + rows;
        b->row_chunk = (int32_t *)(b->row_len + rows);
        b->status = (signed char *)(b->row_chunk + rows);
    }
    if (!block) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *text = items[i];
        if (check_text(text, single ? -1 : i) < 0)
            return -1;
        Py_INCREF(text);
        b->texts[i] = text;
        b->n = i + 1;
        b->chars += PyUnicode_GET_LENGTH(text);
        if (PyUnicode_KIND(text) != PyUnicode_1BYTE_KIND)
            b->wide_chars += PyUnicode_GET_LENGTH(text);
    }
    return 0;
}

/* ------------------------------------------------------------ learning a batch */

/* Whether data[0:n] holds a code point the table has not learned (Latin-1 is learned). */
#define WP_HAS_UNLEARNED(type)                                                      \
    static int unlearned_##type(const wp_chartable *t, const type *data, Py_ssize_t n) \
    {                                                                               \
        for (Py_ssize_t i = 0; i < n; i++)                                          \
            if (data[i] >= 256 && !wp_table_is_set(t, data[i]))                     \
                return 1;                                                           \
        return 0;                                                                   \
    }
WP_HAS_UNLEARNED(Py_UCS2)
WP_HAS_UNLEARNED(Py_UCS4)

static int has_unlearned(const wp_chartable *t, PyObject *text)
{
    int kind = PyUnicode_KIND(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    if (kind == PyUnicode_2BYTE_KIND)
        return unlearned_Py_UCS2(t, PyUnicode_DATA(text), n);
    if (kind == PyUnicode_4BYTE_KIND)
        return unlearned_Py_UCS4(t, PyUnicode_DATA(text), n);
    return 0;
}

typedef struct {
    const wp_chartable *table;
    batch *b;
    Py_ssize_t from, to;
} scan_task;

/* Mark (status 1) the texts of rows [from, to) that hold an unlearned code point. */
static void scan_rows(void *arg)
{
    scan_task *s = arg;
    for (Py_ssize_t r = s->from; r < s->to; r++)
        s->b->status[r] = (signed char)has_unlearned(s->table, s->b->texts[r]);
}

/* Teach the table every code point of the texts before they are encoded.
 *
 * The scan for unlearned code points runs on every thread without the GIL: another
 * Python thread may be learning meanwhile, and an entry it is writing may look set to
 * the scan. Taking the GIL back after the scan orders that writer's whole entry before
 * the encoding reads it; entries this scan finds unset are learned with the GIL. */
int wp_batch_learn(EncoderObject *self, batch *b, int threads)
{
    if (!b->wide_chars)
        return 0;
    int n = threads < 1 ? 1 : threads > 64 ? 64 : threads;
    if (b->wide_chars < (int64_t)WP_MIN_WIDE_CHARS_PER_THREAD * n)
        n = 1;
    scan_task tasks[64];
    Py_ssize_t r = 0;
    int64_t seen = 0;
    for (int k = 0; k < n; k++) {
        tasks[k] = (scan_task){&self->table, b, r, r};
        int64_t goal = b->wide_chars * (k + 1) / n;
        for (; r < b->n && (seen < goal || k == n - 1); r++)
            if (PyUnicode_KIND(b->texts[r]) != PyUnicode_1BYTE_KIND)
                seen += PyUnicode_GET_LENGTH(b->texts[r]);
        tasks[k].to = r;
    }
    if (b->wide_chars >= WP_RELEASE_GIL_CHARS) {
        Py_BEGIN_ALLOW_THREADS
        wp_run_parallel(scan_rows, tasks, sizeof(scan_task), n);
        Py_END_ALLOW_THREADS
    } else {
        scan_rows(tasks);
    }
    for (Py_ssize_t i = 0; i < b->n; i++) {
        if (b->status[i] && learn_text(self, b->texts[i]) < 0)
            return -1;
        b->status[i] = WP_OK;
    }
    return 0;
}

/* ------------------------------------------------------------ phase 2: encode */

/* Encode every text (wp_pipeline.c), results built afterwards. */
int wp_batch_encode(EncoderObject *self, batch *b, int threads)
{
    if (wp_batch_split(b, b->n, NULL, threads) < 0)
        return -1;
    return wp_batch_run(self, b, threads, NULL, NULL);
}

/* Where row r's tokens are (offsets and word ids NULL unless asked for). */
void wp_batch_row(const batch *b, Py_ssize_t r, const int32_t **ids, const int64_t **offsets,
                  const int32_t **word_ids, int64_t *n)
{
    const wp_output *o = &b->chunks[b->row_chunk[r]].out;
    int64_t at = b->row_at[r];
    *ids = o->ids.data + at;
    *offsets = b->want_offsets ? o->offsets.data + 2 * at : NULL;
    *word_ids = b->want_offsets ? o->word_ids.data + at : NULL;
    *n = b->row_len[r];
}

/* Python code may run in the fallback: let the garbage collector run there. */
PyObject *wp_call_fallback(EncoderObject *self, batch *b, Py_ssize_t i)
{
    int paused = b->gc_paused && PyGC_Enable() == 0;
    PyObject *r = PyObject_CallFunctionObjArgs(self->fallback, b->texts[i],
                                               b->want_offsets ? Py_True : Py_False, NULL);
    if (paused)
        PyGC_Disable();
    return r;
}

/* ------------------------------------------------------------ phase 3: lists */

#define WP_INT_CACHE 8192
static PyObject *int_cache[WP_INT_CACHE];

int wp_init_int_cache(void)
{
    for (long i = 0; i < WP_INT_CACHE; i++)
        if (!int_cache[i] && !(int_cache[i] = PyLong_FromLong(i)))
            return -1;
    return 0;
}

WP_INLINE PyObject *new_int(int64_t v)
{
    if (v >= 0 && v < WP_INT_CACHE) {
        Py_INCREF(int_cache[v]);
        return int_cache[v];
    }
    return PyLong_FromLongLong((long long)v);
}

PyObject *wp_new_int(int64_t v)
{
    return new_int(v);
}

static PyObject *ids_list(EncoderObject *self, const int32_t *ids, int64_t n)
{
    PyObject *list = PyList_New((Py_ssize_t)n);
    if (!list)
        return NULL;
    for (int64_t k = 0; k < n; k++) {
        PyObject *o = self->id_objs[ids[k]];
        Py_INCREF(o);
        PyList_SET_ITEM(list, (Py_ssize_t)k, o);
    }
    PyObject_GC_UnTrack(list); /* ints only: see wp_finish_batch.c's wp_untrack_row */
    return list;
}

PyObject *wp_int_pair(int64_t a, int64_t b)
{
    PyObject *pair = PyTuple_New(2);
    PyObject *x = pair ? new_int(a) : NULL, *y = x ? new_int(b) : NULL;
    if (!y) {
        Py_XDECREF(pair);
        Py_XDECREF(x);
        return NULL;
    }
    PyTuple_SET_ITEM(pair, 0, x);
    PyTuple_SET_ITEM(pair, 1, y);
    PyObject_GC_UnTrack(pair); /* two ints: never part of a cycle */
    return pair;
}

static PyObject *offsets_list(const int64_t *offs, int64_t n)
{
    PyObject *list = PyList_New((Py_ssize_t)n);
    if (!list)
        return NULL;
    for (int64_t k = 0; k < n; k++) {
        PyObject *pair = wp_int_pair(offs[2 * k], offs[2 * k + 1]);
        if (!pair) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)k, pair);
    }
    PyObject_GC_UnTrack(list); /* untracked pairs of ints only */
    return list;
}

static PyObject *int32_list(const int32_t *v, int64_t n)
{
    PyObject *list = PyList_New((Py_ssize_t)n);
    if (!list)
        return NULL;
    for (int64_t k = 0; k < n; k++) {
        PyObject *o = new_int(v[k]);
        if (!o) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)k, o);
    }
    PyObject_GC_UnTrack(list); /* ints only */
    return list;
}

static PyObject *triple(PyObject *a, PyObject *b, PyObject *c)
{
    PyObject *t = (a && b && c) ? PyTuple_New(3) : NULL;
    if (!t) {
        Py_XDECREF(a);
        Py_XDECREF(b);
        Py_XDECREF(c);
        return NULL;
    }
    PyTuple_SET_ITEM(t, 0, a);
    PyTuple_SET_ITEM(t, 1, b);
    PyTuple_SET_ITEM(t, 2, c);
    return t;
}

/* The result for text i: a list of ids, or (ids, offsets, word_ids). */
PyObject *wp_text_result(EncoderObject *self, batch *b, Py_ssize_t i)
{
    if (b->status[i] != WP_OK)
        return wp_call_fallback(self, b, i);
    const int32_t *id_data, *word_data;
    const int64_t *offset_data;
    int64_t n;
    wp_batch_row(b, i, &id_data, &offset_data, &word_data, &n);
    PyObject *ids = ids_list(self, id_data, n);
    if (!ids || !b->want_offsets)
        return ids;
    PyObject *offs = offsets_list(offset_data, n);
    PyObject *wids = offs ? int32_list(word_data, n) : NULL;
    return triple(ids, offs, wids);
}

typedef struct {
    EncoderObject *self;
    PyObject *results;
} lists_ctx;

/* Many small containers would set off the garbage collector again and again; none
 * of them can be part of a cycle, so collecting is pointless until they are built.
 * (Paused only while this thread holds the GIL: other threads run with it.) */
static int chunk_lists(void *arg, batch *b, int k)
{
    lists_ctx *ctx = arg;
    const wp_chunk *c = &b->chunks[k];
    b->gc_paused = PyGC_Disable();
    int rc = 0;
    for (Py_ssize_t i = c->a0; i < c->a1; i++) {
        PyObject *r = wp_text_result(ctx->self, b, i);
        if (!r) {
            rc = -1;
            break;
        }
        PyList_SET_ITEM(ctx->results, i, r);
    }
    if (b->gc_paused)
        PyGC_Enable();
    b->gc_paused = 0;
    return rc;
}

/* Encode the texts and build one result per text, each chunk's as soon as it is done. */
PyObject *wp_batch_lists(EncoderObject *self, batch *b, int threads)
{
    lists_ctx ctx = {self, PyList_New(b->n)};
    if (!ctx.results || wp_batch_split(b, b->n, NULL, threads) < 0
        || wp_batch_run(self, b, threads, chunk_lists, &ctx) < 0) {
        Py_XDECREF(ctx.results);
        return NULL;
    }
    return ctx.results;
}

/* ------------------------------------------------------------ phase 3: arrays */

static int append_py_ints(wp_i32vec *v, PyObject *seq)
{
    PyObject *fast = PySequence_Fast(seq, "fallback ids must be a sequence");
    if (!fast)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    int rc = wp_i32_reserve(v, (size_t)n);
    if (rc < 0)
        PyErr_NoMemory();
    for (Py_ssize_t k = 0; rc == 0 && k < n; k++) {
        long x = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, k));
        if (x == -1 && PyErr_Occurred())
            rc = -1;
        else if (x < INT32_MIN || x > INT32_MAX)
            rc = -1, PyErr_Format(PyExc_OverflowError, "id %ld does not fit in int32", x);
        else
            v->data[v->len++] = (int32_t)x;
    }
    Py_DECREF(fast);
    return rc;
}

static int append_py_offsets(wp_i64vec *v, PyObject *seq)
{
    PyObject *fast = PySequence_Fast(seq, "fallback offsets must be a sequence");
    if (!fast)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    int rc = wp_i64_reserve(v, 2 * (size_t)n);
    if (rc < 0)
        PyErr_NoMemory();
    for (Py_ssize_t k = 0; rc == 0 && k < n; k++) {
        long long s, e;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(fast, k), "LL", &s, &e)) {
            rc = -1;
            break;
        }
        v->data[v->len++] = s;
        v->data[v->len++] = e;
    }
    Py_DECREF(fast);
    return rc;
}

static int append_fallback(EncoderObject *self, batch *b, Py_ssize_t i, wp_output *m)
{
    PyObject *r = wp_call_fallback(self, b, i);
    if (!r)
        return -1;
    int rc;
    if (!b->want_offsets) {
        rc = append_py_ints(&m->ids, r);
    } else if (!PyTuple_Check(r) || PyTuple_GET_SIZE(r) != 3) {
        PyErr_SetString(PyExc_TypeError, "fallback must return (ids, offsets, word_ids)");
        rc = -1;
    } else {
        rc = append_py_ints(&m->ids, PyTuple_GET_ITEM(r, 0));
        if (rc == 0)
            rc = append_py_offsets(&m->offsets, PyTuple_GET_ITEM(r, 1));
        if (rc == 0)
            rc = append_py_ints(&m->word_ids, PyTuple_GET_ITEM(r, 2));
    }
    Py_DECREF(r);
    return rc;
}

/* Encode row r by the Python reference into the fallback chunk (the last one). */
int wp_batch_materialize(EncoderObject *self, batch *b, Py_ssize_t r)
{
    wp_output *extra = &b->chunks[b->n_chunks].out;
    size_t before = extra->ids.len;
    if (append_fallback(self, b, r, extra) < 0)
        return -1;
    b->row_chunk[r] = b->n_chunks;
    b->row_at[r] = (int64_t)before;
    b->row_len[r] = (int64_t)(extra->ids.len - before);
    b->status[r] = WP_OK;
    return 0;
}

/* A new bytearray of `nbytes` (uninitialized), and where its bytes are. */
static PyObject *new_column(size_t nbytes, void **data)
{
    PyObject *col = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)nbytes);
    *data = col ? wp_advise_huge(PyByteArray_AS_STRING(col), nbytes) : NULL;
    return col;
}

/* (ids, row_splits) or (ids, offsets, word_ids, row_splits), as bytearrays, the rows
 * copied into place by every thread at once. */
PyObject *wp_batch_arrays(EncoderObject *self, batch *b, int threads)
{
    for (Py_ssize_t i = 0; i < b->n; i++)
        if (b->status[i] != WP_OK && wp_batch_materialize(self, b, i) < 0)
            return NULL;
    wp_flat f = {NULL, NULL, NULL, NULL};
    PyObject *rs = new_column(((size_t)b->n + 1) * sizeof(int64_t), (void **)&f.splits);
    if (!rs)
        return NULL;
    f.splits[0] = 0;
    for (Py_ssize_t i = 0; i < b->n; i++)
        f.splits[i + 1] = f.splits[i] + b->row_len[i];
    size_t total = (size_t)f.splits[b->n];
    PyObject *ids = new_column(total * sizeof(int32_t), (void **)&f.ids), *offs = NULL,
             *wids = NULL;
    if (ids && b->want_offsets) {
        offs = new_column(2 * total * sizeof(int64_t), (void **)&f.offsets);
        wids = offs ? new_column(total * sizeof(int32_t), (void **)&f.word_ids) : NULL;
    }
    if (!ids || (b->want_offsets && !wids)) {
        Py_DECREF(rs);
        Py_XDECREF(ids);
        Py_XDECREF(offs);
        return NULL;
    }
    wp_batch_flatten(b, threads, &f);
    if (!b->want_offsets)
        return Py_BuildValue("(NN)", ids, rs);
    return Py_BuildValue("(NNNN)", ids, offs, wids, rs);
}
