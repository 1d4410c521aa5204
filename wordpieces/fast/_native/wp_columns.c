/* Build the Python lists of one row of a batch's flat columns (see backend.ColumnTokens).
 *
 * A native batch keeps its output as flat byte arrays (ids int32, offsets int64
 * pairs, word ids int32); a LazyEncoding reads one row of them when a list is first
 * asked for. These functions build that list in one pass, with the layout's extra
 * items (special tokens, padding) before and after it, instead of the three or four
 * intermediate lists the same work takes in Python. A pair's list is two rows with the
 * layout's items before, between and after them, built in the same single pass.
 * Not handled here: which items go around a row (lazy_encoding.Layout).
 */
#include "wp_columns.h"

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

/* A new list of n_rows rows with frames[0] before the first, frames[r] between rows
 * r - 1 and r and frames[n_rows] after the last (row r has sizes[r] items, left empty). */
static PyObject *framed_list(PyObject *const *frames, const Py_ssize_t *sizes, int n_rows)
{
    Py_ssize_t total = 0;
    for (int r = 0; r <= n_rows; r++) {
        if (!PyTuple_Check(frames[r])) {
            PyErr_Format(PyExc_TypeError, "the frames around rows must be tuples, got %s",
                         Py_TYPE(frames[r])->tp_name);
            return NULL;
        }
        total += PyTuple_GET_SIZE(frames[r]) + (r < n_rows ? sizes[r] : 0);
    }
    PyObject *list = PyList_New(total);
    Py_ssize_t at = 0;
    for (int r = 0; list && r <= n_rows; r++) {
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(frames[r]); i++) {
            PyObject *x = PyTuple_GET_ITEM(frames[r], i);
            Py_INCREF(x);
            PyList_SET_ITEM(list, at++, x);
        }
        at += r < n_rows ? sizes[r] : 0;
    }
    return list;
}

/* Offsets of short tokens near the start of a text repeat endlessly: (0, 5), (6, 9)...
 * Tuples are immutable, so one shared tuple per (start, length) serves every list; it
 * saves most allocations, and with them most of the garbage collector's runs (each
 * new tuple counts towards the next one). At most 2048 x 32 tuples (~4 MB), kept
 * (wp_columns.h: WP_PAIR_STARTS, WP_PAIR_LENGTHS; wp_lazy.c reads the cache inline). */
PyObject **wp_pair_cache;

PyObject *wp_offset_pair(int64_t a, int64_t b)
{
    if (a < 0 || a >= WP_PAIR_STARTS || b < a || b - a >= WP_PAIR_LENGTHS)
        return wp_int_pair(a, b);
    if (!wp_pair_cache &&
        !(wp_pair_cache = PyMem_Calloc(WP_PAIR_STARTS * WP_PAIR_LENGTHS, sizeof(PyObject *)))) {
        PyErr_NoMemory();
        return NULL;
    }
    PyObject **slot = &wp_pair_cache[a * WP_PAIR_LENGTHS + (b - a)];
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
    return wp_offset_pair(v[2 * i], v[2 * i + 1]);
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

/* frames[0] + row 0 + frames[1] + ... + row n_rows - 1 + frames[n_rows], each row
 * [bounds[2r], bounds[2r + 1]) of columns[r] read as `width`-byte items (n_rows <= 2) */
static PyObject *rows_list(int n_rows, PyObject *const *columns, const Py_ssize_t *bounds,
                           PyObject *const *frames, Py_ssize_t width, item_fn item,
                           PyObject *names)
{
    Py_buffer views[2];
    Py_ssize_t sizes[2];
    int held = 0;
    Py_ssize_t at = 0;
    PyObject *list = NULL;
    for (; held < n_rows; held++) {
        if (row_view(columns[held], width, bounds[2 * held], bounds[2 * held + 1],
                     &views[held]) < 0)
            goto done;
        sizes[held] = bounds[2 * held + 1] - bounds[2 * held];
    }
    list = framed_list(frames, sizes, n_rows);
    for (int r = 0; list && r < n_rows; r++) {
        at += PyTuple_GET_SIZE(frames[r]);
        for (Py_ssize_t i = bounds[2 * r]; list && i < bounds[2 * r + 1]; i++) {
            PyObject *x = item(views[r].buf, i, names);
            if (!x)
                Py_CLEAR(list);
            else
                PyList_SET_ITEM(list, at++, x);
        }
    }
done:
    while (held > 0)
        PyBuffer_Release(&views[--held]);
    return list;
}

/* before + [item(i) for i in range(start, stop)] + after, from `width`-byte items */
static PyObject *row_list(PyObject *column, Py_ssize_t width, Py_ssize_t start, Py_ssize_t stop,
                          PyObject *before, PyObject *after, item_fn item, PyObject *names)
{
    Py_ssize_t bounds[2] = {start, stop};
    PyObject *frames[2] = {before, after};
    return rows_list(1, &column, bounds, frames, width, item, names);
}

/* Rows of columns as one list, by kind (wp_module.h's WP_ROW_*): see rows_list. */
PyObject *wp_rows_list(int kind, int n_rows, PyObject *const *columns,
                       const Py_ssize_t *bounds, PyObject *const *frames, PyObject *names)
{
    if (n_rows < 1 || n_rows > 2) {
        PyErr_Format(PyExc_ValueError, "rows_list: %d rows (1 or 2 expected)", n_rows);
        return NULL;
    }
    if (kind == WP_ROW_PAIRS)
        return rows_list(n_rows, columns, bounds, frames, 2 * sizeof(int64_t), pair_item, NULL);
    if (kind == WP_ROW_NAMES)
        return rows_list(n_rows, columns, bounds, frames, sizeof(int32_t), name_item, names);
    return rows_list(n_rows, columns, bounds, frames, sizeof(int32_t), int_item, NULL);
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
