/* Symbol ids by name, for the likelihood: the token a pair makes, and the pairs that make
 * a token, are found by name. Open addressing over the code points (FNV-1a, then a
 * finalizer); a name is looked up as two pieces (x + y) so that no string is built.
 */
#include "wp_merge_internal.h"

static size_t hash_chars(const uint32_t *x, size_t nx, const uint32_t *y, size_t ny) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < nx; i++) h = (h ^ x[i]) * 0x100000001b3ull;
    for (size_t i = 0; i < ny; i++) h = (h ^ y[i]) * 0x100000001b3ull;
    h = (h ^ (h >> 31)) * 0x94D049BB133111EBull;
    return (size_t)(h ^ (h >> 29));
}

int32_t wp_names_find(const wp_name_index *index, const name_t *names, const uint32_t *x,
                      size_t nx, const uint32_t *y, size_t ny) {
    if (!index->cap) return -1;
    size_t mask = index->cap - 1;
    for (size_t i = hash_chars(x, nx, y, ny) & mask;; i = (i + 1) & mask) {
        int32_t slot = index->slots[i];
        if (!slot) return -1;
        const name_t *name = &names[slot - 1];
        if (name->length == nx + ny && (!nx || !memcmp(name->chars, x, nx * sizeof *x))
            && (!ny || !memcmp(name->chars + nx, y, ny * sizeof *y)))
            return slot - 1;
    }
}

static void put(int32_t *slots, size_t cap, const name_t *name, int32_t id) {
    size_t i = hash_chars(name->chars, name->length, NULL, 0) & (cap - 1);
    while (slots[i]) i = (i + 1) & (cap - 1);
    slots[i] = id + 1;
}

int wp_names_add(wp_name_index *index, const name_t *names, int32_t id) {
    if ((size_t)(index->n + 1) * 2 > index->cap) {  /* at most half full */
        size_t cap = index->cap ? index->cap * 2 : 1024;
        int32_t *slots = calloc(cap, sizeof *slots);
        if (!slots) return -1;
        for (size_t i = 0; i < index->cap; i++)
            if (index->slots[i]) put(slots, cap, &names[index->slots[i] - 1], index->slots[i] - 1);
        free(index->slots);
        index->slots = slots;
        index->cap = cap;
    }
    put(index->slots, index->cap, &names[id], id);
    index->n++;
    return 0;
}

void wp_names_free(wp_name_index *index) {
    free(index->slots);
    index->slots = NULL;
    index->cap = 0;
    index->n = 0;
}
