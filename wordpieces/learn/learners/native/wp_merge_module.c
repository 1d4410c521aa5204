/* CPython glue of the optional extension wordpieces.learn.learners._merge_native.
 *
 * Merger(words, counts, chars, first_ids, continuation_ids, names, min_frequency,
 * score="count", prefix=""): word i (a str) seen counts[i] times is spelled as symbol
 * ids: its first character c as first_ids[k], every other one as continuation_ids[k],
 * where chars[k] == ord(c) (chars sorted). names[i] names symbol i. score: "count" or
 * "likelihood" (which needs the continuing-subword prefix to name the token a pair
 * makes). Methods: add_symbol(name) -> id, pop_best() -> (u, v) or None,
 * merge(a, b, new). The Python reference is merge_state.py, the vocabulary logic
 * bottom_up.py.
 *
 * used_tokens(words, tokens, prefix) -> bytes: flags, one per token, set for the tokens
 * WordPiece's greedy longest-match-first segmentation of the words uses (a word with a
 * stretch no token matches uses none); bottom_up.used_tokens is the reference.
 *
 * refine(words, counts, vocab, protected, prefix, rounds, first_batch, candidates, heavy)
 * -> list: refine.py's refine_python (its reference) in C (core: wp_refine*.c).
 *
 * Not handled here: the merging and the segmentation (core: wp_merge.c, wp_pieces.c).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wp_merge.h"
#include "wp_pieces.h"
#include "wp_refine.h"

typedef struct {
    PyObject_HEAD
    wp_merger *merger;
    int32_t n_symbols;
} Merger;

static int add_name(Merger *self, PyObject *name) {
    if (!PyUnicode_Check(name)) {
        PyErr_Format(PyExc_TypeError, "a symbol name must be a str, not %.100s",
                     Py_TYPE(name)->tp_name);
        return -1;
    }
    Py_UCS4 *chars = PyUnicode_AsUCS4Copy(name);
    if (!chars) return -1;
    int32_t id = wp_merger_add_name(self->merger, (const uint32_t *)chars,
                                    (size_t)PyUnicode_GET_LENGTH(name));
    PyMem_Free(chars);
    if (id < 0) {
        PyErr_NoMemory();
        return -1;
    }
    self->n_symbols = id + 1;
    return id;
}

/* Index of code point ch in the sorted chars, or -1. */
static Py_ssize_t char_index(const Py_UCS4 *chars, Py_ssize_t n, Py_UCS4 ch) {
    Py_ssize_t lo = 0, hi = n;
    while (lo < hi) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if (chars[mid] < ch) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && chars[lo] == ch ? lo : -1;
}

static int int32_list(PyObject *list, const char *what, int32_t *out, Py_ssize_t n) {
    if (!PyList_Check(list) || PyList_GET_SIZE(list) != n) {
        PyErr_Format(PyExc_ValueError, "%s must be a list of %zd ints", what, n);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long value = PyLong_AsLong(PyList_GET_ITEM(list, i));
        if (value == -1 && PyErr_Occurred()) return -1;
        if (value < 0 || value > INT32_MAX) {
            PyErr_Format(PyExc_ValueError, "%s[%zd] = %ld is out of range", what, i, value);
            return -1;
        }
        out[i] = (int32_t)value;
    }
    return 0;
}

typedef struct {
    int32_t *symbols;
    int64_t *starts, *counts;
    Py_UCS4 *chars;
    int32_t *first, *rest;
} spelling_t;

static void free_spelling(spelling_t *s) {
    PyMem_Free(s->symbols);
    PyMem_Free(s->starts);
    PyMem_Free(s->counts);
    PyMem_Free(s->chars);
    PyMem_Free(s->first);
    PyMem_Free(s->rest);
}

