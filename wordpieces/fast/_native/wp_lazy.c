/* A LazyEncoding's parts in C: its lists on first read (LazyField) and a batch's
 * encodings made in one call (lazy_encodings).
 *
 * LazyField is the C form of lazy_encoding._lazy_field: a data descriptor for one list
 * of a LazyEncoding. On read it gives the list in the encoding's slot if its _state bit
 * is set, else builds it from the encoding's raw tokens and layout frames, stores it in
 * the slot and sets the bit and TOUCHED; on write it stores the value and sets them.
 * Raw tokens that are Rows are read here, straight from their columns; any other kind
 * through its methods, as the Python property calls them. Why: a first read through a
 * property runs two Python frames, several times what building the list costs.
 *
 * lazy_encodings(cls, raws, layout) is lazy_encoding.lazy_encodings: one fresh encoding
 * per raw tokens, its slots set directly (a Python __init__ per text cost as much as
 * encoding a short line).
 *
 * Not handled here: the Row type and its methods (wp_rows.c), what goes around a row
 * (lazy_encoding.Layout, PairLayout).
 */
#include "wp_rows.h"
#include "structmember.h"

#include <string.h>

#define SLOT(obj, offset) (*(PyObject **)((char *)(obj) + (offset)))

/* ---------------------------------------------------------------- ids as ints
 * One int object per id, made when the id is first read and kept: a list of ids then
 * allocates nothing per item, and the collector, which visits every item of every list
 * it scans, finds the same few objects again (most of a large vocabulary's ids are
 * above CPython's small ints and wp_batch.c's cache). Ids from WP_ID_INTS on are made
 * each time. At most 2^18 pointers and the ints of the ids read (~10 MB at worst). */
#define WP_ID_INTS (1 << 18)
static PyObject **id_ints;
static Py_ssize_t id_ints_size;

static PyObject *id_int_slow(int64_t v)
{
    if (v < 0 || v >= WP_ID_INTS)
        return PyLong_FromLongLong((long long)v);
    if (v >= id_ints_size) {
        Py_ssize_t size = id_ints_size ? id_ints_size : 32768;
        while (size <= v)
            size *= 2;
        PyObject **grown = PyMem_Realloc(id_ints, (size_t)size * sizeof(PyObject *));
        if (!grown)
            return PyErr_NoMemory();
        memset(grown + id_ints_size, 0, (size_t)(size - id_ints_size) * sizeof(PyObject *));
        id_ints = grown;
        id_ints_size = size;
    }
    if (!id_ints[v] && !(id_ints[v] = PyLong_FromLongLong((long long)v)))
        return NULL;
    Py_INCREF(id_ints[v]);
    return id_ints[v];
}

static inline PyObject *id_int(int64_t v)
{
    if (v >= 0 && v < id_ints_size && id_ints[v]) {
        Py_INCREF(id_ints[v]);
        return id_ints[v];
    }
    return id_int_slow(v);
}

/* ---------------------------------------------------------------- lists from Rows */

/* A lazy list holds only atomic values (ints, None, names, untracked (start, end) pairs
 * of ints: the row's and the layout's extras), so no cycle passes through it: it is left
 * out of the cyclic collector, as wp_finish_batch.c's rows (wp_untrack_row). Tracked,
 * every young and generation-1 collection scanned its items while a batch was read (a
 * third of the instructions of encode_batch + reading ids, offsets and mask). A list a
 * user later fills with containers stays untracked: a cycle made through it is not
 * collected (freed when its references go). NULL is passed through. */
static PyObject *untracked(PyObject *list)
{
    if (list)
        PyObject_GC_UnTrack(list);
    return list;
}

enum { LIST_INTS, LIST_PAIRS, LIST_NAMES }; /* items: ints, (start, end) tuples, names */

static int tuple_frames(PyObject *const *frames, int n)
{
    for (int i = 0; i < n; i++)
        if (!PyTuple_Check(frames[i])) {
            PyErr_Format(PyExc_TypeError, "the frames around rows must be tuples, got %s",
                         Py_TYPE(frames[i])->tp_name);
            return -1;
        }
    return 0;
}

