/* Finish encoded sequences into model inputs: truncate, add special tokens, pad.
 *
 * The C port of wordpieces.encoding.finishing.Finisher and padding.truncation_lengths
 * (the Python reference: one rule per option, differential tests keep both equal),
 * over a whole batch held in flat columns. Plain C99, no Python.
 *
 * With windows (return_overflowing_tokens), each input gives one row per window of
 * its sequences (Encoding.truncate's windows, paired as encoding.concat pairs them).
 * Not handled here: encoding the sequences (wp_encode.c).
 */
#ifndef WP_FINISH_H
#define WP_FINISH_H

#include <stdint.h>

/* One piece of a post-processor's template: a run of special ids, or a sequence. */
typedef struct {
    int seq;          /* -1: the special ids below; 0: the first sequence; 1: the pair */
    int64_t type_id;
    const int64_t *ids; /* special ids (seq == -1) */
    int64_t n_ids;
} wp_piece;

typedef struct {
    const wp_piece *pieces;
    int n_pieces;
    int64_t n_special; /* how many special ids the pieces add */
} wp_plan;

enum { WP_LONGEST_FIRST = 0, WP_ONLY_FIRST = 1, WP_ONLY_SECOND = 2 };

typedef struct {
    int on;
    int64_t max_length, stride;
    int strategy;
    int left; /* cut from the left end */
} wp_truncation;

typedef struct {
    int on;
    int64_t length;   /* -1: the batch's longest row */
    int64_t multiple; /* 0: none */
    int64_t pad_id, pad_type_id;
    int left;
} wp_padding;

/* A batch's sequences: row r holds ids[splits[r]:splits[r + 1]]; input i is row i,
 * with pair row pair_rows[i] (-1: none; pair_rows NULL: no pairs). */
typedef struct {
    const int32_t *ids;
    const int64_t *offsets; /* pairs of int64 per token, or NULL */
    const int64_t *splits;
    const int64_t *pair_rows;
    int64_t n_inputs;
    const int32_t *word_ids; /* the word of each token in its sequence, or NULL */
} wp_sequences;

/* Where each output row starts and what it holds of its input's sequences. Without
 * windows, row i is input i (n_rows == n_inputs, input and starts NULL). */
typedef struct {
    int64_t *keep1, *keep2; /* per row: tokens of each sequence; keep2 -1 without a pair */
    int64_t *row_splits;    /* n_rows + 1, padding included */
    int64_t target;         /* the padded length (0 without padding) */
    int64_t n_rows;
    int64_t *input;          /* per row: its input (windows), or NULL */
    int64_t *start1, *start2; /* per row: its windows' first tokens (windows), or NULL */
} wp_layout;

/* What truncation keeps of sequences of n1 and n2 tokens (n2 -1: no pair) around which
 * `plan` puts its special ids: 0, or -1 when the reference raises. */
int wp_finish_keep(const wp_truncation *t, const wp_plan *plan, int64_t n1, int64_t n2,
                   int64_t *k1, int64_t *k2);

/* How many rows truncation's windows make of every input (*n_rows); -1, or the index of
 * the first input truncation refuses or whose padded windows alone pass the batch cap
 * `cap` (the caller asks the Python reference for its error). */
int64_t wp_finish_windows(const wp_sequences *s, const wp_plan *single, const wp_plan *pair,
                          const wp_truncation *t, const wp_padding *p, int64_t cap,
                          int64_t *n_rows);

/* Decide every row's kept lengths and padded length (with l->input set: the windows'
 * rows, l->n_rows of them, as wp_finish_windows counted). Returns -1 when every input fits,
 * else the index of the first input truncation refuses (the caller asks the Python
 * reference for its error). */
int64_t wp_finish_layout(const wp_sequences *s, const wp_plan *single, const wp_plan *pair,
                         const wp_truncation *t, const wp_padding *p, wp_layout *out);

/* The output columns (each sized row_splits[n]; ids always, the others NULL: not wanted). */
typedef struct {
    int64_t *ids, *type_ids, *special, *attention, *offsets; /* offsets: 2 per token */
    int64_t *words, *sequences; /* word and sequence ids, -1 where none (special, pad) */
} wp_columns;

/* Write rows [from, to) (threads may write disjoint ranges at once). */
void wp_finish_write(const wp_sequences *s, const wp_plan *single, const wp_plan *pair,
                     const wp_truncation *t, const wp_padding *p, const wp_layout *l,
                     wp_columns *c, int64_t from, int64_t to);

#endif
