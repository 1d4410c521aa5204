/* wordpieces.fast._native._core: the native hot path of the fused BERT pipeline.
 *
 * One type, Encoder, built from a vocabulary and two Python callables:
 *   lookup(cp) -> (class letter, normalized UTF-8 bytes) teaches the code point
 *     table a character (the Python reference's own answer; nothing is duplicated);
 *   fallback(text, offsets) -> the Python encoding of a text the table cannot do
 *     (a "complex" character).
 * A call learns every new code point of the texts (scanned without the GIL, learned
 * with it), encodes them in chunks without the GIL (wp_encode.c, wp_pipeline.c) and
 * builds Python lists, each chunk's as soon as it is encoded, or flat byte arrays (ids
 * int32, offsets int64 pairs, word ids int32, row splits int64) that the Python side
 * wraps as numpy arrays. With threads > 1 the GIL-free work runs on native threads
 * (wp_threads.c) while the caller's thread builds the lists.
 * Not handled here: special tokens, padding (the Python ``Tokenizer``).
 */
#include "wp_module.h"

#include <string.h>

/* ------------------------------------------------------------ the Encoder type */

static int encoder_ready(EncoderObject *self)
{
    if (!self->ready)
        PyErr_SetString(PyExc_RuntimeError, "Encoder is not initialized");
    return self->ready;
}

static PyObject *encode_one(EncoderObject *self, PyObject *text, int want_offsets)
{
    if (!encoder_ready(self))
        return NULL;
    batch b;
    memset(&b, 0, sizeof(b));
    b.want_offsets = want_offsets;
    PyObject *res = NULL;
    if (wp_batch_collect(self, &b, &text, 1, 1) == 0 && wp_batch_encode(self, &b, 1) == 0)
        res = wp_text_result(self, &b, 0);
    wp_batch_free(&b);
    return res;
}

static PyObject *Encoder_encode_ids(EncoderObject *self, PyObject *text)
{
    return encode_one(self, text, 0);
}

static PyObject *Encoder_encode(EncoderObject *self, PyObject *text)
{
    return encode_one(self, text, 1);
}

static PyObject *Encoder_encode_batch(EncoderObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"texts", "offsets", "arrays", "threads", NULL};
    PyObject *texts;
    int want_offsets = 0, arrays = 0, threads = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|ppi:encode_batch", kwlist, &texts,
                                     &want_offsets, &arrays, &threads) ||
        !encoder_ready(self))
        return NULL;
    if (threads < 1 || threads > 1024) {
        PyErr_Format(PyExc_ValueError, "threads must be 1 to 1024, not %d", threads);
        return NULL;
    }
    /* a list's items stay put while collected: collecting runs no Python code, and it
     * takes a reference to every text before anything else runs */
    PyObject *seq = PySequence_Fast(texts, "texts must be a sequence");
    if (!seq)
        return NULL;
    batch b;
    memset(&b, 0, sizeof(b));
    b.want_offsets = want_offsets;
    PyObject *res = NULL;
    if (wp_batch_collect(self, &b, PySequence_Fast_ITEMS(seq), PySequence_Fast_GET_SIZE(seq), 0)
        == 0) {
        if (!arrays)
            res = wp_batch_lists(self, &b, threads);
        else if (wp_batch_encode(self, &b, threads) == 0)
            res = wp_batch_arrays(self, &b, threads);
    }
    wp_batch_free(&b);
    Py_DECREF(seq);
    return res;
}

/* Copy the vocabulary into wp_tokens (bytes stay owned by the tuple). */
static wp_token *collect_tokens(PyObject *tuple)
{
    Py_ssize_t n = PyTuple_GET_SIZE(tuple);
    wp_token *toks = PyMem_Calloc((size_t)n, sizeof(wp_token));
    if (!toks)
        return (wp_token *)PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *t = PyTuple_GET_ITEM(tuple, i);
        if (!PyBytes_Check(t)) {
            PyErr_Format(PyExc_TypeError, "tokens[%zd] must be bytes, not %.100s", i,
                         Py_TYPE(t)->tp_name);
            PyMem_Free(toks);
            return NULL;
        }
        toks[i] = (wp_token){(const uint8_t *)PyBytes_AS_STRING(t), (size_t)PyBytes_GET_SIZE(t),
                             (int32_t)i};
    }
    return toks;
}

