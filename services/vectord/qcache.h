/*
 * qcache.h — recently embedded query texts and their vectors. A Recall sends the same
 * variants to vectord more than once (all time, inside the question's range, chunk
 * expansion), and agents repeat questions; with a transformer embedder the query's forward
 * pass is most of a search. Direct-mapped by the text's hash, exact text compared, thread-safe.
 */
#ifndef EG_VECTORD_QCACHE_H
#define EG_VECTORD_QCACHE_H

#include <stdbool.h>
#include <stddef.h>

typedef struct eg_qcache eg_qcache;

/* slots entries of dim floats; NULL when slots is 0 (no cache) or out of memory. */
eg_qcache *eg_qcache_new(size_t slots, int dim);
void eg_qcache_free(eg_qcache *c); /* accepts NULL */

/* Copy the vector of text into out; false when it is not cached (or c is NULL). */
bool eg_qcache_get(eg_qcache *c, const char *text, float *out);
/* Forget every entry (an erasure: query texts are user content); returns how many. */
size_t eg_qcache_clear(eg_qcache *c);
/* Remember text's vector (texts over 1 KiB are not kept). */
void eg_qcache_put(eg_qcache *c, const char *text, const float *v);

#endif
