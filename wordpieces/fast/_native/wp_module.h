/* Shared declarations of the extension module (see wp_module.c). */
#ifndef WP_MODULE_H
#define WP_MODULE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "wp_chartable.h"
#include "wp_encode.h"
#include "wp_threads.h"
#include "wp_trie.h"

/* Below this many code points per call, keep the GIL: releasing it costs more. */
#define WP_RELEASE_GIL_CHARS 2048
/* Below this many 2- or 4-byte code points per thread, one thread scans them alone. */
#define WP_MIN_WIDE_CHARS_PER_THREAD 65536

typedef struct {
    PyObject_HEAD
    wp_chartable table;
    wp_trie *trie;
    wp_model model;
    PyObject *lookup;
    PyObject *fallback;
    PyObject **id_objs; /* a cached int per vocabulary id */
    Py_ssize_t vocab_size;
    int ready;
} EncoderObject;

/* A share of a batch that one thread encodes at a time: rows [a0, a1), then the
 * rows [p0, p1) of their pairs (empty without pairs), into one output. */
typedef struct {
    Py_ssize_t a0, a1, p0, p1;
    wp_output out;
    int rc; /* WP_OK, or WP_NOMEM */
} wp_chunk;

/* One call's texts, its encoded output and where each text's tokens are. */
typedef struct {
    PyObject **texts; /* strong references */
    Py_ssize_t n;
    int64_t chars;
    int64_t wide_chars; /* of the texts stored 2 or 4 bytes per code point */
    wp_chunk *chunks; /* n_chunks, then one more: the Python fallback's rows */
    int n_chunks;
    wp_chunk few_chunks[2]; /* the chunks of a batch of one chunk (no allocation) */
    int32_t *row_chunk;  /* per row: the chunk holding its tokens */
    int64_t *row_at;     /* per row: where they start in that chunk's output */
    int64_t *row_len;    /* per row: how many */
    signed char *status; /* WP_OK or WP_NEED_PYTHON per text */
    int want_offsets;
    int gc_paused; /* the collector is paused while results are built */
} batch;

/* Build the results of chunk `chunk` (all its rows encoded), with the GIL: -1 and an
 * exception on failure. Called in chunk order while later chunks are still encoded. */
typedef int (*wp_consumer)(void *ctx, batch *b, int chunk);

/* The flat columns of a batch in row order, each NULL when not wanted. */
typedef struct {
    int32_t *ids;
    int64_t *offsets;
    int32_t *word_ids;
    int64_t *splits; /* n + 1 */
} wp_flat;

int wp_init_int_cache(void);
int wp_learn_code_point(EncoderObject *self, uint32_t cp);
int wp_batch_collect(EncoderObject *self, batch *b, PyObject *const *items, Py_ssize_t n,
                     int single);
int wp_batch_learn(EncoderObject *self, batch *b, int threads);
int wp_batch_encode(EncoderObject *self, batch *b, int threads);
void wp_batch_row(const batch *b, Py_ssize_t r, const int32_t **ids, const int64_t **offsets,
                  const int32_t **word_ids, int64_t *n);
int wp_batch_materialize(EncoderObject *self, batch *b, Py_ssize_t r);
PyObject *wp_call_fallback(EncoderObject *self, batch *b, Py_ssize_t i);

/* wp_pipeline.c: chunks encoded on native threads, results built in order meanwhile */
int wp_batch_split(batch *b, Py_ssize_t n_inputs, const int64_t *pair_rows, int threads);
int wp_batch_run(EncoderObject *self, batch *b, int threads, wp_consumer consume, void *ctx);
int wp_batch_flatten(batch *b, int threads, wp_flat *dst);
int wp_thread_count(const batch *b, int threads);
void *wp_advise_huge(void *data, size_t nbytes); /* returns data */
void wp_batch_free(batch *b);
PyObject *wp_text_result(EncoderObject *self, batch *b, Py_ssize_t i);
PyObject *wp_batch_lists(EncoderObject *self, batch *b, int threads); /* encodes too */
PyObject *wp_batch_arrays(EncoderObject *self, batch *b, int threads); /* once encoded */
PyObject *wp_new_int(int64_t v);
PyObject *wp_int_pair(int64_t a, int64_t b); /* (a, b), untracked by the collector */

/* wp_columns.c: one row of a batch's flat columns as a list */
PyObject *wp_int_list(PyObject *module, PyObject *args);
PyObject *wp_pair_list(PyObject *module, PyObject *args);
PyObject *wp_name_list(PyObject *module, PyObject *args);
enum { WP_ROW_INTS = 0, WP_ROW_PAIRS = 1, WP_ROW_NAMES = 2 };
PyObject *wp_row_list(int kind, PyObject *column, Py_ssize_t start, Py_ssize_t stop,
                      PyObject *before, PyObject *after, PyObject *names);

/* wp_rows.c: the Row type (one text's tokens in a batch's columns) */
extern PyTypeObject WpRowType;
PyObject *wp_rows(PyObject *module, PyObject *args);

/* wp_finish_glue.c: a batch's items split in C */
PyObject *wp_unzip(PyObject *module, PyObject *items);
PyObject *wp_word_items(PyObject *module, PyObject *args);
PyObject *wp_words_columns(PyObject *module, PyObject *items);
PyObject *wp_encode_finish(EncoderObject *self, PyObject *args);
PyObject *wp_texts_with_chars(PyObject *module, PyObject *args);

#endif
