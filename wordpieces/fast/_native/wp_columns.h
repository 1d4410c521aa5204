/* wp_columns.c's lists of rows that take more than wp_module.h's one row: a pair's
 * two rows with the items before, between and after them (the Row type's *_with).
 * Not handled here: the one-row lists (wp_module.h's wp_row_list). */
#ifndef WP_COLUMNS_H
#define WP_COLUMNS_H

#include "wp_module.h"

/* frames[0] + row 0 + frames[1] + row 1 ... + frames[n_rows] as one new list, by kind
 * (WP_ROW_*): row r is items [bounds[2r], bounds[2r + 1]) of columns[r]; n_rows is 1 or
 * 2; frames are tuples; names (a list) only for WP_ROW_NAMES. */
PyObject *wp_rows_list(int kind, int n_rows, PyObject *const *columns,
                       const Py_ssize_t *bounds, PyObject *const *frames, PyObject *names);

/* The tuple (a, b) of two ints, untracked by the collector; small offsets near a text's
 * start are one shared tuple each: wp_pair_cache[a * WP_PAIR_LENGTHS + b - a] for
 * a < WP_PAIR_STARTS, b - a < WP_PAIR_LENGTHS (NULL until made; kept for the process). */
#define WP_PAIR_STARTS 2048
#define WP_PAIR_LENGTHS 32
extern PyObject **wp_pair_cache;
PyObject *wp_offset_pair(int64_t a, int64_t b);

#endif