/* Items [start, stop) of a row's column as list items from `at` on. */
static int put_row(PyObject *list, Py_ssize_t at, int kind, const char *data, Py_ssize_t start,
                   Py_ssize_t stop, PyObject *names)
{
    PyObject **items = ((PyListObject *)list)->ob_item + at;
    if (kind == LIST_PAIRS) {
        const int64_t *v = (const int64_t *)data;
        for (Py_ssize_t i = start; i < stop; i++) {
            int64_t a = v[2 * i], b = v[2 * i + 1];
            PyObject *pair = wp_pair_cache && a >= 0 && a < WP_PAIR_STARTS && b >= a
                             && b - a < WP_PAIR_LENGTHS
                             ? wp_pair_cache[a * WP_PAIR_LENGTHS + (b - a)] : NULL;
            if (pair)
                Py_INCREF(pair);
            else if (!(pair = wp_offset_pair(a, b)))
                return -1;
            *items++ = pair;
        }
        return 0;
    }
    const int32_t *v = (const int32_t *)data;
    if (kind == LIST_INTS) {
        for (Py_ssize_t i = start; i < stop; i++)
            if (!(*items++ = id_int(v[i])))
                return -1;
        return 0;
    }
    Py_ssize_t n_names = PyList_GET_SIZE(names);
    for (Py_ssize_t i = start; i < stop; i++) {
        if (v[i] < 0 || v[i] >= n_names) {
            PyErr_Format(PyExc_IndexError, "id %d has no token (vocabulary of %zd)", v[i],
                         n_names);
            return -1;
        }
        PyObject *name = PyList_GET_ITEM(names, v[i]);
        Py_INCREF(name);
        *items++ = name;
    }
    return 0;
}

/* frames[0] + row 0 + frames[1] (+ row 1 + frames[2]): a new list of `kind` items from
 * the rows' `column` (n_rows is 1 or 2; names, a list, for LIST_NAMES). The rows'
 * columns are bytearrays only Rows hold, never resized. */
static PyObject *rows_list(int kind, int column, RowObject *const *rows, int n_rows,
                           PyObject *const *frames, PyObject *names)
{
    Py_ssize_t width = kind == LIST_PAIRS ? 2 * (Py_ssize_t)sizeof(int64_t) : sizeof(int32_t);
    if (tuple_frames(frames, n_rows + 1) < 0)
        return NULL;
    Py_ssize_t total = PyTuple_GET_SIZE(frames[n_rows]);
    for (int r = 0; r < n_rows; r++) {
        PyObject *col = wp_row_column(rows[r], column);
        if (!PyByteArray_Check(col) || rows[r]->start < 0 || rows[r]->stop < rows[r]->start
            || rows[r]->stop > PyByteArray_GET_SIZE(col) / width) {
            PyErr_SetString(PyExc_IndexError, "a row is outside its column");
            return NULL;
        }
        total += PyTuple_GET_SIZE(frames[r]) + rows[r]->stop - rows[r]->start;
    }
    PyObject *list = PyList_New(total);
    if (!list)
        return NULL;
    /* Filled in order; on an error the rest stays NULL, which list_dealloc skips. */
    Py_ssize_t at = 0;
    for (int r = 0; r <= n_rows; r++) {
        PyObject *frame = frames[r];
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(frame); i++) {
            PyObject *x = PyTuple_GET_ITEM(frame, i);
            Py_INCREF(x);
            PyList_SET_ITEM(list, at++, x);
        }
        if (r == n_rows)
            break;
        const RowObject *row = rows[r];
        const char *data = PyByteArray_AS_STRING(wp_row_column(rows[r], column));
        if (put_row(list, at, kind, data, row->start, row->stop, names) < 0) {
            Py_DECREF(list);
            return NULL;
        }
        at += row->stop - row->start;
    }
    return untracked(list);
}

