/* _core.texts_with_chars: which texts of a batch hold one of a few characters.
 *
 * The filter before the added-token search (sequences.SequenceEncoder): a text holding
 * none of the added tokens' first characters holds none of them, and a scan for those
 * characters is much cheaper than a regex search. Not handled here: the search itself.
 */
#include "wp_module.h"

#include <string.h>

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

