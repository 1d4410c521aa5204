/* The refiner's words, tokens and greedy segmentation (wp_refine.h; the loop is in
 * wp_refine_loop.c). Tokens are interned strings: the vocabulary, the protected tokens
 * and every join of two adjacent pieces share one id space, as refine.py's dicts share
 * their string keys.
 */
#include "wp_refine_internal.h"

int refiner_grow(void **array, size_t *cap, size_t need, size_t size) {
    if (need <= *cap) return 0;
    size_t bigger = *cap ? *cap * 2 : 16;
    if (bigger < need) bigger = need;
    void *grown = realloc(*array, bigger * size);
    if (!grown) return -1;
    *array = grown;
    *cap = bigger;
    return 0;
}

static size_t string_hash(const uint32_t *chars, size_t length) {  /* FNV-1a over code points */
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < length; i++) h = (h ^ chars[i]) * 1099511628211ull;
    return (size_t)(h ^ (h >> 29));
}

static int same(const wp_refiner *r, int32_t id, const uint32_t *chars, size_t length) {
    const tok_t *t = &r->toks[id];
    return t->length == length
           && (!length || !memcmp(r->pool + t->start, chars, length * sizeof *chars));
}

static int grow_table(wp_refiner *r) {
    size_t cap = r->cap_table ? r->cap_table * 2 : 1024;
    int32_t *table = calloc(cap, sizeof *table);
    if (!table) return -1;
    for (size_t id = 0; id < r->n_toks; id++) {
        const tok_t *t = &r->toks[id];
        size_t i = string_hash(r->pool + t->start, t->length) & (cap - 1);
        while (table[i]) i = (i + 1) & (cap - 1);
        table[i] = (int32_t)id + 1;
    }
    free(r->table);
    r->table = table;
    r->cap_table = cap;
    return 0;
}

/* The id of a string, made if new: >= 0, or -1 when out of memory. */
int refiner_intern(wp_refiner *r, const uint32_t *chars, size_t length) {
    if ((r->n_toks + 1) * 2 > r->cap_table && grow_table(r) < 0) return -1;
    size_t i = string_hash(chars, length) & (r->cap_table - 1);
    for (; r->table[i]; i = (i + 1) & (r->cap_table - 1))
        if (same(r, r->table[i] - 1, chars, length)) return r->table[i] - 1;
    if (r->n_toks >= INT32_MAX - 1 || length > UINT32_MAX
        || refiner_grow((void **)&r->toks, &r->cap_toks, r->n_toks + 1, sizeof *r->toks) < 0
        || refiner_grow((void **)&r->pool, &r->cap_pool, r->n_pool + length, sizeof *r->pool) < 0)
        return -1;
    if (length) memcpy(r->pool + r->n_pool, chars, length * sizeof *chars);
    tok_t *t = &r->toks[r->n_toks];
    memset(t, 0, sizeof *t);
    t->start = r->n_pool;
    t->length = (uint32_t)length;
    t->order = t->came_in = -1;
    t->rest = r->prefix_length && length > r->prefix_length
              && !memcmp(chars, r->prefix, r->prefix_length * sizeof *chars);
    r->n_pool += length;
    r->table[i] = (int32_t)r->n_toks + 1;
    return (int32_t)r->n_toks++;
}

/* The id of left's string followed by right's without the prefix (made if new). */
int refiner_join(wp_refiner *r, int32_t left, int32_t right) {
    const tok_t *a = &r->toks[left], *b = &r->toks[right];
    size_t cut = b->length < r->prefix_length ? b->length : r->prefix_length;
    size_t length = a->length + b->length - cut;
    if (refiner_grow((void **)&r->spell, &r->cap_spell, length, sizeof *r->spell) < 0)
        return -1;
    if (!length) return refiner_intern(r, NULL, 0);
    if (a->length) memcpy(r->spell, r->pool + a->start, a->length * sizeof *r->spell);
    if (b->length > cut)
        memcpy(r->spell + a->length, r->pool + b->start + cut,
               (b->length - cut) * sizeof *r->spell);
    return refiner_intern(r, r->spell, length);
}