/* [*frame[0], value * n1, *frame[1] (, value2 * n2, *frame[2])]: a per-token list. */
static PyObject *fill_list(PyObject *frame, int pair, Py_ssize_t n1, Py_ssize_t n2)
{
    Py_ssize_t parts = pair ? 3 : 2;
    if (!PyTuple_Check(frame) || PyTuple_GET_SIZE(frame) != parts + (pair ? 2 : 1)) {
        PyErr_SetString(PyExc_TypeError, "layout frame of a per-token list is malformed");
        return NULL;
    }
    if (tuple_frames(&PyTuple_GET_ITEM(frame, 0), (int)parts) < 0)
        return NULL;
    Py_ssize_t total = n1 + n2;
    for (Py_ssize_t p = 0; p < parts; p++)
        total += PyTuple_GET_SIZE(PyTuple_GET_ITEM(frame, p));
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
    return untracked(out);
}

/* ---------------------------------------------------------------- LazyField */

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
    /* The last layout read, its frame for this field and its id_tokens (FIELD_NAMES):
     * most encodings of a batch share one layout, and reading frames off it by name
     * cost about what building a short list does. Kept alive with it. */
    PyObject *seen_layout, *seen_frame, *seen_names;
} LazyFieldObject;

static PyTypeObject LazyFieldType;

