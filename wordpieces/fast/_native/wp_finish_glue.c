/* Python glue of core/wp_finish.c: _core.unzip(items), _core.word_items and
 * _core.words_columns (pre-split words), and the reading of plans and options
 * wp_finish_batch.c (Encoder.encode_finish) uses.
 *
 * unzip and the words functions do a batch's per-item splitting in C so that the Python
 * layer does a constant amount of work per batch. It raises none of the library's own input errors: it answers
 * None for an item it does not take, and the caller lets the Python reference raise.
 */
#include "wp_finish_glue.h"

#include <string.h>

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

/* ------------------------------------------------------------ pre-split words */

/* A new list of the words of `row`, or NULL: with no error set when `row` is not a list
 * or tuple of str (the caller answers None), with one when out of memory. It holds str
 * only and the caller never hands it to a user, so the cyclic collector is spared it
 * (and its item tuple): a batch of pre-split words makes one per sequence. */
static PyObject *word_list(PyObject *row)
{
    if (!PyList_CheckExact(row) && !PyTuple_CheckExact(row))
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(row);
    PyObject **word = PySequence_Fast_ITEMS(row);
    for (Py_ssize_t i = 0; i < n; i++)
        if (!PyUnicode_CheckExact(word[i]))
            return NULL;
    PyObject *out = PyList_New(n);
    for (Py_ssize_t i = 0; out && i < n; i++) {
        Py_INCREF(word[i]);
        PyList_SET_ITEM(out, i, word[i]);
    }
    if (out)
        PyObject_GC_UnTrack(out);
    return out;
}

/* word_items(rows, pair_rows) -> [(words, pair words or None)], each a new list, or None.
 * rows: a list or tuple of rows of words; pair_rows None or as long, a row of it None
 * for no pair. None: anything else (the Python reference raises its error). */
PyObject *wp_word_items(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *rows, *pairs;
    if (!PyArg_ParseTuple(args, "OO:word_items", &rows, &pairs))
        return NULL;
    if ((!PyList_CheckExact(rows) && !PyTuple_CheckExact(rows))
        || (pairs != Py_None && ((!PyList_CheckExact(pairs) && !PyTuple_CheckExact(pairs))
                                 || PySequence_Fast_GET_SIZE(pairs)
                                        != PySequence_Fast_GET_SIZE(rows))))
        Py_RETURN_NONE;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(rows);
    PyObject *items = PyList_New(n);
    for (Py_ssize_t i = 0; items && i < n; i++) {
        PyObject *pair_row = pairs == Py_None ? Py_None : PySequence_Fast_GET_ITEM(pairs, i);
        PyObject *words = word_list(PySequence_Fast_GET_ITEM(rows, i));
        PyObject *pair = !words || pair_row == Py_None ? NULL : word_list(pair_row);
        PyObject *item = words && (pair || pair_row == Py_None)
                             ? PyTuple_Pack(2, words, pair ? pair : Py_None) : NULL;
        Py_XDECREF(words);
        Py_XDECREF(pair);
        if (item)
            PyObject_GC_UnTrack(item);
        if (!item) {
            Py_CLEAR(items);
            if (PyErr_Occurred())
                return NULL;
            Py_RETURN_NONE;
        }
        PyList_SET_ITEM(items, i, item);
    }
    return items;
}

static int64_t *int64_column(PyObject **column, Py_ssize_t n)
{
    *column = PyByteArray_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(int64_t));
    return *column ? (int64_t *)PyByteArray_AS_STRING(*column) : NULL;
}

/* Append the words of `row` (a list) to `texts` at *at; its bound is groups[k + 1]. */
static void put_words(PyObject *texts, Py_ssize_t *at, PyObject *row, int64_t *groups,
                      Py_ssize_t k)
{
    for (Py_ssize_t j = 0; j < PyList_GET_SIZE(row); j++) {
        PyObject *word = PyList_GET_ITEM(row, j);
        Py_INCREF(word);
        PyList_SET_ITEM(texts, (*at)++, word);
    }
    groups[k + 1] = *at;
}

/* words_columns(items) -> (texts, pair_rows int64 bytearray or None, groups int64
 * bytearray), or None: items as word_items makes them. texts: every first sequence's
 * words, then every pair's; groups: the sequence bounds over texts; pair_rows[i]: the
 * sequence of item i's pair, or -1. */
PyObject *wp_words_columns(PyObject *module, PyObject *items)
{
    (void)module;
    if (!PyList_CheckExact(items))
        Py_RETURN_NONE;
    Py_ssize_t n = PyList_GET_SIZE(items), pairs = 0, words = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyList_GET_ITEM(items, i);
        if (!PyTuple_CheckExact(item) || PyTuple_GET_SIZE(item) != 2
            || !PyList_CheckExact(PyTuple_GET_ITEM(item, 0))
            || (PyTuple_GET_ITEM(item, 1) != Py_None
                && !PyList_CheckExact(PyTuple_GET_ITEM(item, 1))))
            Py_RETURN_NONE;
        words += PyList_GET_SIZE(PyTuple_GET_ITEM(item, 0));
        if (PyTuple_GET_ITEM(item, 1) != Py_None) {
            pairs++;
            words += PyList_GET_SIZE(PyTuple_GET_ITEM(item, 1));
        }
    }
    PyObject *texts = PyList_New(words), *groups_obj = NULL, *rows_obj = NULL;
    int64_t *groups = texts ? int64_column(&groups_obj, n + pairs + 1) : NULL;
    int64_t *rows = groups && pairs ? int64_column(&rows_obj, n) : NULL;
    if (!groups || (pairs && !rows)) {
        Py_XDECREF(texts);
        Py_XDECREF(groups_obj);
        return NULL;
    }
    Py_ssize_t at = 0, next = n;
    groups[0] = 0;
    for (Py_ssize_t i = 0; i < n; i++)
        put_words(texts, &at, PyTuple_GET_ITEM(PyList_GET_ITEM(items, i), 0), groups, i);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *pair = PyTuple_GET_ITEM(PyList_GET_ITEM(items, i), 1);
        if (rows)
            rows[i] = pair == Py_None ? -1 : next;
        if (pair != Py_None)
            put_words(texts, &at, pair, groups, next++);
    }
    if (!rows_obj)
        return Py_BuildValue("(NON)", texts, Py_None, groups_obj);
    return Py_BuildValue("(NNN)", texts, rows_obj, groups_obj);
}

/* ------------------------------------------------------------ finish */

/* A plan is a tuple of (seq, type_id, ids tuple) pieces. */
int wp_read_plan(PyObject *obj, plan_store *st)
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

int wp_read_truncation(PyObject *obj, wp_truncation *t)
{
    t->on = obj != Py_None;
    return !t->on || PyArg_ParseTuple(obj, "LLii", &t->max_length, &t->stride, &t->strategy,
                                      &t->left) ? 0 : -1;
}

int wp_read_padding(PyObject *obj, wp_padding *p)
{
    p->on = obj != Py_None;
    return !p->on || PyArg_ParseTuple(obj, "LLLLi", &p->length, &p->multiple, &p->pad_id,
                                      &p->pad_type_id, &p->left) ? 0 : -1;
}

/* A read-only view of a bytes-like column, checked to hold `count` items of `width`. */
int wp_column_view(PyObject *obj, Py_buffer *view, Py_ssize_t width, Py_ssize_t count,
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
