/* Build the Python lists of one row of a batch's flat columns (see backend.ColumnTokens).
 *
 * A native batch keeps its output as flat byte arrays (ids int32, offsets int64
 * pairs, word ids int32); a LazyEncoding reads one row of them when a list is first
 * asked for. These functions build that list in one pass, with the layout's extra
 * items (special tokens, padding) before and after it, instead of the three or four
 * intermediate lists the same work takes in Python.
 * Not handled here: which items go around a row (lazy_encoding.Layout).
 */
#include "wp_module.h"

/* The buffer of `obj` as `width`-byte items, with [start, stop) checked against it. */
static int row_view(PyObject *obj, Py_ssize_t width, Py_ssize_t start, Py_ssize_t stop,
                    Py_buffer *view)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_SIMPLE) < 0)
        return -1;
    if (start < 0 || stop < start || stop > view->len / width) {
        PyBuffer_Release(view);
        PyErr_Format(PyExc_IndexError, "row [%zd, %zd) is outside a column of %zd items",
                     start, stop, view->len / width);
        return -1;
    }
    return 0;
}

/* A new list of len(before) + n + len(after) items, `before` and `after` filled in. */
static PyObject *framed_list(PyObject *before, PyObject *after, Py_ssize_t n)
{
    if (!PyTuple_Check(before) || !PyTuple_Check(after)) {
        PyErr_SetString(PyExc_TypeError, "before and after must be tuples");
        return NULL;
    }
    Py_ssize_t nb = PyTuple_GET_SIZE(before), na = PyTuple_GET_SIZE(after);
    PyObject *list = PyList_New(nb + n + na);
    if (!list)
        return NULL;
    for (Py_ssize_t i = 0; i < nb; i++) {
        PyObject *x = PyTuple_GET_ITEM(before, i);
        Py_INCREF(x);
        PyList_SET_ITEM(list, i, x);
    }
    for (Py_ssize_t i = 0; i < na; i++) {
        PyObject *x = PyTuple_GET_ITEM(after, i);
        Py_INCREF(x);
        PyList_SET_ITEM(list, nb + n + i, x);
    }
    return list;
}

/* Offsets of short tokens near the start of a text repeat endlessly: (0, 5), (6, 9)...
 * Tuples are immutable, so one shared tuple per (start, length) serves every list; it
 * saves most allocations, and with them most of the garbage collector's runs (each
 * new tuple counts towards the next one). At most 2048 x 32 tuples (~4 MB), kept. */
#define WP_PAIR_STARTS 2048
#define WP_PAIR_LENGTHS 32
static PyObject **pair_cache;

static PyObject *pair(int64_t a, int64_t b)
{
    if (a < 0 || a >= WP_PAIR_STARTS || b < a || b - a >= WP_PAIR_LENGTHS)
        return wp_int_pair(a, b);
    if (!pair_cache &&
        !(pair_cache = PyMem_Calloc(WP_PAIR_STARTS * WP_PAIR_LENGTHS, sizeof(PyObject *)))) {
        PyErr_NoMemory();
        return NULL;
    }
    PyObject **slot = &pair_cache[a * WP_PAIR_LENGTHS + (b - a)];
    if (!*slot && !(*slot = wp_int_pair(a, b)))
        return NULL;
    Py_INCREF(*slot);
    return *slot;
}

/* One list item from a column's buffer (names: the token names, for name_item). */
typedef PyObject *(*item_fn)(const void *buf, Py_ssize_t i, PyObject *names);

static PyObject *int_item(const void *buf, Py_ssize_t i, PyObject *names)
{
    return wp_new_int(((const int32_t *)buf)[i]);
}

static PyObject *pair_item(const void *buf, Py_ssize_t i, PyObject *names)
{
    const int64_t *v = (const int64_t *)buf;
    return pair(v[2 * i], v[2 * i + 1]);
}

static PyObject *name_item(const void *buf, Py_ssize_t i, PyObject *names)
{
    int32_t id = ((const int32_t *)buf)[i];
    if (id < 0 || id >= PyList_GET_SIZE(names))
        return PyErr_Format(PyExc_IndexError, "id %d has no token (vocabulary of %zd)", id,
                            PyList_GET_SIZE(names));
    PyObject *x = PyList_GET_ITEM(names, id);
    Py_INCREF(x);
    return x;
}

/* before + [item(i) for i in range(start, stop)] + after, from `width`-byte items */
static PyObject *row_list(PyObject *column, Py_ssize_t width, Py_ssize_t start, Py_ssize_t stop,
                          PyObject *before, PyObject *after, item_fn item, PyObject *names)
{
    Py_buffer view;
    if (row_view(column, width, start, stop, &view) < 0)
        return NULL;
    PyObject *list = framed_list(before, after, stop - start);
    Py_ssize_t nb = list ? PyTuple_GET_SIZE(before) : 0;
    for (Py_ssize_t i = start; list && i < stop; i++) {
        PyObject *x = item(view.buf, i, names);
        if (!x)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, nb + i - start, x);
    }
    PyBuffer_Release(&view);
    return list;
}

/* One row of a column as a list, by kind (wp_module.h's WP_ROW_*). */
PyObject *wp_row_list(int kind, PyObject *column, Py_ssize_t start, Py_ssize_t stop,
                      PyObject *before, PyObject *after, PyObject *names)
{
    if (kind == WP_ROW_PAIRS)
        return row_list(column, 2 * sizeof(int64_t), start, stop, before, after, pair_item, NULL);
    if (kind == WP_ROW_NAMES)
        return row_list(column, sizeof(int32_t), start, stop, before, after, name_item, names);
    return row_list(column, sizeof(int32_t), start, stop, before, after, int_item, NULL);
}

/* int_list(column, start, stop, before, after): int32 items [start, stop) as ints */
PyObject *wp_int_list(PyObject *module, PyObject *args)
{
    PyObject *column, *before, *after;
    Py_ssize_t start, stop;
    if (!PyArg_ParseTuple(args, "OnnOO:int_list", &column, &start, &stop, &before, &after))
        return NULL;
    return row_list(column, sizeof(int32_t), start, stop, before, after, int_item, NULL);
}

/* pair_list(column, start, stop, before, after): int64 pairs [start, stop) as tuples */
PyObject *wp_pair_list(PyObject *module, PyObject *args)
{
    PyObject *column, *before, *after;
    Py_ssize_t start, stop;
    if (!PyArg_ParseTuple(args, "OnnOO:pair_list", &column, &start, &stop, &before, &after))
        return NULL;
    return row_list(column, 2 * sizeof(int64_t), start, stop, before, after, pair_item, NULL);
}

/* name_list(column, start, stop, names, before, after): names[id] for each int32 id */
PyObject *wp_name_list(PyObject *module, PyObject *args)
{
    PyObject *column, *names, *before, *after;
    Py_ssize_t start, stop;
    if (!PyArg_ParseTuple(args, "OnnO!OO:name_list", &column, &start, &stop, &PyList_Type,
                          &names, &before, &after))
        return NULL;
    return row_list(column, sizeof(int32_t), start, stop, before, after, name_item, names);
}