static void LazyField_dealloc(LazyFieldObject *self)
{
    Py_XDECREF(self->owner);
    Py_XDECREF(self->method);
    Py_XDECREF(self->name);
    Py_XDECREF(self->seen_layout);
    Py_XDECREF(self->seen_frame);
    Py_XDECREF(self->seen_names);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Read layout.frames[self->frame] (and id_tokens) into the seen_* fields: 0, or -1. */
static int see_layout(LazyFieldObject *self, PyObject *layout)
{
    static PyObject *frames_name, *names_name;
    if (layout == self->seen_layout)
        return 0;
    if (!frames_name && !(frames_name = PyUnicode_InternFromString("frames")))
        return -1;
    if (!names_name && !(names_name = PyUnicode_InternFromString("id_tokens")))
        return -1;
    PyObject *frames = PyObject_GetAttr(layout, frames_name), *names = NULL;
    if (!frames)
        return -1;
    if (!PyTuple_Check(frames) || PyTuple_GET_SIZE(frames) <= self->frame) {
        Py_DECREF(frames);
        PyErr_SetString(PyExc_TypeError, "layout.frames must be a tuple of every field's frame");
        return -1;
    }
    if (self->kind == FIELD_NAMES && !(names = PyObject_GetAttr(layout, names_name))) {
        Py_DECREF(frames);
        return -1;
    }
    PyObject *frame = PyTuple_GET_ITEM(frames, self->frame);
    Py_INCREF(frame);
    Py_DECREF(frames);
    Py_INCREF(layout);
    Py_XSETREF(self->seen_layout, layout);
    Py_XSETREF(self->seen_frame, frame);
    Py_XSETREF(self->seen_names, names);
    return 0;
}

static Py_ssize_t raw_length(PyObject *raw)
{
    if (Py_IS_TYPE(raw, &WpRowType))
        return ((RowObject *)raw)->stop - ((RowObject *)raw)->start;
    return PyObject_Size(raw);
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
    PyObject *raw = SLOT(obj, self->raw), *layout = SLOT(obj, self->layout);
    PyObject *second = self->second >= 0 ? SLOT(obj, self->second) : NULL;
    if (!raw || !layout || (self->second >= 0 && !second)) {
        PyErr_Format(PyExc_AttributeError, "%U: the encoding has no raw tokens or layout",
                     self->name);
        return NULL;
    }
    if (see_layout(self, layout) < 0)
        return NULL;
    /* held here: reading the raw tokens' methods may replace what self holds */
    PyObject *frame = self->seen_frame, *names = self->seen_names, *out = NULL;
    Py_INCREF(frame);
    Py_XINCREF(names);
    if (self->kind == FIELD_FILL) {
        Py_ssize_t n1 = raw_length(raw), n2 = second ? raw_length(second) : 0;
        if (n1 >= 0 && n2 >= 0)
            out = fill_list(frame, second != NULL, n1, n2);
    } else if (Py_IS_TYPE(raw, &WpRowType) && (!second || Py_IS_TYPE(second, &WpRowType))
               && (!names || PyList_Check(names))) {
        int n_rows = second ? 2 : 1;
        RowObject *rows[2] = {(RowObject *)raw, (RowObject *)second};
        if (!PyTuple_Check(frame) || PyTuple_GET_SIZE(frame) != n_rows + 1)
            PyErr_SetString(PyExc_TypeError, "layout frame of a list is malformed");
        else
            out = rows_list(names ? LIST_NAMES : self->column == COLUMN_OFFSETS ? LIST_PAIRS
                            : LIST_INTS, self->column, rows, n_rows,
                            &PyTuple_GET_ITEM(frame, 0), names);
    } else {
        out = call_field(self, raw, second, frame, names);
    }
    Py_DECREF(frame);
    Py_XDECREF(names);
    return out;
}

/* Set `bits` in obj's _state, whose value is `now` (-1: not read yet). */
static int mark(LazyFieldObject *self, PyObject *obj, long now, long bits)
{
    PyObject *state = SLOT(obj, self->state);
    if (now < 0) {
        now = state ? PyLong_AsLong(state) : 0;
        if (now == -1 && PyErr_Occurred())
            return -1;
    }
    if ((now | bits) == now && state)
        return 0;
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
    Py_XINCREF(state); /* held: building from other raw tokens runs Python code */
    PyObject *value = build_field(self, obj);
    int same = SLOT(obj, self->state) == state;
    Py_XDECREF(state);
    if (!value)
        return NULL;
    PyObject *old = SLOT(obj, self->slot);
    Py_INCREF(value);
    SLOT(obj, self->slot) = value;
    Py_XDECREF(old);
    if (mark(self, obj, same ? now : -1, self->bit | self->touched) < 0) {
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
    return mark(self, obj, -1, self->bit | self->touched);
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
 * the list `field` (stored in the slot whose member descriptor is `slot`, of owner, a
 * class with slots _state, _raw, _layout and, for a pair, _second), built from
 * layout.frames[index] by `kind` ("call": raw.method(*frame), "names":
 * raw.method(id_tokens, *frame), "fill": one value per token); its _state bit is
 * 1 << index, `touched` the bit of any read or write. */
PyObject *wp_lazy_field(PyObject *unused, PyObject *args)
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
    self->seen_layout = self->seen_frame = self->seen_names = NULL;
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

/* ---------------------------------------------------------------- lazy_encodings */

/* lazy_encodings(cls, raws, layout) -> [fresh cls per item of raws (a list)]: each with
 * _raw the item, _layout `layout` and _state 0, as cls(raw, layout) would set them;
 * cls (LazyEncoding) has those slots and an __init__ that sets only them. */
PyObject *wp_lazy_encodings(PyObject *unused, PyObject *const *args, Py_ssize_t nargs)
{
    (void)unused;
    if (nargs != 3 || !PyType_Check(args[0]) || !PyList_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "lazy_encodings(cls, raws, layout): a class, a list "
                        "and a layout");
        return NULL;
    }
    PyTypeObject *type = (PyTypeObject *)args[0];
    PyObject *raws = args[1], *layout = args[2];
    Py_ssize_t raw = slot_offset(type, "_raw");
    Py_ssize_t at = raw < 0 ? -1 : slot_offset(type, "_layout");
    Py_ssize_t state = at < 0 ? -1 : slot_offset(type, "_state");
    if (state < 0)
        return NULL;
    PyObject *zero = PyLong_FromLong(0);
    Py_ssize_t n = PyList_GET_SIZE(raws);
    PyObject *out = zero ? PyList_New(n) : NULL;
    for (Py_ssize_t i = 0; out && i < n; i++) {
        PyObject *enc = type->tp_alloc(type, 0);
        if (!enc || i >= PyList_GET_SIZE(raws)) { /* raws changed while enc was made */
            if (enc)
                PyErr_SetString(PyExc_RuntimeError, "lazy_encodings: raws changed size");
            Py_XDECREF(enc);
            Py_CLEAR(out);
            break;
        }
        PyObject *item = PyList_GET_ITEM(raws, i);
        Py_INCREF(item);
        Py_INCREF(layout);
        Py_INCREF(zero);
        SLOT(enc, raw) = item;
        SLOT(enc, at) = layout;
        SLOT(enc, state) = zero;
        PyList_SET_ITEM(out, i, enc);
    }
    Py_XDECREF(zero);
    return out;
}