/* The character tables: chars (sorted code points) and each one's two symbol ids. */
static int read_tables(PyObject *chars, PyObject *first, PyObject *rest, Py_ssize_t n_names,
                       spelling_t *s, Py_ssize_t *n_chars) {
    if (!PyList_Check(chars)) {
        PyErr_SetString(PyExc_TypeError, "chars must be a list of ints");
        return -1;
    }
    Py_ssize_t n = *n_chars = PyList_GET_SIZE(chars);
    s->chars = PyMem_Malloc((size_t)(n + 1) * sizeof *s->chars);
    s->first = PyMem_Malloc((size_t)(n + 1) * sizeof *s->first);
    s->rest = PyMem_Malloc((size_t)(n + 1) * sizeof *s->rest);
    if (!s->chars || !s->first || !s->rest) {
        PyErr_NoMemory();
        return -1;
    }
    if (int32_list(chars, "chars", (int32_t *)s->first, n) < 0) return -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        s->chars[i] = (Py_UCS4)s->first[i];
        if (i && s->chars[i] <= s->chars[i - 1]) {
            PyErr_Format(PyExc_ValueError, "chars must be sorted and distinct (index %zd)", i);
            return -1;
        }
    }
    if (int32_list(first, "first_ids", s->first, n) < 0
        || int32_list(rest, "continuation_ids", s->rest, n) < 0)
        return -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (s->first[i] >= n_names || s->rest[i] >= n_names) {
            PyErr_Format(PyExc_ValueError, "symbol id of chars[%zd] is not below %zd names", i,
                         n_names);
            return -1;
        }
    }
    return 0;
}

/* Spell every word as symbol ids, one flat array with word starts. */
static int spell_words(PyObject *words, PyObject *counts, Py_ssize_t n_chars, spelling_t *s) {
    Py_ssize_t n = PyList_GET_SIZE(words), total = 0;
    for (Py_ssize_t w = 0; w < n; w++) {
        PyObject *word = PyList_GET_ITEM(words, w);
        if (!PyUnicode_Check(word)) {
            PyErr_Format(PyExc_TypeError, "words[%zd] is not a str", w);
            return -1;
        }
        total += PyUnicode_GET_LENGTH(word);
    }
    s->symbols = PyMem_Malloc((size_t)(total + 1) * sizeof *s->symbols);
    s->starts = PyMem_Malloc((size_t)(n + 1) * sizeof *s->starts);
    s->counts = PyMem_Malloc((size_t)(n + 1) * sizeof *s->counts);
    if (!s->symbols || !s->starts || !s->counts) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t at = 0;
    for (Py_ssize_t w = 0; w < n; w++) {
        PyObject *word = PyList_GET_ITEM(words, w);
        long long count = PyLong_AsLongLong(PyList_GET_ITEM(counts, w));
        if (count == -1 && PyErr_Occurred()) return -1;
        if (count <= 0) {
            PyErr_Format(PyExc_ValueError, "counts[%zd] = %lld: counts must be positive", w, count);
            return -1;
        }
        s->starts[w] = at;
        s->counts[w] = count;
        int kind = PyUnicode_KIND(word);
        const void *data = PyUnicode_DATA(word);
        for (Py_ssize_t i = 0; i < PyUnicode_GET_LENGTH(word); i++) {
            Py_UCS4 ch = PyUnicode_READ(kind, data, i);
            Py_ssize_t k = char_index(s->chars, n_chars, ch);
            if (k < 0) {
                PyErr_Format(PyExc_ValueError, "words[%zd] holds U+%04X, which is not in chars",
                             w, (unsigned)ch);
                return -1;
            }
            s->symbols[at++] = i ? s->rest[k] : s->first[k];
        }
    }
    s->starts[n] = at;
    return 0;
}

