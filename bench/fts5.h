/*
 * fts5.h — the peer baseline of engram-bench: SQLite FTS5 BM25 (porter stemmer over
 * unicode61) over the same units Engram stores, one in-memory index per group. The query
 * is the question's words joined with OR.
 */
#ifndef EG_BENCH_FTS5_H
#define EG_BENCH_FTS5_H

#include "bench/dataset.h"
#include "bench/metrics.h"

typedef struct eg_fts5 eg_fts5;

/* Index g's units; NULL with a message on stderr on failure. */
eg_fts5 *eg_fts5_open(const eg_bgroup *g);
/* The top `limit` units for query, best first, appended to out. 0 on success. */
int eg_fts5_rank(eg_fts5 *f, const char *query, size_t limit, eg_brank *out);
void eg_fts5_close(eg_fts5 *f);

#endif
