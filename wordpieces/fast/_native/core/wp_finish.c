/* Truncate, add special tokens and pad a batch in flat columns (see wp_finish.h). */
#include "wp_finish.h"

#include <string.h>

/* HF's longest_first split of `room` tokens between two sequences (padding.py). */
static void longest_first(int64_t n1, int64_t n2, int64_t room, int64_t *k1, int64_t *k2)
{
    int64_t shorter = n1 < n2 ? n1 : n2, longer = n1 < n2 ? n2 : n1;
    if (shorter > room)
        longer = shorter;
    else
        longer = shorter > room - shorter ? shorter : room - shorter;
    if (shorter + longer > room) {
        shorter = room / 2;
        longer = shorter + room % 2;
    }
    *k1 = n1 > n2 ? longer : shorter;
    *k2 = n1 > n2 ? shorter : longer;
}

/* padding.truncation_lengths: 0 when it fits, -1 when the reference raises. */
static int keep_lengths(const wp_truncation *t, int64_t n1, int64_t n2, int64_t n_added,
                        int64_t *k1, int64_t *k2)
{
    *k1 = n1;
    *k2 = n2;
    if (t->max_length < n_added)
        return -1;
    int64_t room = t->max_length - n_added, total = n1 + (n2 < 0 ? 0 : n2);
    if (room == 0) {
        *k1 = 0;
        *k2 = n2 < 0 ? -1 : 0;
        return 0;
    }
    if (total <= room)
        return 0;
    int64_t remove = total - room;
    if (t->strategy == WP_LONGEST_FIRST) {
        if (n2 < 0)
            *k1 = n1 - remove;
        else
            longest_first(n1, n2, room, k1, k2);
        return 0;
    }
    if (t->strategy == WP_ONLY_SECOND && n2 < 0)
        return -1;
    int64_t target = t->strategy == WP_ONLY_FIRST ? n1 : n2;
    if (target <= remove)
        return -1;
    if (t->strategy == WP_ONLY_FIRST)
        *k1 = n1 - remove;
    else
        *k2 = n2 - remove;
    return 0;
}

/* finishing.check_stride: a window must move forward. */
static int stride_ok(int64_t n, int64_t keep, int64_t stride)
{
    return !(0 < keep && keep < n && stride >= keep);
}

static int64_t row_length(const wp_sequences *s, int64_t row)
{
    return s->splits[row + 1] - s->splits[row];
}

static int64_t pair_row(const wp_sequences *s, int64_t i)
{
    return s->pair_rows ? s->pair_rows[i] : -1;
}

int wp_finish_keep(const wp_truncation *t, const wp_plan *plan, int64_t n1, int64_t n2,
                   int64_t *k1, int64_t *k2)
{
    *k1 = n1;
    *k2 = n2;
    if (!t->on)
        return 0;
    if (keep_lengths(t, n1, n2, plan->n_special, k1, k2) < 0 || !stride_ok(n1, *k1, t->stride)
        || (n2 >= 0 && !stride_ok(n2, *k2, t->stride)))
        return -1;
    return 0;
}

/* finishing.window_count: the rows truncating n tokens to `keep` makes (keep -1: no
 * sequence, one row). */
static int64_t window_count(int64_t n, int64_t keep, int64_t stride)
{
    if (keep < 0 || keep >= n)
        return 1;
    if (keep == 0) /* everything moves to one overflowing window */
        return 2;
    int64_t step = keep - stride;
    return 1 + (n - keep + step - 1) / step;
}

/* Window w of n tokens truncated to `keep` (encoding._window_ranges): its first token
 * and length. Window 0 is what truncation keeps. */
static void window_at(const wp_truncation *t, int64_t n, int64_t keep, int64_t w,
                      int64_t *start, int64_t *len)
{
    if (!t->on || keep >= n) {
        *start = 0;
        *len = n;
        return;
    }
    if (keep == 0) {
        *start = 0;
        *len = w ? n : 0;
        return;
    }
    int64_t step = keep - t->stride;
    if (t->left) {
        int64_t stop = n - w * step;
        *start = stop > keep ? stop - keep : 0;
        *len = stop - *start;
    } else {
        *start = w * step;
        *len = n - *start < keep ? n - *start : keep;
    }
}

/* Row q of an input whose sequences have m1 and m2 windows: which window of each, in
 * encoding.concat's order (both first windows; each later first window with every
 * second window; the first window with the later second windows). */
