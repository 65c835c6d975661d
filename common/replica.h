/*
 * replica.h — a daemon's store as one replica of a shard whose source of truth is a log
 * in PostgreSQL (common/replog.h, deploy/REPLICATION.md). graphd and vectord use it alike.
 *
 * A replica is the writer or a follower. The writer holds the shard's lock, appends every
 * write to the log before its store writes it (common/kv.h EG_KV_LEADER) and is the only
 * replica that accepts writes. A follower tails the log — woken by LISTEN/NOTIFY, reading
 * in batches — and hands the records, in order, to the daemon's apply function, which
 * persists the position with each applied batch (eg_kvtxn_commit_applied); it serves
 * reads, and answers writes UNAVAILABLE with the writer's address. When the writer's
 * session ends, a follower that has caught up takes the lock, applies the log to its end,
 * and only then accepts writes. A writer whose append is refused (fenced) or whose session
 * is lost steps down: it stops taking writes, forgets what it had not made durable, and
 * follows.
 *
 * Thread rules: one thread of its own runs the role; write handlers bracket each write
 * with eg_replica_write_begin/_end (a shared lock the role changes take exclusively).
 */
#ifndef EG_REPLICA_H
#define EG_REPLICA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/cfg.h"
#include "common/err.h"
#include "common/kv.h"
#include "common/metrics.h"
#include "common/replog.h"
#include "common/rpc.h"

typedef struct eg_replica eg_replica;

/* Apply records read from the log, in order, each at its position (> eg_kv_position). */
typedef eg_code (*eg_replica_apply_fn)(void *ctx, const eg_replog_record *recs, size_t n,
                                       eg_err *err);

/* Options of a daemon whose shard may be replicated; prefix names its logs ("graph"). */
#define EG_REPLICA_OPTS(prefix)                                                                    \
  {"replog_dsn",                                                                                   \
   EG_CFG_STR,                                                                                     \
   "",                                                                                             \
   "PostgreSQL connection string of the shard's replicated log (deploy/REPLICATION.md); "          \
   "empty = a single node",                                                                        \
   EG_CFG_SECRET,                                                                                  \
   0,                                                                                              \
   0},                                                                                             \
      {"replog_shard",                                                                             \
       EG_CFG_STR,                                                                                 \
       "",                                                                                         \
       "the log's name for this shard; empty = " prefix "-<shard_index>",                          \
       0,                                                                                          \
       0,                                                                                          \
       0},                                                                                         \
      {"replog_advertise",                                                                         \
       EG_CFG_STR,                                                                                 \
       "",                                                                                         \
       "host:port clients send writes to while this replica is the writer; empty = "               \
       "grpc_addr's host, the bound port",                                                         \
       0,                                                                                          \
       0,                                                                                          \
       0},                                                                                         \
  {                                                                                                \
    "replog_batch", EG_CFG_INT, "512", "log records a follower reads and applies at a time", 0, 1, \
        100000                                                                                     \
  }

typedef struct eg_replica_opts {
  const char *dsn;     /* libpq connection string of the log (copied) */
  const char *shard;   /* the log's name for this shard, e.g. "graph-0" (copied) */
  int batch;           /* records read and applied at a time (0 = 512) */
  const char *service; /* "graphd": metrics are engram_<service>_replication_… */
  const ProtobufCMessageDescriptor *record; /* the log's records (GraphLogRecord …) */
} eg_replica_opts;

/*
 * A replica of store (borrowed; must outlive it), a follower that applies nothing yet: the
 * store refuses logged writes from now on. apply(ctx, …) applies what the log holds.
 * Metrics (m may be NULL): engram_<service>_replication_{role{role},applied_seq,
 * lag_records,lag_seconds}.
 */
eg_code eg_replica_new(eg_kv *store, eg_replica_apply_fn apply, void *ctx, const eg_replica_opts *o,
                       eg_metrics *m, eg_replica **out, eg_err *err);
/* Start following (and leading when the lock is free); advertise: the address clients
 * send writes to when this replica is the writer (copied). */
eg_code eg_replica_start(eg_replica *r, const char *advertise, eg_err *err);
/* Stop the thread, end the log session (and the lock). Accepts NULL. */
void eg_replica_free(eg_replica *r);