static int Merger_init(Merger *self, PyObject *args, PyObject *kwds) {
    static char *keywords[] = {"words", "counts", "chars", "first_ids", "continuation_ids",
                               "names", "min_frequency", "score", "prefix", NULL};
    PyObject *words, *counts, *chars, *first, *rest, *names, *prefix = NULL;
    long long min_frequency;
    const char *score_name = "count";
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!O!OOOO!L|sU", keywords, &PyList_Type,
                                     &words, &PyList_Type, &counts, &chars, &first, &rest,
                                     &PyList_Type, &names, &min_frequency, &score_name,
                                     &prefix))
        return -1;
    int score;
    if (!strcmp(score_name, "count")) {
        score = WP_SCORE_COUNT;
    } else if (!strcmp(score_name, "likelihood")) {
        score = WP_SCORE_LIKELIHOOD;
    } else {
        PyErr_Format(PyExc_ValueError, "score must be 'count' or 'likelihood', not '%.100s'",
                     score_name);
        return -1;
    }
    if (self->merger) {
        PyErr_SetString(PyExc_RuntimeError, "Merger is already initialized");
        return -1;
    }
    Py_ssize_t n_words = PyList_GET_SIZE(words), n_names = PyList_GET_SIZE(names), n_chars;
    if (PyList_GET_SIZE(counts) != n_words || n_words >= INT32_MAX || n_names >= INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "words and counts must have one length (< 2**31)");
        return -1;
    }
    spelling_t s = {0};
    int result = -1;
    Py_UCS4 *prefix_chars = prefix ? PyUnicode_AsUCS4Copy(prefix) : NULL;
    size_t prefix_length = prefix ? (size_t)PyUnicode_GET_LENGTH(prefix) : 0;
    if ((prefix && !prefix_chars) || read_tables(chars, first, rest, n_names, &s, &n_chars) < 0
        || spell_words(words, counts, n_chars, &s) < 0)
        goto done;
    self->merger = wp_merger_new(s.symbols, s.starts, s.counts, (int32_t)n_words,
                                 (int32_t)n_names, min_frequency, score,
                                 (const uint32_t *)prefix_chars, prefix_length);
    if (!self->merger) {
        PyErr_NoMemory();
        goto done;
    }
    result = 0;
    for (Py_ssize_t i = 0; i < n_names && result == 0; i++)
        result = add_name(self, PyList_GET_ITEM(names, i)) < 0 ? -1 : 0;
done:
    PyMem_Free(prefix_chars);
    free_spelling(&s);
    return result;
}

static int ready(Merger *self) {
    if (self->merger) return 1;
    PyErr_SetString(PyExc_RuntimeError, "Merger was not initialized");
    return 0;
}

static PyObject *Merger_add_symbol(Merger *self, PyObject *name) {
    if (!ready(self)) return NULL;
    int id = add_name(self, name);
    return id < 0 ? NULL : PyLong_FromLong(id);
}

static PyObject *Merger_pop_best(Merger *self, PyObject *Py_UNUSED(ignored)) {
    if (!ready(self)) return NULL;
    int32_t u, v;
    int found = wp_merger_pop_best(self->merger, &u, &v);
    if (found < 0) return PyErr_NoMemory();
    if (!found) Py_RETURN_NONE;
    return Py_BuildValue("(ii)", (int)u, (int)v);
}

static PyObject *Merger_merge(Merger *self, PyObject *args) {
    int a, b, new_id;
    if (!ready(self) || !PyArg_ParseTuple(args, "iii", &a, &b, &new_id)) return NULL;
    if (a < 0 || b < 0 || new_id < 0 || a >= self->n_symbols || b >= self->n_symbols
        || new_id >= self->n_symbols) {
        PyErr_Format(PyExc_ValueError, "merge(%d, %d, %d): symbol ids must be below %d", a, b,
                     new_id, (int)self->n_symbols);
        return NULL;
    }
    if (wp_merger_merge(self->merger, a, b, new_id) < 0) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

static void Merger_dealloc(Merger *self) {
    wp_merger_free(self->merger);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* ------------------------------------------------------------ used_tokens */

/* A str as code points in *buffer (grown as needed); its length, or -1 on error. */
static Py_ssize_t code_points(PyObject *text, Py_UCS4 **buffer, Py_ssize_t *capacity) {
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "expected a str, not %.100s", Py_TYPE(text)->tp_name);
        return -1;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    if (n + 1 > *capacity) {
        Py_UCS4 *bigger = PyMem_Realloc(*buffer, (size_t)(n + 1) * sizeof **buffer);
        if (!bigger) {
            PyErr_NoMemory();
            return -1;
        }
        *buffer = bigger;
        *capacity = n + 1;
    }
    return PyUnicode_AsUCS4(text, *buffer, *capacity, 0) ? n : -1;
}

/* The two tries: every token (first pieces); tokens behind the prefix, without it. */
static int build_tries(PyObject *tokens, PyObject *prefix, wp_pieces_trie *first,
                       wp_pieces_trie *rest, Py_UCS4 **buffer, Py_ssize_t *capacity) {
    Py_ssize_t skip = PyUnicode_GET_LENGTH(prefix);
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(tokens); i++) {
        PyObject *token = PyList_GET_ITEM(tokens, i);
        Py_ssize_t n = code_points(token, buffer, capacity);
        if (n < 0) return -1;
        if (wp_pieces_trie_add(first, *buffer, (size_t)n, (int32_t)i) < 0) goto no_memory;
        int tail = PyUnicode_Tailmatch(token, prefix, 0, skip, -1);
        if (tail < 0) return -1;
        if (tail && wp_pieces_trie_add(rest, *buffer + skip, (size_t)(n - skip), (int32_t)i) < 0)
            goto no_memory;
    }
    return 0;
no_memory:
    PyErr_NoMemory();
    return -1;
}

