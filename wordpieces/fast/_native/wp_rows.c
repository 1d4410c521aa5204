/* Row: one text's raw tokens in a native batch's flat columns (backend.ColumnTokens).
 *
 * A LazyEncoding holds one Row per text and asks it for a list when one of its fields
 * is first read. Rows are made for a whole batch in one call (_core.rows), and hold
 * only bytearrays, which hold no objects: a Row can be in no reference cycle, so it is
 * not a garbage-collected type and the collector never scans the batch's rows.
 * The *_with methods build a pair's list: this row, then a second Row (the pair's
 * other sequence), with what goes before, between and after them; window() is the part
 * of a row that truncation keeps.
 * Row.lazy_field makes LazyField, the C form of lazy_encoding's field properties: one
 * C call per first read instead of two Python frames (see lazy_encoding.use_fields).
 * Not handled here: the lists themselves (wp_columns.c), what goes around them
 * (lazy_encoding.Layout, PairLayout).
 */
#include "wp_columns.h"
#include "structmember.h"

typedef struct {
    PyObject_HEAD
    PyObject *ids, *offsets, *word_ids; /* bytearrays: int32, int64 pairs, int32 */
    Py_ssize_t start, stop;
} RowObject;

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

enum { COLUMN_IDS, COLUMN_OFFSETS, COLUMN_WORD_IDS };

static PyObject *column_of(RowObject *row, int column)
{
    return column == COLUMN_OFFSETS ? row->offsets
           : column == COLUMN_WORD_IDS ? row->word_ids : row->ids;
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
    PyObject *columns[2] = {column_of(self, column), column_of(second, column)};
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

/* ---------------------------------------------------------------- LazyField
 * A data descriptor for one list of a LazyEncoding (lazy_encoding._lazy_field in C):
 * on read, the list in the encoding's slot if its _state bit is set, else the list built
 * from the encoding's raw tokens and layout frames, stored in the slot (bit and TOUCHED
 * set); on write, the value stored, bits set. Raw tokens that are Rows are read here;
 * any other kind through its methods, as the Python property calls them. */

enum { FIELD_CALL, FIELD_NAMES, FIELD_FILL }; /* list from a method; names; one value */

typedef struct {
    PyObject_HEAD
    PyTypeObject *owner;          /* the class whose slots the offsets are in */
    PyObject *method;             /* method name of the raw tokens (FIELD_CALL, NAMES) */
    PyObject *name;               /* the field's name, for errors */
    Py_ssize_t slot, state, raw, layout, second; /* slot offsets; second < 0: one row */
    Py_ssize_t frame;             /* index into layout.frames */
    long bit, touched;
    int kind, column;
} LazyFieldObject;

static PyTypeObject LazyFieldType;

#define SLOT(obj, offset) (*(PyObject **)((char *)(obj) + (offset)))

static void LazyField_dealloc(LazyFieldObject *self)
{
    Py_XDECREF(self->owner);
    Py_XDECREF(self->method);
    Py_XDECREF(self->name);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* [*frame[0], value * n1, *frame[1] (, value2 * n2, *frame[2])]: a per-token list. */
static PyObject *fill_list(PyObject *frame, int pair, Py_ssize_t n1, Py_ssize_t n2)
{
    Py_ssize_t parts = pair ? 3 : 2;
    if (!PyTuple_Check(frame) || PyTuple_GET_SIZE(frame) != parts + (pair ? 2 : 1)) {
        PyErr_SetString(PyExc_TypeError, "layout frame of a per-token list is malformed");
        return NULL;
    }
    Py_ssize_t total = n1 + n2;
    for (Py_ssize_t p = 0; p < parts; p++) {
        PyObject *group = PyTuple_GET_ITEM(frame, p);
        if (!PyTuple_Check(group)) {
            PyErr_SetString(PyExc_TypeError, "layout frame items must be tuples");
            return NULL;
        }
        total += PyTuple_GET_SIZE(group);
    }
    PyObject *out = PyList_New(total);
    if (!out)
        return NULL;
    Py_ssize_t k = 0;
    for (Py_ssize_t p = 0; p < parts; p++) {
        PyObject *group = PyTuple_GET_ITEM(frame, p);
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(group); i++) {
            PyObject *item = PyTuple_GET_ITEM(group, i);
            Py_INCREF(item);
            PyList_SET_ITEM(out, k++, item);
        }
        if (p + 1 < parts) {
            PyObject *value = PyTuple_GET_ITEM(frame, parts + p);
            Py_ssize_t n = p ? n2 : n1;
            for (Py_ssize_t i = 0; i < n; i++) {
                Py_INCREF(value);
                PyList_SET_ITEM(out, k++, value);
            }
        }
    }
    return out;
}

static Py_ssize_t raw_length(PyObject *raw)
{
    if (Py_IS_TYPE(raw, &WpRowType))
        return Row_length((RowObject *)raw);
    return PyObject_Size(raw);
}

/* Take the (start, end) tuples of an offsets list off the collector's list, as the
 * collector itself would at its first pass: a tuple of two ints is in no cycle. Why: a
 * batch's reads make a tuple per token, and scanning them, young, cost as much as
 * building them. */
static void untrack_pairs(PyObject *list)
{
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(list); i++) {
        PyObject *t = PyList_GET_ITEM(list, i);
        if (PyTuple_CheckExact(t) && PyTuple_GET_SIZE(t) == 2 && PyObject_GC_IsTracked(t)
            && PyLong_CheckExact(PyTuple_GET_ITEM(t, 0))
            && PyLong_CheckExact(PyTuple_GET_ITEM(t, 1)))
            PyObject_GC_UnTrack(t);
    }
}