static int build_vocab(EncoderObject *self, PyObject *tokens, PyObject *prefix)
{
    PyObject *tuple = PySequence_Tuple(tokens);
    if (!tuple)
        return -1;
    Py_ssize_t n = PyTuple_GET_SIZE(tuple);
    wp_token *toks = NULL;
    if (n < 1 || n > INT32_MAX)
        PyErr_Format(PyExc_ValueError, "the vocabulary must hold 1 to 2**31-1 tokens, not %zd", n);
    else
        toks = collect_tokens(tuple);
    if (toks) {
        const uint8_t *p = (const uint8_t *)PyBytes_AS_STRING(prefix);
        size_t plen = (size_t)PyBytes_GET_SIZE(prefix);
        Py_BEGIN_ALLOW_THREADS
        self->trie = wp_trie_build(toks, (size_t)n, p, plen);
        Py_END_ALLOW_THREADS
        PyMem_Free(toks);
        if (!self->trie)
            PyErr_SetString(PyExc_MemoryError,
                            "the LinMaxMatch tables of this vocabulary are too big (or memory ran out)");
    }
    self->id_objs = self->trie ? PyMem_Calloc((size_t)n, sizeof(PyObject *)) : NULL;
    if (self->trie && !self->id_objs)
        PyErr_NoMemory();
    for (Py_ssize_t i = 0; self->id_objs && i < n; i++) {
        if (!(self->id_objs[i] = PyLong_FromSsize_t(i)))
            break;
        self->vocab_size = i + 1;
    }
    Py_DECREF(tuple);
    return self->vocab_size == n ? 0 : -1;
}

/* Read Metaspace's edit step, (replacement, prepend_scheme, each_word), into m. */
static int read_metaspace(wp_model *m, PyObject *meta)
{
    PyObject *rep;
    const char *scheme;
    int each_word;
    if (!PyTuple_Check(meta)) {
        PyErr_Format(PyExc_TypeError, "metaspace must be (replacement, prepend_scheme, "
                     "each_word) or None, not %.100s", Py_TYPE(meta)->tp_name);
        return -1;
    }
    if (!PyArg_ParseTuple(meta, "Usp:metaspace", &rep, &scheme, &each_word))
        return -1;
    Py_ssize_t n;
    const char *bytes = PyUnicode_AsUTF8AndSize(rep, &n);
    if (!bytes)
        return -1;
    if (PyUnicode_GET_LENGTH(rep) != 1 || n > (Py_ssize_t)sizeof(m->meta)) {
        PyErr_SetString(PyExc_ValueError, "the Metaspace replacement must be one character");
        return -1;
    }
    const int always = strcmp(scheme, "always") == 0, first = strcmp(scheme, "first") == 0;
    if (!always && !first && strcmp(scheme, "never") != 0) {
        PyErr_Format(PyExc_ValueError, "unknown prepend_scheme '%s'", scheme);
        return -1;
    }
    memcpy(m->meta, bytes, (size_t)n);
    m->meta_len = (uint8_t)n;
    m->meta_at_start = (uint8_t)(always || first);
    m->meta_first_only = (uint8_t)first;
    m->meta_each_word = (uint8_t)(always && each_word);
    return 0;
}

static int Encoder_init(EncoderObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"tokens", "prefix", "unk_id", "max_chars", "max_bytes",
                             "lookup", "fallback", "prepend", "metaspace", NULL};
    PyObject *tokens, *prefix, *lookup, *fallback, *prepend = NULL, *metaspace = Py_None;
    Py_ssize_t unk_id;
    long long max_chars, max_bytes;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OSnLLOO|UO:Encoder", kwlist, &tokens, &prefix,
                                     &unk_id, &max_chars, &max_bytes, &lookup, &fallback,
                                     &prepend, &metaspace))
        return -1;
    if (prepend && PyUnicode_GET_LENGTH(prepend) > WP_MAX_PREFIX) {
        PyErr_Format(PyExc_ValueError, "prepend holds more than %d characters", WP_MAX_PREFIX);
        return -1;
    }
    if (prepend && PyUnicode_GET_LENGTH(prepend) && metaspace != Py_None) {
        PyErr_SetString(PyExc_ValueError, "prepend and metaspace are two edit steps: give one");
        return -1;
    }
    if (self->ready || self->trie) {
        PyErr_SetString(PyExc_RuntimeError, "Encoder is already initialized");
        return -1;
    }
    if (!PyCallable_Check(lookup) || !PyCallable_Check(fallback)) {
        PyErr_SetString(PyExc_TypeError, "lookup and fallback must be callable");
        return -1;
    }
    if (build_vocab(self, tokens, prefix) < 0)
        return -1;
    if (unk_id < 0 || unk_id >= self->vocab_size) {
        PyErr_Format(PyExc_ValueError, "unk_id %zd is not a vocabulary id", unk_id);
        return -1;
    }
    if (wp_table_init(&self->table) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    Py_INCREF(lookup);
    Py_INCREF(fallback);
    self->lookup = lookup;
    self->fallback = fallback;
    self->model = (wp_model){&self->table, self->trie, (int32_t)unk_id, max_chars, max_bytes};
    if (metaspace != Py_None && read_metaspace(&self->model, metaspace) < 0)
        return -1;
    for (uint32_t cp = 0; cp < 256; cp++)
        if (wp_learn_code_point(self, cp) < 0)
            return -1;
    for (Py_ssize_t k = 0; prepend && k < PyUnicode_GET_LENGTH(prepend); k++) {
        uint32_t cp = PyUnicode_READ_CHAR(prepend, k);
        self->model.prefix[self->model.n_prefix++] = cp;
        if (!wp_table_is_set(&self->table, cp) && wp_learn_code_point(self, cp) < 0)
            return -1;
    }
    self->ready = 1;
    return 0;
}

