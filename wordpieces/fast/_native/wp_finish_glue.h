/* Shared by wp_finish_glue.c (reading plans and options) and
 * wp_finish_batch.c (finishing a batch into lists or columns). */
#ifndef WP_FINISH_GLUE_H
#define WP_FINISH_GLUE_H

#include "wp_module.h"
#include "wp_finish.h"

/* finish's `want` flags (batches.py) */
enum { WANT_TYPES = 1, WANT_SPECIAL = 2, WANT_ATTENTION = 4, WANT_OFFSETS = 8, WANT_LISTS = 16,
       WANT_WORDS = 32, WANT_SEQUENCES = 64, WANT_WINDOWS = 128 };

/* A plan read from Python, with room for its pieces and special ids. */
typedef struct {
    wp_piece pieces[16];
    int64_t ids[64];
    wp_plan plan;
} plan_store;

int wp_read_plan(PyObject *obj, plan_store *st);
int wp_read_truncation(PyObject *obj, wp_truncation *t);
int wp_read_padding(PyObject *obj, wp_padding *p);
/* A read-only view of a bytes-like column, checked to hold `count` items of `width`. */
int wp_column_view(PyObject *obj, Py_buffer *view, Py_ssize_t width, Py_ssize_t count,
                   const char *name);

#endif