/* Flag the pieces of each word whose segmentation reaches its end. */
static int flag_used(PyObject *words, const wp_pieces_trie *first, const wp_pieces_trie *rest,
                     char *used, Py_UCS4 **buffer, Py_ssize_t *capacity) {
    int32_t *pieces = NULL;
    Py_ssize_t cap_pieces = 0;
    for (Py_ssize_t w = 0; w < PyList_GET_SIZE(words); w++) {
        Py_ssize_t n = code_points(PyList_GET_ITEM(words, w), buffer, capacity);
        if (n < 0) break;
        if (n > cap_pieces) {
            int32_t *bigger = PyMem_Realloc(pieces, (size_t)n * sizeof *pieces);
            if (!bigger) {
                PyErr_NoMemory();
                break;
            }
            pieces = bigger;
            cap_pieces = n;
        }
        size_t start = 0, end = 0;
        Py_ssize_t count = 0;
        while (start < (size_t)n) {
            int32_t token = wp_pieces_trie_longest(start ? rest : first, *buffer, (size_t)n,
                                                   start, &end);
            if (token < 0) break;
            pieces[count++] = token;
            start = end;
        }
        if (start == (size_t)n)
            for (Py_ssize_t i = 0; i < count; i++) used[pieces[i]] = 1;
    }
    PyMem_Free(pieces);
    return PyErr_Occurred() ? -1 : 0;
}

static PyObject *used_tokens(PyObject *Py_UNUSED(module), PyObject *args) {
    PyObject *words, *tokens, *prefix;
    if (!PyArg_ParseTuple(args, "O!O!U", &PyList_Type, &words, &PyList_Type, &tokens, &prefix))
        return NULL;
    if (PyList_GET_SIZE(tokens) >= INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "too many tokens (2**31 or more)");
        return NULL;
    }
    PyObject *flags = PyBytes_FromStringAndSize(NULL, PyList_GET_SIZE(tokens));
    wp_pieces_trie *first = wp_pieces_trie_new(), *rest = wp_pieces_trie_new();
    Py_UCS4 *buffer = NULL;
    Py_ssize_t capacity = 0;
    if (flags && (!first || !rest)) PyErr_NoMemory();
    if (flags && first && rest) {
        char *used = PyBytes_AS_STRING(flags);
        memset(used, 0, (size_t)PyList_GET_SIZE(tokens));
        if (build_tries(tokens, prefix, first, rest, &buffer, &capacity) == 0)
            flag_used(words, first, rest, used, &buffer, &capacity);
    }
    PyMem_Free(buffer);
    wp_pieces_trie_free(first);
    wp_pieces_trie_free(rest);
    if (PyErr_Occurred()) Py_CLEAR(flags);
    return flags;
}

/* Feed each str of list to add (a word with its count, or a token). */
static int feed(wp_refiner *r, PyObject *list, PyObject *counts, int protected_,
                Py_UCS4 **buffer, Py_ssize_t *capacity) {
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(list); i++) {
        Py_ssize_t n = code_points(PyList_GET_ITEM(list, i), buffer, capacity);
        if (n < 0) return -1;
        int failed;
        if (counts) {
            long long count = PyLong_AsLongLong(PyList_GET_ITEM(counts, i));
            if (count == -1 && PyErr_Occurred()) return -1;
            if (count <= 0) {
                PyErr_Format(PyExc_ValueError, "counts[%zd] = %lld: counts must be positive",
                             i, count);
                return -1;
            }
            failed = wp_refiner_word(r, *buffer, (size_t)n, count);
        } else {
            failed = wp_refiner_token(r, *buffer, (size_t)n, protected_);
        }
        if (failed < 0) {
            PyErr_NoMemory();
            return -1;
        }
    }
    return 0;
}

