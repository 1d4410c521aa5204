/* The Row type's layout, shared by wp_rows.c (its methods) and wp_lazy.c (which reads
 * Rows directly when it builds a LazyEncoding's lists).
 * Not handled here: the lists (wp_columns.c, wp_lazy.c). */
#ifndef WP_ROWS_H
#define WP_ROWS_H

#include "wp_columns.h"

typedef struct {
    PyObject_HEAD
    PyObject *ids, *offsets, *word_ids; /* bytearrays: int32, int64 pairs, int32 */
    Py_ssize_t start, stop;
} RowObject;

enum { COLUMN_IDS, COLUMN_OFFSETS, COLUMN_WORD_IDS };

static inline PyObject *wp_row_column(RowObject *row, int column)
{
    return column == COLUMN_OFFSETS ? row->offsets
           : column == COLUMN_WORD_IDS ? row->word_ids : row->ids;
}

/* wp_lazy.c: the methods of Row that make lazy encodings' parts (Row's method table) */
PyObject *wp_lazy_field(PyObject *unused, PyObject *args);
PyObject *wp_lazy_encodings(PyObject *unused, PyObject *const *args, Py_ssize_t nargs);

#endif
