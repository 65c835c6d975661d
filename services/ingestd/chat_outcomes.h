/*
 * chat_outcomes.h — outcomes read from a conversation, tied to the edge they are about.
 *
 * The enrichers report what the user says came of something suggested to them before
 * (eg_outcome: "the restaurant you suggested was great" → SUCCEEDED of "a restaurant").
 * After a session's edges are committed, ingestd reads the user's ACCEPTED edges from
 * graphd (History), picks the one each outcome refers to (eg_outcome_resolve) and records
 * the outcome on it (Graph.RecordOutcome, source = the session id, time = the turn's
 * time), once: an outcome of the same kind, note and source already on that (relation,
 * object) is not recorded again, so a replayed or re-ingested session adds nothing.
 */
#ifndef EG_INGESTD_CHAT_OUTCOMES_H
#define EG_INGESTD_CHAT_OUTCOMES_H

#include <stddef.h>
#include <stdint.h>

#include "common/arena.h"
#include "common/err.h"
#include "common/rpc.h"
#include "lang/enrich.h"
#include "proto/engram/v1/common.pb-c.h"

/* One outcome read from a session: where and when it was said. */
typedef struct eg_chat_outcome {
  const eg_outcome *o;
  int64_t time; /* the turn's time (µs) */
  int32_t turn; /* its turn index */
} eg_chat_outcome;

/* An edge an outcome may refer to, as the resolution sees it. */
typedef struct eg_outcome_edge {
  uint64_t id;
  const char *object;      /* the object entity's name, or the literal */
  const char *object_type; /* the object entity's type ("" for a literal or untyped) */
  const char *suggestion;  /* how the suggestion was worded (meta.reason), may be "" */
  int64_t valid_from, t_commit;
  const char *session; /* meta.source_session_id, may be "" */
  int32_t turn;        /* meta.source_turn */
} eg_outcome_edge;

/*
 * The edge an outcome said at (time, session, turn) refers to: among the edges stated
 * before it (valid_from ≤ time; from the same session, an earlier turn), those whose
 * object fits — by name when the outcome names its thing (the same words, or the first
 * words of the other: "Sakura" fits "Sakura Sushi"), else by its category (the noun or a
 * word of its family, in the object's entity type, name or suggestion) — the most recently
 * stated one (valid_from, then t_commit). Returns its index, or -1 when none fits.
 */
long eg_outcome_resolve(const eg_outcome *o, int64_t time, const char *session, int32_t turn,
                        const eg_outcome_edge *edges, size_t n);

/* Resolve and record the n outcomes of session_id said by the user of scope (their
 * entity user_entity) through graphd; notes are cut to note_max bytes. *recorded counts
 * the outcomes recorded now. */
eg_code eg_chat_outcomes_record(eg_rpc_client *graphd, const Engram__V1__Scope *scope,
                                const char *session_id, const char *user_entity,
                                const eg_chat_outcome *v, size_t n, size_t note_max, eg_arena *a,
                                uint32_t *recorded, eg_err *err);

#endif