/*
 * The replica a daemon's configuration asks for (the options of EG_REPLICA_OPTS): *out
 * NULL when replog_dsn is empty (a single node). The log is replog_shard, else
 * "<prefix>-<shard_index>". Start it with eg_replica_serve once the gRPC port is bound.
 */
eg_code eg_replica_configure(const eg_cfg *c, const char *prefix, uint32_t shard_index,
                             const char *service, const ProtobufCMessageDescriptor *record,
                             eg_kv *store, eg_replica_apply_fn apply, void *ctx, eg_metrics *m,
                             eg_replica **out, eg_err *err);
/* eg_replica_start with replog_advertise, else grpc_addr's host (this host's name when
 * it listens on every interface) and the bound port. r NULL: nothing to do. */
eg_code eg_replica_serve(eg_replica *r, int grpc_port, eg_err *err);

/*
 * A write may go ahead: EG_OK with the write gate held (release it with
 * eg_replica_write_end whatever the write's outcome), or EG_EUNAVAIL with the message
 * "not the writer of shard <s>; writer=<host:port>" ("writer=unknown" when none is known).
 * r NULL (no log: a single node) always goes ahead.
 */
eg_code eg_replica_write_begin(eg_replica *r, eg_err *err);
void eg_replica_write_end(eg_replica *r);

/* ---- records: the envelope of every log's records ---- */

/*
 * graphd's GraphLogRecord and vectord's VectorLogRecord are one envelope (format, tenant,
 * tenant_id, user, body, key_id, nonce, erases, erases_tenant): format 1 carries the
 * daemon's write (body_desc) in the clear; a user's record is sealed (format 2) as it is
 * appended and opened as it is read (common/replica_keys.h). Pack one around body into a
 * (*out, *len), with the record's descriptor rec_desc. erases: NULL, or the write erases
 * that user ("": the whole tenant) — the record is then no user's.
 */
eg_code eg_record_pack(eg_arena *a, const ProtobufCMessageDescriptor *rec_desc, const char *tenant,
                       uint64_t tenant_id, const char *user, const char *erases,
                       const ProtobufCMessage *body, uint8_t **out, size_t *len, eg_err *err);
/* The envelope (*rec, a rec_desc) and the write (*body, a body_desc) of a record read from
 * the log, in a; EG_ECORRUPT naming the position when it is not one (`what`: "graph"), has
 * another format, or no tenant. A record whose key was shredded (EG_RECORD_SHREDDED) has
 * *body NULL: only its tenant and position are left to apply. */
eg_code eg_record_open(eg_arena *a, const ProtobufCMessageDescriptor *rec_desc,
                       const ProtobufCMessageDescriptor *body_desc, const eg_replog_record *r,
                       const char *what, ProtobufCMessage **rec, ProtobufCMessage **body,
                       eg_err *err);

/* ---- watermarks: read-your-writes across replicas ---- */

/* A read without a deadline waits this long for its watermark. */
#define EG_WATERMARK_WAIT_DEFAULT_US (10 * 1000000LL)

/* The text of a position: "<tag>1:<hex>" ("g1:2a" for graphd, "v1:2a" for vectord). */
void eg_watermark_format(char tag, uint64_t pos, char *buf, size_t len);
/* Parse one; EG_EINVAL naming the expected form and whose write (`what`) gives it. */
eg_code eg_watermark_parse(const char *w, char tag, const char *what, uint64_t *pos, eg_err *err);
/* The message's `watermark` string field, or NULL when it has none. */
char **eg_watermark_field(const ProtobufCMessage *m);
/* What a read request's watermark asks for: *pos (0 = none: no wait) and the time to wait
 * until (the call's deadline, else EG_WATERMARK_WAIT_DEFAULT_US from now). */
eg_code eg_watermark_of_request(eg_rpc_call *call, const ProtobufCMessage *req, char tag,
                                const char *what, uint64_t *pos, int64_t *deadline_us, eg_err *err);
/* Set a write response's `watermark` (when it has one) to pos, in the call's arena. */
eg_code eg_watermark_set(eg_rpc_call *call, ProtobufCMessage *resp, char tag, uint64_t pos,
                         eg_err *err);

#endif