static void window_pair(int64_t q, int64_t m1, int64_t m2, int64_t *w1, int64_t *w2)
{
    int64_t crossed = 1 + (m1 - 1) * m2;
    if (q == 0) {
        *w1 = *w2 = 0;
    } else if (q < crossed) {
        *w1 = 1 + (q - 1) / m2;
        *w2 = (q - 1) % m2;
    } else {
        *w1 = 0;
        *w2 = q - crossed + 1;
    }
}

/* padding.PaddingParams.padded_bound: the padded length of rows of at most `longest`. */
static int64_t padded_bound(const wp_padding *p, int64_t longest)
{
    int64_t n = longest > p->length ? longest : p->length;
    return p->multiple > 0 && n % p->multiple ? n + p->multiple - n % p->multiple : n;
}

int64_t wp_finish_windows(const wp_sequences *s, const wp_plan *single, const wp_plan *pair,
                          const wp_truncation *t, const wp_padding *p, int64_t cap,
                          int64_t *n_rows)
{
    int64_t rows = 0;
    for (int64_t i = 0; i < s->n_inputs; i++) {
        int64_t b = pair_row(s, i);
        int64_t n1 = row_length(s, i), n2 = b < 0 ? -1 : row_length(s, b);
        int64_t k1, k2;
        if (wp_finish_keep(t, b < 0 ? single : pair, n1, n2, &k1, &k2) < 0)
            return i;
        int64_t m = window_count(n1, k1, t->stride) * (b < 0 ? 1 : window_count(n2, k2, t->stride));
        /* Finisher.keep: an input's padded windows are a batch of their own */
        int64_t bound = p->on ? padded_bound(p, t->max_length) : 0;
        if (bound > 0 && m > 1 && m > cap / bound)
            return i;
        rows += m;
    }
    *n_rows = rows;
    return -1;
}

/* Lay out the windows' rows of every input (the kept lengths are known to fit). */
static void layout_windows(const wp_sequences *s, const wp_plan *single, const wp_plan *pair,
                           const wp_truncation *t, wp_layout *out)
{
    int64_t r = 0;
    for (int64_t i = 0; i < s->n_inputs; i++) {
        int64_t b = pair_row(s, i);
        int64_t n1 = row_length(s, i), n2 = b < 0 ? -1 : row_length(s, b);
        const wp_plan *plan = b < 0 ? single : pair;
        int64_t k1, k2;
        wp_finish_keep(t, plan, n1, n2, &k1, &k2);
        int64_t m1 = window_count(n1, k1, t->stride);
        int64_t m2 = b < 0 ? 1 : window_count(n2, k2, t->stride);
        for (int64_t q = 0; q < m1 * m2; q++, r++) {
            int64_t w1, w2, len2 = -1;
            window_pair(q, m1, m2, &w1, &w2);
            window_at(t, n1, k1, w1, &out->start1[r], &out->keep1[r]);
            out->start2[r] = 0;
            if (b >= 0)
                window_at(t, n2, k2, w2, &out->start2[r], &len2);
            out->keep2[r] = len2;
            out->input[r] = i;
            out->row_splits[r + 1] = out->keep1[r] + (len2 < 0 ? 0 : len2) + plan->n_special;
        }
    }
}

int64_t wp_finish_layout(const wp_sequences *s, const wp_plan *single, const wp_plan *pair,
                         const wp_truncation *t, const wp_padding *p, wp_layout *out)
{
    if (out->input) {
        layout_windows(s, single, pair, t, out);
    } else {
        out->n_rows = s->n_inputs;
        for (int64_t i = 0; i < s->n_inputs; i++) {
            int64_t b = pair_row(s, i);
            int64_t n1 = row_length(s, i), n2 = b < 0 ? -1 : row_length(s, b);
            const wp_plan *plan = b < 0 ? single : pair;
            int64_t k1, k2;
            if (wp_finish_keep(t, plan, n1, n2, &k1, &k2) < 0)
                return i;
            out->keep1[i] = k1;
            out->keep2[i] = k2;
            out->row_splits[i + 1] = k1 + (k2 < 0 ? 0 : k2) + plan->n_special; /* lengths */
        }
    }
    /* HF pads to the longest first window: a longer later one (truncation that keeps
     * nothing moves everything to one) stays as it is */
    int64_t longest = 0;
    for (int64_t r = 0; r < out->n_rows; r++)
        if ((!out->input || r == 0 || out->input[r] != out->input[r - 1])
            && out->row_splits[r + 1] > longest)
            longest = out->row_splits[r + 1];
    int64_t target = 0;
    if (p->on) {
        target = p->length >= 0 ? p->length : longest;
        if (p->multiple > 0 && target % p->multiple)
            target += p->multiple - target % p->multiple;
    }
    out->target = target;
    out->row_splits[0] = 0;
    for (int64_t r = 0; r < out->n_rows; r++) {
        int64_t len = out->row_splits[r + 1];
        out->row_splits[r + 1] = out->row_splits[r] + (len > target ? len : target);
    }
    return -1;
}

