/*
 * metrics.h — retrieval metrics of engram-bench over a ranking of units, and their means
 * per category and overall.
 *
 * LongMemEval (as in its paper): sessions are ranked by the first appearance of one of their
 * units; recall_all@k = every evidence session is in the top k sessions, recall_any@k = at
 * least one is; ndcg@10 with binary relevance over sessions; turn_recall_any@10 = an
 * evidence unit is among the top 10 units (only for questions with marked turns).
 * LoCoMo: recall@k = the share of a question's evidence dialog turns among the top k units,
 * in percent.
 */
#ifndef EG_BENCH_METRICS_H
#define EG_BENCH_METRICS_H

#include <stdio.h>

#include "bench/dataset.h"

enum { EG_BMETRICS_MAX = 8 };

/* Units in rank order, each once; sessions point into the group (compare by pointer). */
typedef struct eg_brank {
  eg_bunit *u;
  size_t n, cap;
} eg_brank;

/* Append (session, turn) unless already ranked; session must be one of g's ids — any other
 * id (a session of no group, a document) is ignored, and returns false. */
bool eg_brank_add(eg_brank *r, const eg_bgroup *g, const char *session, int32_t turn);
void eg_brank_free(eg_brank *r);

/* One question's scores; has[i] false = not defined for this question. */
typedef struct eg_bscore {
  double v[EG_BMETRICS_MAX];
  bool has[EG_BMETRICS_MAX];
} eg_bscore;

/* The metric names of a set (their count is returned). */
size_t eg_bmetric_names(eg_bset set, const char *const **names);
void eg_bscore_question(eg_bset set, const eg_bquestion *q, const eg_brank *r, eg_bscore *out);

/* Means per category plus "overall". */
typedef struct eg_bcat {
  char *name;
  long questions;
  double sum[EG_BMETRICS_MAX];
  long cnt[EG_BMETRICS_MAX];
} eg_bcat;

typedef struct eg_btable {
  const char *const *names; /* the metrics (borrowed) */
  size_t n_names;
  bool percent; /* values are percentages (else fractions) */
  eg_bcat *c;   /* c[0] is "overall" */
  size_t n;
} eg_btable;

void eg_btable_init(eg_btable *t, const char *const *names, size_t n_names, bool percent);
void eg_btable_add(eg_btable *t, const char *category, const eg_bscore *s);
/* Mean of metric m in category c; NaN when no question had it. */
double eg_btable_mean(const eg_btable *t, size_t c, size_t m);
void eg_btable_free(eg_btable *t);

/* Markdown: one row per category, each metric of each system side by side. */
void eg_btable_markdown(FILE *f, const eg_btable *const *systems, const char *const *names,
                        size_t n_systems);
/* {"overall": {"questions": n, "recall_all@5": …}, "by_category": {…}} as cJSON text. */
char *eg_btable_json(const eg_btable *t);

#endif