static PyObject *refined_list(wp_refiner *r) {
    const int32_t *ids;
    size_t n = wp_refiner_result(r, &ids);
    PyObject *out = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; out && i < n; i++) {
        size_t length;
        const uint32_t *chars = wp_refiner_string(r, ids[i], &length);
        PyObject *token = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, chars,
                                                    (Py_ssize_t)length);
        if (!token) Py_CLEAR(out);
        else PyList_SET_ITEM(out, (Py_ssize_t)i, token);
    }
    return out;
}

static PyObject *refine(PyObject *Py_UNUSED(module), PyObject *args) {
    PyObject *words, *counts, *vocab, *protected_, *prefix;
    wp_refine_params params;
    long long heavy;
    if (!PyArg_ParseTuple(args, "O!O!O!O!UiiiL", &PyList_Type, &words, &PyList_Type, &counts,
                          &PyList_Type, &vocab, &PyList_Type, &protected_, &prefix,
                          &params.rounds, &params.first_batch, &params.candidates, &heavy))
        return NULL;
    params.heavy = heavy;
    if (PyList_GET_SIZE(counts) != PyList_GET_SIZE(words)) {
        PyErr_SetString(PyExc_ValueError, "words and counts must have one length");
        return NULL;
    }
    if (params.candidates < 0 || heavy < 0) {
        PyErr_SetString(PyExc_ValueError, "candidates and heavy must not be negative");
        return NULL;
    }
    Py_UCS4 *prefix_chars = PyUnicode_AsUCS4Copy(prefix);
    if (!prefix_chars) return NULL;
    wp_refiner *r = wp_refiner_new((const uint32_t *)prefix_chars,
                                   (size_t)PyUnicode_GET_LENGTH(prefix));
    PyMem_Free(prefix_chars);
    if (!r) return PyErr_NoMemory();
    Py_UCS4 *buffer = NULL;
    Py_ssize_t capacity = 0;
    PyObject *out = NULL;
    if (feed(r, words, counts, 0, &buffer, &capacity) == 0
        && feed(r, vocab, NULL, 0, &buffer, &capacity) == 0
        && feed(r, protected_, NULL, 1, &buffer, &capacity) == 0) {
        int failed;
        Py_BEGIN_ALLOW_THREADS
        failed = wp_refiner_run(r, &params);
        Py_END_ALLOW_THREADS
        if (failed < 0) PyErr_NoMemory();
        else out = refined_list(r);
    }
    PyMem_Free(buffer);
    wp_refiner_free(r);
    return out;
}

static PyMethodDef module_functions[] = {
    {"used_tokens", used_tokens, METH_VARARGS,
     "Flags, one per token: used by the greedy segmentation of the words."},
    {"refine", refine, METH_VARARGS,
     "refine.py's refine_python in C: the refined vocabulary, in its order."},
    {NULL, NULL, 0, NULL},
};

static PyMethodDef Merger_methods[] = {
    {"add_symbol", (PyCFunction)Merger_add_symbol, METH_O,
     "Name the next symbol id; return the id."},
    {"pop_best", (PyCFunction)Merger_pop_best, METH_NOARGS,
     "The pair to merge next, (u, v), or None when no pair is left."},
    {"merge", (PyCFunction)Merger_merge, METH_VARARGS,
     "Merge (a, b) into new everywhere, left to right."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject MergerType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "wordpieces.learn.learners._merge_native.Merger",
    .tp_basicsize = sizeof(Merger),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Bottom-up merging by count or likelihood over words of symbol ids (see bottom_up.py).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Merger_init,
    .tp_dealloc = (destructor)Merger_dealloc,
    .tp_methods = Merger_methods,
};

static struct PyModuleDef merge_module = {
    PyModuleDef_HEAD_INIT, "_merge_native",
    "The bottom-up learner's merge loop by count or likelihood, in C (optional; see bottom_up.py).", -1,
    module_functions, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__merge_native(void) {
    if (PyType_Ready(&MergerType) < 0) return NULL;
    PyObject *module = PyModule_Create(&merge_module);
    if (!module) return NULL;
    Py_INCREF(&MergerType);
    if (PyModule_AddObject(module, "Merger", (PyObject *)&MergerType) < 0) {
        Py_DECREF(&MergerType);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