/* Set column[at:at + n] to value (every value is written: the memory may be reused). */
static void put(int64_t *column, int64_t at, int64_t n, int64_t value)
{
    if (column)
        for (int64_t k = at; k < at + n; k++)
            column[k] = value;
}

/* Write `n` padding tokens at position `at` (column by column: tight loops). */
static void write_padding(const wp_padding *p, wp_columns *c, int64_t at, int64_t n)
{
    put(c->ids, at, n, p->pad_id);
    put(c->type_ids, at, n, p->pad_type_id);
    put(c->special, at, n, 1);
    put(c->attention, at, n, 0);
    put(c->offsets, 2 * at, 2 * n, 0);
    put(c->words, at, n, -1);
    put(c->sequences, at, n, -1);
}

/* Write `keep` tokens of sequence row `row` from its token `from` at `at`. */
static void write_sequence(const wp_sequences *s, int64_t row, int64_t from, int64_t keep,
                           const wp_piece *piece, wp_columns *c, int64_t at)
{
    int64_t type_id = piece->type_id;
    int64_t start = s->splits[row] + from;
    const int32_t *ids = s->ids + start;
    int64_t *out = c->ids + at;
    for (int64_t k = 0; k < keep; k++)
        out[k] = ids[k];
    put(c->type_ids, at, keep, type_id);
    put(c->special, at, keep, 0);
    put(c->attention, at, keep, 1);
    if (c->offsets)
        memcpy(c->offsets + 2 * at, s->offsets + 2 * start, (size_t)keep * 2 * sizeof(int64_t));
    if (c->words)
        for (int64_t k = 0; k < keep; k++)
            c->words[at + k] = s->word_ids[start + k];
    put(c->sequences, at, keep, piece->seq);
}

static void write_specials(const wp_piece *piece, wp_columns *c, int64_t at)
{
    memcpy(c->ids + at, piece->ids, (size_t)piece->n_ids * sizeof(int64_t));
    put(c->type_ids, at, piece->n_ids, piece->type_id);
    put(c->special, at, piece->n_ids, 1);
    put(c->attention, at, piece->n_ids, 1);
    put(c->offsets, 2 * at, 2 * piece->n_ids, 0);
    put(c->words, at, piece->n_ids, -1);
    put(c->sequences, at, piece->n_ids, -1);
}

/* Where row r's window of sequence row `row` (seq 0 or 1) starts, in that row. */
static int64_t window_start(const wp_sequences *s, const wp_truncation *t, const wp_layout *l,
                            int64_t r, int seq, int64_t row, int64_t keep)
{
    if (l->input)
        return seq == 0 ? l->start1[r] : l->start2[r];
    return t->on && t->left ? row_length(s, row) - keep : 0;
}

void wp_finish_write(const wp_sequences *s, const wp_plan *single, const wp_plan *pair,
                     const wp_truncation *t, const wp_padding *p, const wp_layout *l,
                     wp_columns *c, int64_t from, int64_t to)
{
    for (int64_t r = from; r < to; r++) {
        int64_t i = l->input ? l->input[r] : r;
        int64_t b = pair_row(s, i);
        const wp_plan *plan = b < 0 ? single : pair;
        int64_t width = l->row_splits[r + 1] - l->row_splits[r];
        int64_t len = l->keep1[r] + (b < 0 ? 0 : l->keep2[r]) + plan->n_special;
        int64_t at = l->row_splits[r];
        if (p->on && p->left) {
            write_padding(p, c, at, width - len);
            at += width - len;
        }
        for (int k = 0; k < plan->n_pieces; k++) {
            const wp_piece *piece = &plan->pieces[k];
            if (piece->seq < 0) {
                write_specials(piece, c, at);
                at += piece->n_ids;
            } else {
                int64_t row = piece->seq == 0 ? i : b;
                int64_t keep = piece->seq == 0 ? l->keep1[r] : l->keep2[r];
                write_sequence(s, row, window_start(s, t, l, r, piece->seq, row, keep), keep,
                               piece, c, at);
                at += keep;
            }
        }
        if (!(p->on && p->left))
            write_padding(p, c, at, width - len);
    }
}
