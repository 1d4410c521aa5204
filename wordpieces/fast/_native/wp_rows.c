/* Row: one text's raw tokens in a native batch's flat columns (backend.ColumnTokens).
 *
 * A LazyEncoding holds one Row per text and asks it for a list when one of its fields
 * is first read. Rows are made for a whole batch in one call (_core.rows), and hold
 * only bytearrays, which hold no objects: a Row can be in no reference cycle, so it is
 * not a garbage-collected type and the collector never scans the batch's rows.
 * The *_with methods build a pair's list: this row, then a second Row (the pair's
 * other sequence), with what goes before, between and after them; window() is the part
 * of a row that truncation keeps.
 * Row.lazy_field and Row.lazy_encodings are wp_lazy.c's: a LazyEncoding's lists read in
 * C, and a batch's encodings made in one call.
 * Not handled here: the lists themselves (wp_columns.c), what goes around them
 * (lazy_encoding.Layout, PairLayout).
 */
#include "wp_rows.h"

static void Row_dealloc(RowObject *self)
{
    Py_XDECREF(self->ids);
    Py_XDECREF(self->offsets);
    Py_XDECREF(self->word_ids);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static Py_ssize_t Row_length(RowObject *self)
{
    return self->stop - self->start;
}

/* (before=(), after=()) from a fast call's arguments, after `skip` leading ones. */
static int frame_args(PyObject *const *args, Py_ssize_t nargs, Py_ssize_t skip,
                      PyObject **before, PyObject **after, const char *name)
{
    static PyObject *empty;
    if (!empty && !(empty = PyTuple_New(0)))
        return -1;
    if (nargs < skip || nargs > skip + 2) {
        PyErr_Format(PyExc_TypeError, "%s() takes %zd to %zd arguments (%zd given)", name,
                     skip, skip + 2, nargs);
        return -1;
    }
    *before = nargs > skip ? args[skip] : empty;
    *after = nargs > skip + 1 ? args[skip + 1] : empty;
    return 0;
}

static PyObject *Row_ids(RowObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *before, *after;
    if (frame_args(args, nargs, 0, &before, &after, "ids") < 0)
        return NULL;
    return wp_row_list(WP_ROW_INTS, self->ids, self->start, self->stop, before, after, NULL);
}

static PyObject *Row_word_ids(RowObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *before, *after;
    if (frame_args(args, nargs, 0, &before, &after, "word_ids") < 0)
        return NULL;
    return wp_row_list(WP_ROW_INTS, self->word_ids, self->start, self->stop, before, after,
                       NULL);
}

static PyObject *Row_offsets(RowObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *before, *after;
    if (frame_args(args, nargs, 0, &before, &after, "offsets") < 0)
        return NULL;
    return wp_row_list(WP_ROW_PAIRS, self->offsets, self->start, self->stop, before, after,
                       NULL);
}

static PyObject *Row_tokens(RowObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *before, *after;
    if (frame_args(args, nargs, 1, &before, &after, "tokens") < 0)
        return NULL;
    if (!PyList_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "tokens(names, ...): names must be a list");
        return NULL;
    }
    return wp_row_list(WP_ROW_NAMES, self->ids, self->start, self->stop, before, after,
                       args[0]);
}

/* One list (kind, from `column`) of this row and `second` (a Row), framed by
 * (before, middle, after): args[skip:] are (second, before, middle, after). */
static PyObject *row_pair_list(RowObject *self, int kind, int column, PyObject *const *args,
                               Py_ssize_t nargs, Py_ssize_t skip, const char *name)
{
    if (nargs != skip + 4) {
        PyErr_Format(PyExc_TypeError, "%s() takes %zd arguments (%zd given)", name, skip + 4,
                     nargs);
        return NULL;
    }
    if (!PyObject_TypeCheck(args[skip], &WpRowType)) {
        PyErr_Format(PyExc_TypeError, "%s(): the second sequence must be a Row, not %s", name,
                     Py_TYPE(args[skip])->tp_name);
        return NULL;
    }
    RowObject *second = (RowObject *)args[skip];
    PyObject *columns[2] = {wp_row_column(self, column), wp_row_column(second, column)};
    Py_ssize_t bounds[4] = {self->start, self->stop, second->start, second->stop};
    return wp_rows_list(kind, 2, columns, bounds, args + skip + 1, skip ? args[0] : NULL);
}

static PyObject *Row_ids_with(RowObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    return row_pair_list(self, WP_ROW_INTS, COLUMN_IDS, args, nargs, 0, "ids_with");
}

static PyObject *Row_word_ids_with(RowObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    return row_pair_list(self, WP_ROW_INTS, COLUMN_WORD_IDS, args, nargs, 0, "word_ids_with");
}

static PyObject *Row_offsets_with(RowObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    return row_pair_list(self, WP_ROW_PAIRS, COLUMN_OFFSETS, args, nargs, 0, "offsets_with");
}

static PyObject *Row_tokens_with(RowObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 1 || !PyList_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "tokens_with(names, ...): names must be a list");
        return NULL;
    }
    return row_pair_list(self, WP_ROW_NAMES, COLUMN_IDS, args, nargs, 1, "tokens_with");
}

