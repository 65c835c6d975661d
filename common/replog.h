/*
 * replog.h — a shard's replicated log in PostgreSQL (libpq).
 *
 * The log is one table shared by every shard of a service:
 *   engram_replog (shard text, seq bigint, payload bytea, at timestamptz,
 *                  PRIMARY KEY (shard, seq))
 * A record is an opaque payload (graphd: a GraphLogRecord, proto/engram/v1/graph_log.proto;
 * vectord: a VectorLogRecord, vector_log.proto; common/replica.h packs both)
 * at a position seq = 1, 2, 3 … with no gap. PostgreSQL is the source of truth; the
 * replicas' stores are its materialization (deploy/REPLICATION.md).
 *
 * One writer per shard, fenced three ways: the writer holds the session-level advisory
 * lock pg_try_advisory_lock(hashtextextended('engram_replog:' || shard, 0)); an append
 * is one INSERT statement that writes only while its session holds that lock and the
 * log ends exactly at first - 1; and (shard, seq) is unique. A writer whose session ended
 * (killed, partitioned, PostgreSQL restarted) can therefore never append again: it must
 * reconnect, take the lock anew and catch up. Each append notifies the channel
 * "engram_replog" with "<shard> <last seq>" (a statement trigger), which followers LISTEN
 * to; they read in batches, in seq order.
 *
 * The writer also publishes the address clients should send writes to
 * (engram_replog_writer), so that a follower can name it when it refuses a write. Users'
 * keys, which seal their records, live in engram_replog_keys (common/replica_keys.h).
 *
 * Thread rules: one connection per handle, guarded by its own mutex; any thread may call
 * any function. A handle whose connection broke answers EG_EUNAVAIL from then on: close
 * it and open a new one (a new session, which holds no lock).
 */
#ifndef EG_REPLOG_H
#define EG_REPLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

typedef struct eg_replog eg_replog;

/* One record read from the log; payload points into the batch that holds it. */
typedef struct eg_replog_record {
  uint64_t seq;
  const uint8_t *payload; /* borrowed until the batch is freed */
  size_t len;
  int64_t at_us; /* when the log committed it (PostgreSQL's clock, µs since the epoch) */
} eg_replog_record;

typedef struct eg_replog_batch {
  eg_replog_record *records; /* in seq order, no gap */
  size_t n;
  void *res; /* the result holding the payloads */
} eg_replog_batch;

/* A payload to append: borrowed for the call. */
typedef struct eg_replog_payload {
  const void *data;
  size_t len;
} eg_replog_payload;

/*
 * Connect with dsn (a libpq connection string or URI — several hosts with
 * target_session_attrs=read-write reach whichever is the primary now; application_name and
 * connect_timeout default to "engram" and 5 s, keepalives to idle 10 s / interval 5 s /
 * count 3 and tcp_user_timeout to 30 s, so that a server that vanished fails the session
 * in well under a minute), create the tables and trigger when missing, and LISTEN. shard: 1..100
 * bytes naming the log. EG_EUNAVAIL when PostgreSQL cannot be reached, EG_EINVAL for a bad shard
 * name.
 */
eg_code eg_replog_open(const char *dsn, const char *shard, eg_replog **out, eg_err *err);
void eg_replog_close(eg_replog *l); /* accepts NULL; ends the session (and its lock) */
const char *eg_replog_shard(const eg_replog *l);

/*
 * Try to become the shard's writer (never blocks). On success the lock is held by this
 * session until it ends, addr (the gRPC address writes should go to) is published, and
 * the session stops listening (a writer does not tail; eg_replog_wait only times out).
 */
eg_code eg_replog_try_lead(eg_replog *l, const char *addr, bool *leader, eg_err *err);

/* The last position of the log (0 when empty) and when it was committed (0 when empty). */
eg_code eg_replog_end(eg_replog *l, uint64_t *seq, int64_t *at_us, eg_err *err);

/*
 * Append n payloads at first, first+1 … as one statement (all or none). EG_EABORTED when
 * this session may not append there: it does not hold the shard's lock, or the log does
 * not end at first - 1 (another writer appended); EG_EUNAVAIL when the connection broke,
 * or the server committed but reported its wait for the synchronous standbys cancelled
 * (the outcome is then unknown: the records may or may not be in the log, and survive a
 * failover or not). With synchronous_standby_names set, EG_OK means the standbys have it;
 * while the quorum is unmet the call blocks.
 */
eg_code eg_replog_append(eg_replog *l, uint64_t first, const eg_replog_payload *p, size_t n,
                         eg_err *err);

/* Up to max records after position `after`, in order; free with eg_replog_batch_free. */
eg_code eg_replog_read(eg_replog *l, uint64_t after, size_t max, eg_replog_batch *out, eg_err *err);
void eg_replog_batch_free(eg_replog_batch *b); /* accepts an empty batch */

/*
 * Wait up to timeout_ms for an append notification of this shard. *end receives the
 * highest position notified (left unchanged when none came). Returns EG_OK on a
 * notification or a timeout, EG_EUNAVAIL when the connection broke.
 */
eg_code eg_replog_wait(eg_replog *l, int timeout_ms, uint64_t *end, eg_err *err);

/* The address the shard's writer published ("" when none ever did). */
eg_code eg_replog_writer(eg_replog *l, char *addr, size_t len, eg_err *err);

/*
 * Wait until everything the log has committed so far — what this session has just read
 * among it — is as durable as the server's commits are: a small write of our own
 * (engram_replog_barrier) whose commit waits for the synchronous standbys. Under
 * `synchronous_standby_names` a commit is visible on the primary before the standbys have
 * it; a record read there and applied before this returns could be lost by a failover
 * while a replica holds it. Blocks while the quorum is unmet. EG_EUNAVAIL when the
 * session broke or the server reports the wait cancelled (the commit is then only local).
 */
eg_code eg_replog_durable(eg_replog *l, eg_err *err);

/* "host:port" of the server this session is connected to (multi-host DSNs: the one
 * libpq chose). */
void eg_replog_server(eg_replog *l, char *buf, size_t len);

/* A round trip: EG_EUNAVAIL when the session is gone. */
eg_code eg_replog_ping(eg_replog *l, eg_err *err);

/* ---- keys: engram_replog_keys (kid, shard, tenant, user, key, created_at, shredded_at) ---- */

#define EG_REPLOG_KEY_LEN 32

/* The live key of (this shard, tenant, user), made now when there is none (INSERT … ON
 * CONFLICT DO NOTHING, then read: replicas racing get the same key). */
eg_code eg_replog_key_live(eg_replog *l, const char *tenant, const char *user, uint64_t *kid,
                           uint8_t key[EG_REPLOG_KEY_LEN], eg_err *err);
/* Key kid, which must be (tenant, user)'s: *shredded when its key was shredded (key left
 * untouched). EG_ECORRUPT when no such key ever existed or it is someone else's. */
eg_code eg_replog_key_by_id(eg_replog *l, uint64_t kid, const char *tenant, const char *user,
                            uint8_t key[EG_REPLOG_KEY_LEN], bool *shredded, eg_err *err);
/* Shred the keys of (this shard, tenant, user) — user NULL: every user's of the tenant —
 * made no later than the record at seq (an erasure, in the log). *shredded (may be NULL):
 * how many. Shredding twice is harmless. */
eg_code eg_replog_key_shred(eg_replog *l, const char *tenant, const char *user, uint64_t seq,
                            uint64_t *shredded, eg_err *err);

#endif
