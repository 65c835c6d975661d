/*
 * bulk.h — ingest a JSONL file through ingestd: one request per line, several in flight,
 * resumable, with a progress line.
 *
 * A line is a JSON IngestSessionRequest (has "messages"), IngestDocumentRequest (has
 * "text") or AssertFactsRequest (has "facts"); a line without a scope gets the default one.
 * Every request runs in sync mode, so a line counts as done only once it is written.
 * RESOURCE_EXHAUSTED, UNAVAILABLE and DEADLINE_EXCEEDED are retried with backoff: ingest is
 * idempotent by content, so sending a line twice is harmless. A line that is rejected
 * (bad JSON, INVALID_ARGUMENT …) is reported with its number, counts as done, and the run
 * goes on. When the retries run out, the run stops before that line with UNAVAILABLE.
 *
 * Resuming: the state file (default "<file>.progress") holds how many lines — and how many
 * bytes — form the longest prefix of the file that is done. It is rewritten atomically
 * (write, fsync, rename) at most every half second and at the end; with resume set, a run
 * starts after that prefix. Lines past it that were done before are sent again and come
 * back as duplicates.
 */
#ifndef EG_BULK_H
#define EG_BULK_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/arena.h"
#include "common/err.h"
#include "common/rpc.h"
#include "proto/engram/v1/ingest.pb-c.h"

/* The three ingest requests and their messages: session, document, facts (the message
 * type picks the RPC: eg_ingestd_ingest_call). */
typedef struct eg_ingest_kind {
  const char *name;
  const ProtobufCMessageDescriptor *desc;
} eg_ingest_kind;
enum { EG_INGEST_SESSION, EG_INGEST_DOCUMENT, EG_INGEST_FACTS, EG_INGEST_KINDS };
extern const eg_ingest_kind eg_ingest_kinds[EG_INGEST_KINDS];

/* One JSONL line → the ingest request it holds (its kind told by "messages", "text" or
 * "facts"), allocated in a. A blank line gives EG_OK with *req NULL; anything else that
 * is not such a request is EG_EINVAL with a message. */
eg_code eg_ingest_parse_line(const char *text, eg_arena *a, const eg_ingest_kind **kind,
                             ProtobufCMessage **req, eg_err *err);

/* Set the mode field of an ingest request (all three have one). */
void eg_ingest_set_mode(ProtobufCMessage *req, Engram__V1__IngestMode mode);

/* Whether an ingest failure is worth sending again: overloaded, unavailable, timed out. */
bool eg_ingest_retryable(eg_code rc);
/* Send one ingest request (the RPC of its type), retrying retryable failures with backoff (up to
 * ten attempts); *retries counts them (may be NULL). *resp as for eg_rpc_unary. */
eg_code eg_ingest_send(eg_rpc_client *c, const ProtobufCMessage *req,
                       Engram__V1__IngestResponse **resp, uint64_t *retries, eg_err *e);

/* A progress line on stderr: "[####....] done/total what pct%  extra  ETA …" (no bar and no
 * ETA when total is 0). */
void eg_progress_draw(uint64_t done, uint64_t total, const char *what, double elapsed_s,
                      const char *extra);

typedef struct eg_bulk_opts {
  const char *path;                  /* the JSONL file; "-" = stdin (no resume, no ETA) */
  const char *state_path;            /* NULL = "<path>.progress" */
  eg_rpc_client *client;             /* to ingestd; borrowed, shared by the workers */
  const char *tenant, *user, *agent; /* the scope of lines that have none */
  int parallel;                      /* requests in flight; 0 = 4 */
  bool resume;                       /* start after the prefix recorded in the state file */
  bool progress;                     /* a progress line on stderr */
  /* When it becomes non-zero (a signal handler sets it), no further line is sent: the
   * lines in flight finish, the state file records what is done, and the run returns
   * EG_ECANCELLED. NULL = never. */
  const volatile sig_atomic_t *interrupt;
} eg_bulk_opts;

enum { EG_BULK_MAX_STAGES = 16 };

typedef struct eg_bulk_stats {
  uint64_t lines;   /* lines read in this run (blank ones not counted) */
  uint64_t skipped; /* lines skipped by resume */
  uint64_t ok, duplicates, failed, retries;
  uint64_t chunks, entities, facts, tokens;
  uint64_t done_lines; /* the prefix of the file done (resume starts after it) */
  double seconds;      /* wall time of this run */
  size_t n_stages;
  struct {
    char name[24];
    int64_t micros; /* summed over the lines */
  } stages[EG_BULK_MAX_STAGES];
} eg_bulk_stats;

/* Run it. EG_OK when every line was read (some may have failed: see stats->failed);
 * EG_ECANCELLED when interrupted; an error (message in err) when the file or the state
 * file cannot be used. */
eg_code eg_bulk_run(const eg_bulk_opts *o, eg_bulk_stats *stats, eg_err *err);

#endif