/* window(start, stop) -> a Row of tokens [start, stop) of this one (the part truncation
 * keeps), over the same columns */
static PyObject *Row_window(RowObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "window() takes 2 arguments (%zd given)", nargs);
        return NULL;
    }
    Py_ssize_t start = PyLong_AsSsize_t(args[0]), stop = PyLong_AsSsize_t(args[1]);
    if ((start == -1 || stop == -1) && PyErr_Occurred())
        return NULL;
    if (start < 0 || stop < start || stop > self->stop - self->start) {
        PyErr_Format(PyExc_IndexError, "window [%zd, %zd) is outside a row of %zd tokens",
                     start, stop, self->stop - self->start);
        return NULL;
    }
    RowObject *row = PyObject_New(RowObject, &WpRowType);
    if (!row)
        return NULL;
    Py_INCREF(self->ids);
    Py_INCREF(self->offsets);
    Py_INCREF(self->word_ids);
    row->ids = self->ids;
    row->offsets = self->offsets;
    row->word_ids = self->word_ids;
    row->start = self->start + start;
    row->stop = self->start + stop;
    return (PyObject *)row;
}

static PyMethodDef Row_methods[] = {
    {"ids", (PyCFunction)(void (*)(void))Row_ids, METH_FASTCALL,
     "ids(before=(), after=()) -> before + this row's ids + after"},
    {"tokens", (PyCFunction)(void (*)(void))Row_tokens, METH_FASTCALL,
     "tokens(names, before=(), after=()) -> the names of the ids, framed"},
    {"offsets", (PyCFunction)(void (*)(void))Row_offsets, METH_FASTCALL,
     "offsets(before=(), after=()) -> (start, end) tuples, framed"},
    {"word_ids", (PyCFunction)(void (*)(void))Row_word_ids, METH_FASTCALL,
     "word_ids(before=(), after=()) -> word indices, framed"},
    {"ids_with", (PyCFunction)(void (*)(void))Row_ids_with, METH_FASTCALL,
     "ids_with(second, before, middle, after) -> before + ids + middle + second's + after"},
    {"tokens_with", (PyCFunction)(void (*)(void))Row_tokens_with, METH_FASTCALL,
     "tokens_with(names, second, before, middle, after) -> the names of both rows' ids"},
    {"offsets_with", (PyCFunction)(void (*)(void))Row_offsets_with, METH_FASTCALL,
     "offsets_with(second, before, middle, after) -> both rows' offsets, framed"},
    {"word_ids_with", (PyCFunction)(void (*)(void))Row_word_ids_with, METH_FASTCALL,
     "word_ids_with(second, before, middle, after) -> both rows' word indices, framed"},
    {"window", (PyCFunction)(void (*)(void))Row_window, METH_FASTCALL,
     "window(start, stop) -> a Row of this row's tokens [start, stop)"},
    {"lazy_field", (PyCFunction)wp_lazy_field, METH_VARARGS | METH_STATIC,
     "lazy_field(owner, field, slot, index, kind, method, pair, touched) -> a LazyField"},
    {"lazy_encodings", (PyCFunction)(void (*)(void))wp_lazy_encodings,
     METH_FASTCALL | METH_STATIC,
     "lazy_encodings(cls, raws, layout) -> [a fresh cls(raw, layout) per raw]"},
    {NULL, NULL, 0, NULL}};

static PySequenceMethods Row_as_sequence = {.sq_length = (lenfunc)Row_length};

PyTypeObject WpRowType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "wordpieces.fast._native._core.Row",
    .tp_basicsize = sizeof(RowObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "One text's tokens in a native batch's columns (made by rows()).",
    .tp_dealloc = (destructor)Row_dealloc,
    .tp_as_sequence = &Row_as_sequence,
    .tp_methods = Row_methods,
};

/* rows(ids, offsets, word_ids, row_splits) -> [Row] per text; the columns are the
 * bytearrays encode_batch(..., offsets=True, arrays=True) returns. */
PyObject *wp_rows(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *ids, *offsets, *word_ids, *splits;
    if (!PyArg_ParseTuple(args, "O!O!O!O!:rows", &PyByteArray_Type, &ids, &PyByteArray_Type,
                          &offsets, &PyByteArray_Type, &word_ids, &PyByteArray_Type, &splits))
        return NULL;
    Py_ssize_t n = PyByteArray_GET_SIZE(splits) / (Py_ssize_t)sizeof(int64_t) - 1;
    if (n < 0) {
        PyErr_SetString(PyExc_ValueError, "rows: row_splits is empty");
        return NULL;
    }
    const int64_t *sp = (const int64_t *)PyByteArray_AS_STRING(splits);
    PyObject *out = PyList_New(n);
    for (Py_ssize_t i = 0; out && i < n; i++) {
        RowObject *row = PyObject_New(RowObject, &WpRowType);
        if (!row) {
            Py_CLEAR(out);
            break;
        }
        Py_INCREF(ids);
        Py_INCREF(offsets);
        Py_INCREF(word_ids);
        row->ids = ids;
        row->offsets = offsets;
        row->word_ids = word_ids;
        row->start = (Py_ssize_t)sp[i];
        row->stop = (Py_ssize_t)sp[i + 1];
        PyList_SET_ITEM(out, i, (PyObject *)row);
    }
    return out;
}