/* The list from Rows, read here (frame: tuple of 2 or 3 tuples). */
static PyObject *row_field(LazyFieldObject *self, RowObject *raw, RowObject *second,
                           PyObject *frame, PyObject *names)
{
    int n_rows = second ? 2 : 1;
    if (!PyTuple_Check(frame) || PyTuple_GET_SIZE(frame) != n_rows + 1) {
        PyErr_SetString(PyExc_TypeError, "layout frame of a list is malformed");
        return NULL;
    }
    PyObject *columns[2] = {column_of(raw, self->column), NULL};
    Py_ssize_t bounds[4] = {raw->start, raw->stop, 0, 0};
    if (second) {
        columns[1] = column_of(second, self->column);
        bounds[2] = second->start;
        bounds[3] = second->stop;
    }
    int kind = self->kind == FIELD_NAMES ? WP_ROW_NAMES
               : self->column == COLUMN_OFFSETS ? WP_ROW_PAIRS : WP_ROW_INTS;
    PyObject *out = wp_rows_list(kind, n_rows, columns, bounds, &PyTuple_GET_ITEM(frame, 0),
                                 names);
    if (out && kind == WP_ROW_PAIRS)
        untrack_pairs(out);
    return out;
}

/* The list from raw tokens of another kind: raw.method(*args, *frame). */
static PyObject *call_field(LazyFieldObject *self, PyObject *raw, PyObject *second,
                            PyObject *frame, PyObject *names)
{
    if (!PyTuple_Check(frame) || PyTuple_GET_SIZE(frame) > 3) {
        PyErr_SetString(PyExc_TypeError, "layout frame of a list is malformed");
        return NULL;
    }
    PyObject *args[7];
    Py_ssize_t n = 0;
    args[n++] = raw;
    if (names)
        args[n++] = names;
    if (second)
        args[n++] = second;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(frame); i++)
        args[n++] = PyTuple_GET_ITEM(frame, i);
    return PyObject_VectorcallMethod(self->method, args, (size_t)n, NULL);
}