static wp_pieces_trie *trie_of(const wp_refiner *r, const tok_t *t, const uint32_t **bare,
                               size_t *length) {
    size_t skip = t->rest ? r->prefix_length : 0;
    *bare = r->pool + t->start + skip;
    *length = t->length - skip;
    return t->rest ? r->rest : r->first;
}

/* Put token id in the vocabulary (its trie): 0, or -1 when out of memory. */
int refiner_add(wp_refiner *r, int32_t id) {
    const uint32_t *bare;
    size_t length;
    wp_pieces_trie *trie = trie_of(r, &r->toks[id], &bare, &length);
    r->toks[id].in_vocab = 1;
    return wp_pieces_trie_add(trie, bare, length, id);
}

void refiner_discard(wp_refiner *r, int32_t id) {
    const uint32_t *bare;
    size_t length;
    wp_pieces_trie *trie = trie_of(r, &r->toks[id], &bare, &length);
    r->toks[id].in_vocab = 0;
    wp_pieces_trie_add(trie, bare, length, -1);  /* the path exists: no allocation */
}

/* Word w's greedy pieces from start (a continuation if start > 0) into out (unless
 * NULL): how many, or -1 when a stretch matches no token ([UNK]). */
int32_t refiner_split(const wp_refiner *r, int32_t w, size_t start, int32_t *out) {
    const word_t *word = &r->words[w];
    const uint32_t *chars = r->chars + word->start;
    int32_t n = 0;
    size_t end = 0;
    while (start < word->length) {
        int32_t id = wp_pieces_trie_longest(start ? r->rest : r->first, chars, word->length,
                                            start, &end);
        if (id < 0) return -1;
        if (out) out[n] = id;
        n++;
        start = end;
    }
    return n;
}

/* Record that word w uses token id (repeats are dropped when the users are read). */
int refiner_user(wp_refiner *r, int32_t id, int32_t w) {
    tok_t *t = &r->toks[id];
    if (t->n_users == t->cap_users) {
        size_t cap = t->cap_users;
        if (cap >= UINT32_MAX / 2
            || refiner_grow((void **)&t->users, &cap, cap + 1, sizeof *t->users) < 0)
            return -1;
        t->cap_users = (uint32_t)cap;
    }
    t->users[t->n_users++] = w;
    return 0;
}

/* The words whose pieces hold token id, each once: toks[id].users[0..returned). */
uint32_t refiner_users(wp_refiner *r, int32_t id) {
    tok_t *t = &r->toks[id];
    uint32_t stamp = ++r->seen_stamp, kept = 0;
    for (uint32_t i = 0; i < t->n_users; i++) {
        int32_t w = t->users[i];
        if (r->words[w].seen == stamp || !pieces_hold(r, w, id)) continue;
        r->words[w].seen = stamp;
        t->users[kept++] = w;
    }
    return t->n_users = kept;
}

static int holds(const uint32_t *text, size_t n, const uint32_t *part, size_t m, int anywhere) {
    if (m > n) return 0;
    for (size_t at = 0; at + m <= n; at++) {
        if (!memcmp(text + at, part, m * sizeof *part)) return 1;
        if (!anywhere) return 0;
    }
    return 0;
}

/* Append to found the words (not marked with word_stamp yet; now marked) whose greedy
 * split may change when token id joins: those split through one of its prefixes that
 * hold it (anywhere for a continuation or without a prefix, else at the start). */
int refiner_touched_by(wp_refiner *r, int32_t id, int32_t **found, size_t *n, size_t *cap) {
    const uint32_t *bare;
    size_t length;
    const tok_t *t = &r->toks[id];
    int anywhere = t->rest || !r->prefix_length;
    wp_pieces_trie *trie = trie_of(r, t, &bare, &length);
    if (length < 2) return 0;
    if (refiner_grow((void **)&r->scratch, &r->cap_scratch, length, sizeof *r->scratch) < 0)
        return -1;
    wp_pieces_trie_along(trie, bare, length - 1, r->scratch);
    for (size_t end = 1; end < length; end++) {
        int32_t head = r->scratch[end - 1];
        if (head < 0) continue;
        uint32_t users = refiner_users(r, head);
        for (uint32_t i = 0; i < users; i++) {
            int32_t w = r->toks[head].users[i];
            word_t *word = &r->words[w];
            if (word->mark == r->word_stamp
                || !holds(r->chars + word->start, word->length, bare, length, anywhere))
                continue;
            if (refiner_grow((void **)found, cap, *n + 1, sizeof **found) < 0) return -1;
            word->mark = r->word_stamp;
            (*found)[(*n)++] = w;
        }
    }
    return 0;
}

