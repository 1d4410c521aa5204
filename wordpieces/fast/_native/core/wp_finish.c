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

int64_t wp_finish_layout(const wp_sequences *s, const wp_plan *single, const wp_plan *pair,
                         const wp_truncation *t, const wp_padding *p, wp_layout *out)
{
    int64_t longest = 0;
    for (int64_t i = 0; i < s->n_inputs; i++) {
        int64_t b = pair_row(s, i);
        int64_t n1 = row_length(s, i), n2 = b < 0 ? -1 : row_length(s, b);
        const wp_plan *plan = b < 0 ? single : pair;
        int64_t k1, k2;
        if (wp_finish_keep(t, plan, n1, n2, &k1, &k2) < 0)
            return i;
        out->keep1[i] = k1;
        out->keep2[i] = k2;
        int64_t len = k1 + (k2 < 0 ? 0 : k2) + plan->n_special;
        out->row_splits[i + 1] = len; /* lengths for now */
        if (len > longest)
            longest = len;
    }
    int64_t target = 0;
    if (p->on) {
        target = p->length >= 0 ? p->length : longest;
        if (p->multiple > 0 && target % p->multiple)
            target += p->multiple - target % p->multiple;
    }
    out->target = target;
    out->row_splits[0] = 0;
    for (int64_t i = 0; i < s->n_inputs; i++) {
        int64_t len = out->row_splits[i + 1];
        out->row_splits[i + 1] = out->row_splits[i] + (len > target ? len : target);
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

/* Write `keep` tokens of sequence row `row` (cut as truncation says) at `at`. */
static void write_sequence(const wp_sequences *s, const wp_truncation *t, int64_t row,
                           int64_t keep, const wp_piece *piece, wp_columns *c, int64_t at)
{
    int64_t type_id = piece->type_id;
    int64_t start = s->splits[row];
    if (t->on && t->left)
        start += row_length(s, row) - keep;
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

void wp_finish_write(const wp_sequences *s, const wp_plan *single, const wp_plan *pair,
                     const wp_truncation *t, const wp_padding *p, const wp_layout *l,
                     wp_columns *c, int64_t from, int64_t to)
{
    for (int64_t i = from; i < to; i++) {
        int64_t b = pair_row(s, i);
        const wp_plan *plan = b < 0 ? single : pair;
        int64_t width = l->row_splits[i + 1] - l->row_splits[i];
        int64_t len = l->keep1[i] + (b < 0 ? 0 : l->keep2[i]) + plan->n_special;
        int64_t at = l->row_splits[i];
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
                int64_t row = piece->seq == 0 ? i : b, keep = piece->seq == 0 ? l->keep1[i] : l->keep2[i];
                write_sequence(s, t, row, keep, piece, c, at);
                at += keep;
            }
        }
        if (!(p->on && p->left))
            write_padding(p, c, at, width - len);
    }
}