static PyObject *build_field(LazyFieldObject *self, PyObject *obj)
{
    static PyObject *frames_name, *names_name;
    if (!frames_name && !(frames_name = PyUnicode_InternFromString("frames")))
        return NULL;
    if (!names_name && !(names_name = PyUnicode_InternFromString("id_tokens")))
        return NULL;
    PyObject *raw = SLOT(obj, self->raw), *layout = SLOT(obj, self->layout);
    PyObject *second = self->second >= 0 ? SLOT(obj, self->second) : NULL;
    if (!raw || !layout || (self->second >= 0 && !second)) {
        PyErr_Format(PyExc_AttributeError, "%U: the encoding has no raw tokens or layout",
                     self->name);
        return NULL;
    }
    PyObject *frames = PyObject_GetAttr(layout, frames_name);
    if (!frames)
        return NULL;
    if (!PyTuple_Check(frames) || PyTuple_GET_SIZE(frames) <= self->frame) {
        Py_DECREF(frames);
        PyErr_SetString(PyExc_TypeError, "layout.frames must be a tuple of every field's frame");
        return NULL;
    }
    PyObject *frame = PyTuple_GET_ITEM(frames, self->frame), *out = NULL, *names = NULL;
    if (self->kind == FIELD_FILL) {
        Py_ssize_t n1 = raw_length(raw), n2 = second ? raw_length(second) : 0;
        if (n1 >= 0 && n2 >= 0)
            out = fill_list(frame, second != NULL, n1, n2);
    } else if (self->kind == FIELD_NAMES && !(names = PyObject_GetAttr(layout, names_name))) {
        /* error set */
    } else if (Py_IS_TYPE(raw, &WpRowType) && (!second || Py_IS_TYPE(second, &WpRowType))
               && (!names || PyList_Check(names))) {
        out = row_field(self, (RowObject *)raw, (RowObject *)second, frame, names);
    } else {
        out = call_field(self, raw, second, frame, names);
    }
    Py_XDECREF(names);
    Py_DECREF(frames);
    return out;
}

static int mark(LazyFieldObject *self, PyObject *obj, long bits)
{
    PyObject *state = SLOT(obj, self->state);
    long now = state ? PyLong_AsLong(state) : 0;
    if (now == -1 && PyErr_Occurred())
        return -1;
    PyObject *next = PyLong_FromLong(now | bits);
    if (!next)
        return -1;
    SLOT(obj, self->state) = next;
    Py_XDECREF(state);
    return 0;
}

static int check_owner(LazyFieldObject *self, PyObject *obj)
{
    if (PyObject_TypeCheck(obj, self->owner))
        return 0;
    PyErr_Format(PyExc_TypeError, "descriptor '%U' for '%s' objects doesn't apply to a '%s' "
                 "object", self->name, self->owner->tp_name, Py_TYPE(obj)->tp_name);
    return -1;
}

static PyObject *LazyField_get(LazyFieldObject *self, PyObject *obj, PyObject *type)
{
    (void)type;
    if (!obj || obj == Py_None) {
        Py_INCREF(self);
        return (PyObject *)self;
    }
    if (check_owner(self, obj) < 0)
        return NULL;
    PyObject *state = SLOT(obj, self->state);
    long now = state ? PyLong_AsLong(state) : 0;
    if (now == -1 && PyErr_Occurred())
        return NULL;
    if (now & self->bit) {
        PyObject *value = SLOT(obj, self->slot);
        if (!value) {
            PyErr_Format(PyExc_AttributeError, "'%s' object has no attribute '%U'",
                         Py_TYPE(obj)->tp_name, self->name);
            return NULL;
        }
        Py_INCREF(value);
        return value;
    }
    PyObject *value = build_field(self, obj);
    if (!value)
        return NULL;
    PyObject *old = SLOT(obj, self->slot);
    Py_INCREF(value);
    SLOT(obj, self->slot) = value;
    Py_XDECREF(old);
    if (mark(self, obj, self->bit | self->touched) < 0) {
        Py_DECREF(value);
        return NULL;
    }
    return value;
}

static int LazyField_set(LazyFieldObject *self, PyObject *obj, PyObject *value)
{
    if (check_owner(self, obj) < 0)
        return -1;
    if (!value) {
        PyErr_Format(PyExc_AttributeError, "property '%U' of '%s' object has no deleter",
                     self->name, Py_TYPE(obj)->tp_name);
        return -1;
    }
    PyObject *old = SLOT(obj, self->slot);
    Py_INCREF(value);
    SLOT(obj, self->slot) = value;
    Py_XDECREF(old);
    return mark(self, obj, self->bit | self->touched);
}

static PyObject *LazyField_doc(LazyFieldObject *self, void *closure)
{
    (void)closure;
    return PyUnicode_FromFormat("%U (built on first read)", self->name);
}

