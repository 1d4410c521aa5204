/* The three phases of an encoding call: learn, encode without the GIL, build results. */
#include "wp_module.h"

#include <string.h>

/* ------------------------------------------------------------ learning code points */

static int class_of_letter(PyObject *letter)
{
    if (!PyUnicode_Check(letter) || PyUnicode_GET_LENGTH(letter) != 1)
        return -1;
    switch (PyUnicode_READ_CHAR(letter, 0)) {
    case 's': return WP_SPACE;
    case 'i': return WP_ISOLATE;
    case 'w': return WP_WORD;
    case 'c': return WP_COMPLEX;
    default: return -1;
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
    int cls = -1;
    if (PyTuple_Check(res) && PyTuple_GET_SIZE(res) == 2 && PyBytes_Check(PyTuple_GET_ITEM(res, 1)))
        cls = class_of_letter(PyTuple_GET_ITEM(res, 0));
    if (cls < 0) {
        PyErr_Format(PyExc_TypeError,
                     "lookup(%lu) must return (one of 's', 'i', 'w', 'c', bytes), got %R",
                     (unsigned long)cp, res);
        Py_DECREF(res);
        return -1;
    }
    int rc = 0;
    /* the callback may have let another thread learn cp meanwhile: never rewrite */
    if (!wp_table_is_set(&self->table, cp)) {
        PyObject *b = PyTuple_GET_ITEM(res, 1);
        rc = wp_table_set(&self->table, cp, cls, (const uint8_t *)PyBytes_AS_STRING(b),
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
    PyMem_Free(b->texts);
    PyMem_Free(b->row_splits);
    PyMem_Free(b->status);
    wp_output_free(&b->out);
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
    b->texts = PyMem_Calloc((size_t)(n ? n : 1), sizeof(PyObject *));
    b->row_splits = PyMem_Calloc((size_t)n + 1, sizeof(int64_t));
    b->status = PyMem_Calloc((size_t)(n ? n : 1), 1);
    if (!b->texts || !b->row_splits || !b->status) {
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
        if (learn_text(self, text) < 0)
            return -1;
    }
    return 0;
}

/* ------------------------------------------------------------ phase 2: encode */

/* Below this many code points per thread, more threads cost more than they save. */
#define WP_MIN_CHARS_PER_THREAD 16384

/* One thread's share of a batch: texts [start, end), encoded into its own output. */
typedef struct {
    const wp_model *m;
    batch *b;
    Py_ssize_t start, end;
    wp_output out;
    int rc;
} part;

/* Runs without the GIL: reads only immutable strings and the learned table. */
static void encode_part(void *arg)
{
    part *p = arg;
    batch *b = p->b;
    wp_scratch s;
    memset(&s, 0, sizeof(s));
    p->rc = WP_OK;
    for (Py_ssize_t i = p->start; i < p->end; i++) {
        PyObject *t = b->texts[i];
        b->row_splits[i] = (int64_t)p->out.ids.len;
        int rc = wp_encode_text(p->m, PyUnicode_KIND(t), PyUnicode_DATA(t),
                                PyUnicode_GET_LENGTH(t), b->want_offsets, &s, &p->out);
        if (rc == WP_NOMEM) {
            p->rc = rc;
            break;
        }
        b->status[i] = (signed char)rc;
    }
    wp_scratch_free(&s);
}

/* Cut the texts into n contiguous shares of about the same number of code points. */
static void split_parts(batch *b, part *parts, int n)
{
    Py_ssize_t i = 0;
    int64_t seen = 0;
    for (int k = 0; k < n; k++) {
        parts[k].b = b;
        parts[k].start = i;
        int64_t goal = b->chars * (k + 1) / n;
        while (i < b->n && (seen < goal || k == n - 1))
            seen += PyUnicode_GET_LENGTH(b->texts[i++]);
        parts[k].end = i;
    }
}

static int append_part(wp_output *dst, const wp_output *src)
{
    if (wp_i32_reserve(&dst->ids, src->ids.len) || wp_i64_reserve(&dst->offsets, src->offsets.len) ||
        wp_i32_reserve(&dst->word_ids, src->word_ids.len))
        return -1;
    if (src->ids.len)
        memcpy(dst->ids.data + dst->ids.len, src->ids.data, src->ids.len * sizeof(int32_t));
    if (src->offsets.len)
        memcpy(dst->offsets.data + dst->offsets.len, src->offsets.data,
               src->offsets.len * sizeof(int64_t));
    if (src->word_ids.len)
        memcpy(dst->word_ids.data + dst->word_ids.len, src->word_ids.data,
               src->word_ids.len * sizeof(int32_t));
    dst->ids.len += src->ids.len;
    dst->offsets.len += src->offsets.len;
    dst->word_ids.len += src->word_ids.len;
    return 0;
}

/* Concatenate the shares into b->out, shifting their row splits. */
static int join_parts(batch *b, part *parts, int n)
{
    int rc = WP_OK;
    for (int k = 0; k < n; k++)
        if (parts[k].rc != WP_OK)
            rc = parts[k].rc;
    b->out = parts[0].out;
    memset(&parts[0].out, 0, sizeof(wp_output));
    for (int k = 1; k < n && rc == WP_OK; k++) {
        int64_t base = (int64_t)b->out.ids.len;
        for (Py_ssize_t i = parts[k].start; i < parts[k].end; i++)
            b->row_splits[i] += base;
        if (append_part(&b->out, &parts[k].out))
            rc = WP_NOMEM;
    }
    for (int k = 1; k < n; k++)
        wp_output_free(&parts[k].out);
    b->row_splits[b->n] = (int64_t)b->out.ids.len;
    return rc;
}

int wp_batch_encode(EncoderObject *self, batch *b, int threads)
{
    int64_t most = b->chars / WP_MIN_CHARS_PER_THREAD;
    int n = threads < 1 ? 1 : threads;
    if (n > most)
        n = most > 1 ? (int)most : 1;
    if (n > b->n)
        n = b->n > 1 ? (int)b->n : 1;
    part *parts = PyMem_Calloc((size_t)n, sizeof(part));
    if (!parts) {
        PyErr_NoMemory();
        return -1;
    }
    for (int k = 0; k < n; k++)
        parts[k].m = &self->model;
    split_parts(b, parts, n);
    if (b->chars >= WP_RELEASE_GIL_CHARS) {
        Py_BEGIN_ALLOW_THREADS
        wp_run_parallel(encode_part, parts, sizeof(part), n);
        Py_END_ALLOW_THREADS
    } else {
        encode_part(parts);
    }
    int rc = join_parts(b, parts, n);
    PyMem_Free(parts);
    if (rc == WP_NOMEM) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* Python code may run in the fallback: let the garbage collector run there. */
static PyObject *call_fallback(EncoderObject *self, batch *b, Py_ssize_t i)
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
        return call_fallback(self, b, i);
    int64_t s = b->row_splits[i], n = b->row_splits[i + 1] - s;
    PyObject *ids = ids_list(self, b->out.ids.data + s, n);
    if (!ids || !b->want_offsets)
        return ids;
    PyObject *offs = offsets_list(b->out.offsets.data + 2 * s, n);
    PyObject *wids = offs ? int32_list(b->out.word_ids.data + s, n) : NULL;
    return triple(ids, offs, wids);
}

/* Many small containers would set off the garbage collector again and again; none
 * of them can be part of a cycle, so collecting is pointless until they are built. */
PyObject *wp_batch_lists(EncoderObject *self, batch *b)
{
    PyObject *results = PyList_New(b->n);
    if (!results)
        return NULL;
    b->gc_paused = PyGC_Disable();
    for (Py_ssize_t i = 0; i < b->n; i++) {
        PyObject *r = wp_text_result(self, b, i);
        if (!r) {
            Py_CLEAR(results);
            break;
        }
        PyList_SET_ITEM(results, i, r);
    }
    if (b->gc_paused)
        PyGC_Enable();
    b->gc_paused = 0;
    return results;
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
    PyObject *r = call_fallback(self, b, i);
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

static int append_native(const batch *b, Py_ssize_t i, wp_output *m)
{
    size_t s = (size_t)b->row_splits[i], n = (size_t)(b->row_splits[i + 1] - b->row_splits[i]);
    if (wp_i32_reserve(&m->ids, n))
        return -1;
    memcpy(m->ids.data + m->ids.len, b->out.ids.data + s, n * sizeof(int32_t));
    m->ids.len += n;
    if (!b->want_offsets)
        return 0;
    if (wp_i64_reserve(&m->offsets, 2 * n) || wp_i32_reserve(&m->word_ids, n))
        return -1;
    memcpy(m->offsets.data + m->offsets.len, b->out.offsets.data + 2 * s, 2 * n * sizeof(int64_t));
    m->offsets.len += 2 * n;
    memcpy(m->word_ids.data + m->word_ids.len, b->out.word_ids.data + s, n * sizeof(int32_t));
    m->word_ids.len += n;
    return 0;
}

/* Splice the Python encodings of the texts the native path could not do. */
static int merge_fallbacks(EncoderObject *self, batch *b)
{
    wp_output m;
    memset(&m, 0, sizeof(m));
    int64_t *rs = PyMem_Calloc((size_t)b->n + 1, sizeof(int64_t));
    int rc = rs ? 0 : -1;
    if (!rs)
        PyErr_NoMemory();
    for (Py_ssize_t i = 0; rc == 0 && i < b->n; i++) {
        rs[i] = (int64_t)m.ids.len;
        if (b->status[i] != WP_OK)
            rc = append_fallback(self, b, i, &m);
        else if ((rc = append_native(b, i, &m)) < 0)
            PyErr_NoMemory();
    }
    if (rc < 0) {
        wp_output_free(&m);
        PyMem_Free(rs);
        return -1;
    }
    rs[b->n] = (int64_t)m.ids.len;
    wp_output_free(&b->out);
    b->out = m;
    PyMem_Free(b->row_splits);
    b->row_splits = rs;
    return 0;
}

static PyObject *bytearray_of(const void *data, size_t nbytes)
{
    return PyByteArray_FromStringAndSize(nbytes ? (const char *)data : "", (Py_ssize_t)nbytes);
}

/* (ids, row_splits) or (ids, offsets, word_ids, row_splits), as bytearrays. */
PyObject *wp_batch_arrays(EncoderObject *self, batch *b)
{
    for (Py_ssize_t i = 0; i < b->n; i++) {
        if (b->status[i] != WP_OK) {
            if (merge_fallbacks(self, b) < 0)
                return NULL;
            break;
        }
    }
    const wp_output *o = &b->out;
    PyObject *ids = bytearray_of(o->ids.data, o->ids.len * sizeof(int32_t));
    PyObject *rs = bytearray_of(b->row_splits, ((size_t)b->n + 1) * sizeof(int64_t));
    if (!ids || !rs) {
        Py_XDECREF(ids);
        Py_XDECREF(rs);
        return NULL;
    }
    if (!b->want_offsets)
        return Py_BuildValue("(NN)", ids, rs);
    PyObject *offs = bytearray_of(o->offsets.data, o->offsets.len * sizeof(int64_t));
    PyObject *wids = bytearray_of(o->word_ids.data, o->word_ids.len * sizeof(int32_t));
    if (!offs || !wids) {
        Py_DECREF(ids);
        Py_DECREF(rs);
        Py_XDECREF(offs);
        Py_XDECREF(wids);
        return NULL;
    }
    return Py_BuildValue("(NNNN)", ids, offs, wids, rs);
}

