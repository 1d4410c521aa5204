/* The MaxMatch refinement of a merge vocabulary (refine.py's refine_python, in C).
 *
 * Words (code points, counts) and tokens (the vocabulary in order, then the protected
 * ones) are given one by one; wp_refiner_run swaps the least useful tokens for the
 * candidates that save the most greedy longest-match tokens, exactly as the Python
 * reference does (same rounds, batches, ties broken by code point order), and
 * wp_refiner_result gives the refined vocabulary in the reference's order.
 * Not handled here: Python objects (wp_merge_module.c), the alphabet (refine.py).
 */
#ifndef WP_REFINE_H
#define WP_REFINE_H

#include <stddef.h>
#include <stdint.h>

typedef struct wp_refiner wp_refiner;

typedef struct {
    int rounds;          /* rounds of (score, swap) */
    int first_batch;     /* swaps tried per batch at first; halved when one does not pay */
    int candidates;      /* candidates whose exact gain is computed per round */
    int64_t heavy;       /* tokens used more than heavy x the best gain are not measured */
} wp_refine_params;

wp_refiner *wp_refiner_new(const uint32_t *prefix, size_t prefix_length);

/* Add a training word seen count times: 0, or -1 when out of memory. */
int wp_refiner_word(wp_refiner *r, const uint32_t *chars, size_t length, int64_t count);

/* Add a vocabulary token (protected: 0) or a protected one (1): 0, or -1 (memory). */
int wp_refiner_token(wp_refiner *r, const uint32_t *chars, size_t length, int protected_);

/* Refine: 0, or -1 when out of memory. */
int wp_refiner_run(wp_refiner *r, const wp_refine_params *params);

/* The refined vocabulary, in order: *ids (owned by r), their number returned. */
size_t wp_refiner_result(wp_refiner *r, const int32_t **ids);

/* Token id's code points (owned by r). */
const uint32_t *wp_refiner_string(const wp_refiner *r, int32_t id, size_t *length);

void wp_refiner_free(wp_refiner *r);

#endif