static PyGetSetDef LazyField_getset[] = {
    {"__doc__", (getter)LazyField_doc, NULL, NULL, NULL}, {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject LazyFieldType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "wordpieces.fast._native._core.LazyField",
    .tp_basicsize = sizeof(LazyFieldObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "One list of a LazyEncoding, built from its raw tokens on first read.",
    .tp_dealloc = (destructor)LazyField_dealloc,
    .tp_descr_get = (descrgetfunc)LazyField_get,
    .tp_descr_set = (descrsetfunc)LazyField_set,
    .tp_getset = LazyField_getset,
};

/* The offset of the object slot `descr` (a member descriptor) in instances of `owner`. */
static Py_ssize_t descr_offset(PyTypeObject *owner, PyObject *descr, const char *name)
{
    if (Py_IS_TYPE(descr, &PyMemberDescr_Type)) {
        PyMemberDef *member = ((PyMemberDescrObject *)descr)->d_member;
        if (member->type == T_OBJECT_EX && !(member->flags & READONLY)
            && PyType_IsSubtype(owner, PyDescr_TYPE(descr)))
            return member->offset;
    }
    PyErr_Format(PyExc_TypeError, "lazy_field: %s of %s is not one of its object slots", name,
                 owner->tp_name);
    return -1;
}

/* The offset of slot `name` of `owner`, looked up on the class. */
static Py_ssize_t slot_offset(PyTypeObject *owner, const char *name)
{
    PyObject *descr = PyObject_GetAttrString((PyObject *)owner, name);
    if (!descr)
        return -1;
    Py_ssize_t offset = descr_offset(owner, descr, name);
    Py_DECREF(descr);
    return offset;
}

/* lazy_field(owner, field, slot, index, kind, method, pair, touched) -> LazyField:
 * the list `field` (stored in the slot whose member descriptor is `slot`, of owner, a class with slots _state, _raw,
 * _layout and, for a pair, _second), built from layout.frames[index] by `kind`
 * ("call": raw.method(*frame), "names": raw.method(id_tokens, *frame), "fill": one value
 * per token); its _state bit is 1 << index, `touched` the bit of any read or write. */
static PyObject *Row_lazy_field(PyObject *unused, PyObject *args)
{
    (void)unused;
    PyObject *owner, *field, *slot;
    const char *kind, *method;
    Py_ssize_t index;
    int pair;
    long touched;
    if (!PyArg_ParseTuple(args, "O!UOnsspl:lazy_field", &PyType_Type, &owner, &field, &slot,
                          &index, &kind, &method, &pair, &touched))
        return NULL;
    if (index < 0 || index >= 31) {
        PyErr_Format(PyExc_ValueError, "lazy_field: index %zd out of range", index);
        return NULL;
    }
    int k = !strcmp(kind, "call") ? FIELD_CALL : !strcmp(kind, "names") ? FIELD_NAMES
            : !strcmp(kind, "fill") ? FIELD_FILL : -1;
    if (k < 0) {
        PyErr_Format(PyExc_ValueError, "lazy_field: kind %s (call, names or fill)", kind);
        return NULL;
    }
    if (PyType_Ready(&LazyFieldType) < 0)
        return NULL;
    PyTypeObject *type = (PyTypeObject *)owner;
    LazyFieldObject *self = PyObject_New(LazyFieldObject, &LazyFieldType);
    if (!self)
        return NULL;
    self->owner = NULL;
    self->name = NULL;
    self->method = NULL;
    self->slot = descr_offset(type, slot, "the field's slot");
    self->state = self->slot < 0 ? -1 : slot_offset(type, "_state");
    self->raw = self->state < 0 ? -1 : slot_offset(type, "_raw");
    self->layout = self->raw < 0 ? -1 : slot_offset(type, "_layout");
    self->second = !pair || self->layout < 0 ? -1 : slot_offset(type, "_second");
    if (self->layout < 0 || (pair && self->second < 0)) {
        Py_DECREF(self);
        return NULL;
    }
    Py_INCREF(owner);
    self->owner = type;
    Py_INCREF(field);
    self->name = field;
    self->method = PyUnicode_FromString(method);
    if (!self->method) {
        Py_DECREF(self);
        return NULL;
    }
    PyUnicode_InternInPlace(&self->method);
    self->frame = index;
    self->bit = 1L << index;
    self->touched = touched;
    self->kind = k;
    self->column = strstr(method, "offsets") ? COLUMN_OFFSETS
                   : strstr(method, "word_ids") ? COLUMN_WORD_IDS : COLUMN_IDS;
    return (PyObject *)self;
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
    {"lazy_field", (PyCFunction)Row_lazy_field, METH_VARARGS | METH_STATIC,
     "lazy_field(owner, field, slot, index, kind, method, pair, touched) -> a LazyField"},
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