/* Add sign x word w's count to the joins of its adjacent pieces. */
int refiner_count_joins(wp_refiner *r, int32_t w, const int32_t *pieces, int32_t n,
                        int64_t sign) {
    for (int32_t i = 0; i + 1 < n; i++) {
        int join = refiner_join(r, pieces[i], pieces[i + 1]);
        if (join < 0) return -1;
        r->toks[join].joins += sign * r->words[w].count;
    }
    return 0;
}

/* Split every word, record the users. */
int refiner_setup(wp_refiner *r) {
    free(r->pieces);
    r->pieces = malloc((r->n_chars ? r->n_chars : 1) * sizeof *r->pieces);
    if (!r->pieces) return -1;
    for (size_t w = 0; w < r->n_words; w++) {
        word_t *word = &r->words[w];
        int32_t *pieces = r->pieces + word->start;
        word->n_pieces = refiner_split(r, (int32_t)w, 0, pieces);
        for (int32_t i = 0; i < word->n_pieces; i++) {
            int first_use = 1;
            for (int32_t j = 0; j < i; j++) first_use &= pieces[j] != pieces[i];
            if (first_use && refiner_user(r, pieces[i], (int32_t)w) < 0) return -1;
        }
    }
    return 0;
}

wp_refiner *wp_refiner_new(const uint32_t *prefix, size_t prefix_length) {
    wp_refiner *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->prefix = malloc((prefix_length ? prefix_length : 1) * sizeof *prefix);
    r->first = wp_pieces_trie_new();
    r->rest = prefix_length ? wp_pieces_trie_new() : r->first;
    if (!r->prefix || !r->first || !r->rest || grow_table(r) < 0) {
        wp_refiner_free(r);
        return NULL;
    }
    if (prefix_length) memcpy(r->prefix, prefix, prefix_length * sizeof *prefix);
    r->prefix_length = prefix_length;
    return r;
}

int wp_refiner_word(wp_refiner *r, const uint32_t *chars, size_t length, int64_t count) {
    if (length > UINT32_MAX || r->n_words >= INT32_MAX
        || refiner_grow((void **)&r->words, &r->cap_words, r->n_words + 1, sizeof *r->words) < 0
        || refiner_grow((void **)&r->chars, &r->cap_chars, r->n_chars + length,
                        sizeof *r->chars) < 0)
        return -1;
    if (length) memcpy(r->chars + r->n_chars, chars, length * sizeof *chars);
    word_t *word = &r->words[r->n_words++];
    memset(word, 0, sizeof *word);
    word->start = r->n_chars;
    word->length = (uint32_t)length;
    word->count = count;
    r->n_chars += length;
    return 0;
}

int wp_refiner_token(wp_refiner *r, const uint32_t *chars, size_t length, int protected_) {
    int id = refiner_intern(r, chars, length);
    if (id < 0) return -1;
    if (protected_) {
        r->toks[id].kept = 1;
        return 0;
    }
    r->toks[id].order = r->n_order++;
    return refiner_add(r, id);
}

size_t wp_refiner_result(wp_refiner *r, const int32_t **ids) {
    *ids = r->result;
    return r->n_result;
}

const uint32_t *wp_refiner_string(const wp_refiner *r, int32_t id, size_t *length) {
    *length = r->toks[id].length;
    return r->pool + r->toks[id].start;
}

void wp_refiner_free(wp_refiner *r) {
    if (!r) return;
    for (size_t i = 0; i < r->n_toks; i++) free(r->toks[i].users);
    if (r->rest != r->first) wp_pieces_trie_free(r->rest);
    wp_pieces_trie_free(r->first);
    free(r->prefix);
    free(r->chars);
    free(r->words);
    free(r->pieces);
    free(r->pool);
    free(r->toks);
    free(r->table);
    free(r->result);
    free(r->scratch);
    free(r->spell);
    free(r);
}