static int Encoder_traverse(EncoderObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->lookup);
    Py_VISIT(self->fallback);
    return 0;
}

static int Encoder_clear(EncoderObject *self)
{
    self->ready = 0;
    Py_CLEAR(self->lookup);
    Py_CLEAR(self->fallback);
    return 0;
}

static void Encoder_dealloc(EncoderObject *self)
{
    PyObject_GC_UnTrack(self);
    Encoder_clear(self);
    wp_table_free(&self->table);
    wp_trie_free(self->trie);
    for (Py_ssize_t i = 0; i < self->vocab_size; i++)
        Py_DECREF(self->id_objs[i]);
    PyMem_Free(self->id_objs);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Encoder_trie_size(EncoderObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromSize_t(self->trie ? self->trie->size : 0);
}

static PyMethodDef Encoder_methods[] = {
    {"encode_ids", (PyCFunction)Encoder_encode_ids, METH_O,
     "encode_ids(text) -> list of ids"},
    {"encode", (PyCFunction)Encoder_encode, METH_O,
     "encode(text) -> (ids, offsets, word_ids)"},
    {"encode_batch", (PyCFunction)(void (*)(void))Encoder_encode_batch,
     METH_VARARGS | METH_KEYWORDS,
     "encode_batch(texts, offsets=False, arrays=False, threads=1) -> list of results, or\n"
     "bytearrays (ids int32, [offsets int64 pairs, word_ids int32,] row_splits int64)"},
    {"encode_finish", (PyCFunction)wp_encode_finish, METH_VARARGS,
     "encode_finish(texts, pair_rows, n_inputs, single, pair, truncation, padding, want,\n"
     "              threads) -> the texts' encoding finished: id lists, int64 columns, or the index\n"
     "of an input truncation refuses"},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef Encoder_getset[] = {
    {"trie_size", (getter)Encoder_trie_size, NULL, "slots of the double-array trie", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject EncoderType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "wordpieces.fast._native._core.Encoder",
    .tp_basicsize = sizeof(EncoderObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "Encoder(tokens, prefix, unk_id, max_chars, max_bytes, lookup, fallback,\n"
              "        prepend='', metaspace=None)\n\n"
              "A fused pipeline with a LinMaxMatch WordPiece, in C. prepend: a Prepend's\n"
              "text; metaspace: (replacement, prepend_scheme, each_word) of a Metaspace.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Encoder_init,
    .tp_dealloc = (destructor)Encoder_dealloc,
    .tp_traverse = (traverseproc)Encoder_traverse,
    .tp_clear = (inquiry)Encoder_clear,
    .tp_methods = Encoder_methods,
    .tp_getset = Encoder_getset,
};

static PyMethodDef core_functions[] = {
    {"int_list", wp_int_list, METH_VARARGS,
     "int_list(int32 column, start, stop, before, after) -> list"},
    {"pair_list", wp_pair_list, METH_VARARGS,
     "pair_list(int64 pair column, start, stop, before, after) -> list of tuples"},
    {"name_list", wp_name_list, METH_VARARGS,
     "name_list(int32 column, start, stop, names, before, after) -> list of names[id]"},
    {"rows", wp_rows, METH_VARARGS,
     "rows(ids, offsets, word_ids, row_splits) -> [Row] per text (bytearray columns)"},
    {"texts_with_chars", wp_texts_with_chars, METH_VARARGS,
     "texts_with_chars(texts, chars) -> indices of the texts holding one of chars, or None"},
    {"unzip", wp_unzip, METH_O,
     "unzip(items) -> (first texts + pair texts, pair_rows int64 or None), or None"},
    {"word_items", wp_word_items, METH_VARARGS,
     "word_items(rows, pair_rows) -> [(words, pair words or None)] copied, or None"},
    {"words_columns", wp_words_columns, METH_O,
     "words_columns(items) -> (texts, pair_rows int64 or None, groups int64), or None"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT, "_core",
    "Native hot path of wordpieces (see wordpieces/fast/backend.py).", -1, core_functions,
    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__core(void)
{
    if (PyType_Ready(&EncoderType) < 0 || PyType_Ready(&WpRowType) < 0
        || wp_init_int_cache() < 0)
        return NULL;
    PyObject *m = PyModule_Create(&core_module);
    if (!m)
        return NULL;
    Py_INCREF(&EncoderType);
    if (PyModule_AddObject(m, "Encoder", (PyObject *)&EncoderType) < 0) {
        Py_DECREF(&EncoderType);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&WpRowType);
    if (PyModule_AddObject(m, "Row", (PyObject *)&WpRowType) < 0) {
        Py_DECREF(&WpRowType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
