/*
 * dataset.h — the evaluation sets of engram-bench in one shape: groups of sessions that
 * form one scope (a LongMemEval question's haystack, a LoCoMo conversation) and the
 * questions asked of that scope, each with its evidence sessions and evidence units.
 *
 * A unit is what both systems rank and what turn-level metrics count: in LongMemEval a user
 * turn with the assistant reply that follows (the round ingestd stores as one chunk; its
 * turn index is the user turn's), in LoCoMo one dialog turn (every LoCoMo turn is sent as a
 * "user" message with the speaker's name, so each is its own chunk). Turn indices count the
 * messages as sent, after empty (or blank) ones are dropped. Turn-level metrics expand a ranking of
 * units into the ranking of their turns.
 *
 * The data is read from ../shared/data at run time; nothing of it is copied.
 */
#ifndef EG_BENCH_DATASET_H
#define EG_BENCH_DATASET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/split.h"

#define EG_LOCOMO_DEFAULT EG_SOURCE_DIR "/../shared/data/locomo/locomo_dev.json"

typedef struct eg_bmsg {
  char *role, *name, *content;
} eg_bmsg;

typedef struct eg_bsession {
  char *id;
  int64_t time; /* µs */
  eg_bmsg *m;
  size_t n;
} eg_bsession;

typedef struct eg_bunit {
  const char *session; /* session id (points into the group) */
  int32_t turn;        /* first message of the unit */
  int32_t len;         /* messages in it */
} eg_bunit;

typedef struct eg_bquestion {
  char *id, *category, *query, *answer;
  int64_t at;      /* the question's "now", µs; 0 = none */
  bool excluded;   /* abstention: not scored (LongMemEval _abs) */
  eg_bsplit split; /* its half: tune or confirm (bench/split.h) */
  char **sessions; /* evidence sessions */
  size_t n_sessions;
  eg_bunit *units; /* evidence turns (len 1): LongMemEval has_answer, LoCoMo evidence */
  size_t n_units;
} eg_bquestion;

typedef struct eg_bgroup {
  char *user; /* the scope's user: the question id or the conversation id */
  eg_bsession *s;
  size_t ns;
  eg_bquestion *q;
  size_t nq;
} eg_bgroup;

typedef enum eg_bset { EG_BSET_LME = 0, EG_BSET_LOCOMO = 1 } eg_bset;

typedef struct eg_bdata {
  eg_bset set;
  eg_bgroup *g;
  size_t n;
} eg_bdata;

/* Load LongMemEval (.jsonl.gz) — the first `limit` questions (0 = all) whose type is in the
 * comma-separated `types` (NULL = all) — or LoCoMo (.json; limit counts conversations).
 * 0 on success; -1 with a message on stderr. */
int eg_bdata_load_lme(const char *path, long limit, const char *types, eg_bdata *d);
int eg_bdata_load_locomo(const char *path, long limit, eg_bdata *d);
void eg_bdata_free(eg_bdata *d);

/* The questions a split keeps, and all of them; "scored" counts those not excluded. */
typedef struct eg_bsplit_count {
  size_t kept, total, kept_scored, total_scored;
} eg_bsplit_count;

/* Keep only the questions of half `want` (EG_BSPLIT_ALL keeps all), in order; a group left
 * without questions is dropped (nothing to ingest it for), a group with some keeps all its
 * sessions. *count (may be NULL) gets what was kept of what was loaded. */
void eg_bdata_split(eg_bdata *d, eg_bsplit want, eg_bsplit_count *count);

/* The unit a message belongs to: the index of its round's first message. In a session,
 * a round is a user message with the assistant messages that follow it; any other message
 * is a round of its own. */
int32_t eg_bunit_start(const eg_bsession *s, size_t msg);

/* "1:56 pm on 8 May, 2023" → µs (0 when malformed). */
int64_t eg_locomo_time(const char *s);

#endif
