/*
 * replica.c — the writer/follower roles of a replica over the shard's log (see
 * replica.h). One thread runs the role:
 *
 *   follower  read the log after our position in batches, apply, repeat while full
 *             batches come; once caught up, try the lock; else wait for a notification
 *             (or 200 ms, the lock retry tick). With the lock: read to the log's end, apply,
 *             then the store turns leader and writes are let in.
 *   writer    ping the session every second; a failed append (kv's append hook) or a lost
 *             session makes it step down: writes are shut out, the gate is taken
 *             exclusively (in-flight writes finish — failing), the store forgets what was
 *             not durable, the session is closed (releasing the lock) and it follows.
 */
#include "common/replica.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/replica_keys.h"
#include "common/replog.h"
#include "common/shard.h"
#include "common/time.h"

enum { FOLLOWER = 0, WRITER = 1 };

struct eg_replica {
  eg_kv *store;
  eg_replica_apply_fn apply;
  void *apply_ctx;
  char *dsn, shard[104], advertise[256];
  char grpc_host[256];  /* grpc_addr's host, for the advertised address */
  char configured[256]; /* replog_advertise ("" = derive it) */
  int batch;
  eg_replog *log;        /* the session; only the role thread opens and closes it */
  eg_keyring *keys;      /* users' keys: sealing appends, opening what is read */
  pthread_rwlock_t gate; /* writes hold it shared; role changes exclusively */
  _Atomic int role;
  _Atomic bool fenced;  /* the writer's append was refused or its session lost */
  _Atomic bool stalled; /* the log cannot be applied here: never lead */
  _Atomic bool stop;
  _Atomic bool connected;           /* a log session is open */
  int backoff_ms;                   /* the next wait before opening a session again (role thread) */
  _Atomic uint64_t log_end;         /* the highest position known to be in the log */
  _Atomic int64_t oldest_unapplied; /* when the first record not applied yet was logged (µs) */
  pthread_mutex_t mu;               /* guards writer_addr; with cv, the role thread's sleeps */
  pthread_cond_t cv;
  char writer_addr[256]; /* the writer as last read from the log ("" = unknown) */
  pthread_t thread;
  bool started;
  eg_series *m_role[2];
  eg_series *m_connected, *m_reconnects;
  bool opened_once; /* a session was opened before: the next one is a reconnection */
};

/* ---- metrics ------------------------------------------------------------------------ */

static double applied_seq(void *arg) { return (double)eg_kv_position(((eg_replica *)arg)->store); }

static uint64_t lag_records_of(eg_replica *r) {
  uint64_t end = atomic_load(&r->log_end), at = eg_kv_position(r->store);
  return end > at ? end - at : 0;
}

static double lag_records(void *arg) { return (double)lag_records_of(arg); }

static double lag_seconds(void *arg) {
  eg_replica *r = arg;
  int64_t since = atomic_load(&r->oldest_unapplied);
  if (!lag_records_of(r) || !since) return 0;
  int64_t d = eg_time_now_us() - since;
  return d > 0 ? (double)d / 1e6 : 0;
}

static void set_role(eg_replica *r, int role) {
  atomic_store(&r->role, role);
  eg_series_set(r->m_role[WRITER], role == WRITER);
  eg_series_set(r->m_role[FOLLOWER], role == FOLLOWER);
}

/* ---- the write gate ------------------------------------------------------------------- */

eg_code eg_replica_write_begin(eg_replica *r, eg_err *err) {
  if (!r) return EG_OK;
  pthread_rwlock_rdlock(&r->gate);
  if (atomic_load(&r->role) == WRITER && !atomic_load(&r->fenced)) return EG_OK;
  pthread_rwlock_unlock(&r->gate);
  pthread_mutex_lock(&r->mu);
  if (!atomic_load(&r->connected)) /* no primary to append to: nothing is taken in */
    eg_err_set(err, EG_EUNAVAIL,
               "the log of shard %s is unreachable (its PostgreSQL primary is down or failing "
               "over); send the write again; writer=unknown",
               r->shard);
  else
    eg_err_set(err, EG_EUNAVAIL, "not the writer of shard %s; writer=%s", r->shard,
               r->writer_addr[0] && strcmp(r->writer_addr, r->advertise) != 0 ? r->writer_addr
                                                                              : "unknown");
  pthread_mutex_unlock(&r->mu);
  return EG_EUNAVAIL;
}

void eg_replica_write_end(eg_replica *r) {
  if (r) pthread_rwlock_unlock(&r->gate);
}

/* kv's append hook, on the thread leading a group write (it holds the gate shared). */
static eg_code append_records(void *ctx, uint64_t first, const eg_kv_record *recs, size_t n,
                              eg_err *err) {
  eg_replica *r = ctx;
  eg_err e;
  eg_code rc = eg_keyring_append(r->keys, r->log, first, recs, n, &e);
  if (rc == EG_OK) {
    atomic_store(&r->log_end, first + n - 1);
    return EG_OK;
  }
  atomic_store(&r->fenced, true);
  EG_WARN("replica", "append refused: stepping down", "shard=%s position=%llu error=\"%s\"",
          r->shard, (unsigned long long)first, e.msg);
  pthread_mutex_lock(&r->mu);
  pthread_cond_broadcast(&r->cv);
  pthread_mutex_unlock(&r->mu);
  return eg_err_set(err, EG_EUNAVAIL,
                    "this replica is no longer the writer of shard %s (%s); send the write again",
                    r->shard,
                    rc == EG_EABORTED   ? "fenced by the log"
                    : rc == EG_EUNAVAIL ? "its log session was lost"
                                        : "its log or key table failed");
}

/* ---- the role thread ------------------------------------------------------------------ */

static void nap(eg_replica *r, int ms) {
  int64_t until = eg_time_now_us() + (int64_t)ms * 1000;
  struct timespec ts = {(time_t)(until / EG_US_PER_SEC), (long)(until % EG_US_PER_SEC) * 1000};
  pthread_mutex_lock(&r->mu);
  if (!atomic_load(&r->stop) && !atomic_load(&r->fenced))
    pthread_cond_timedwait(&r->cv, &r->mu, &ts);
  pthread_mutex_unlock(&r->mu);
}

static void drop_session(eg_replica *r) {
  eg_replog_close(r->log);
  r->log = NULL;
  atomic_store(&r->connected, false);
  eg_series_set(r->m_connected, 0);
}

/* Open a session (multi-host DSNs: on whichever server is the primary now). A failure
 * waits before the next try, 100 ms doubling to 2 s, so that a failover of PostgreSQL is
 * found within ~2 s of its end without hammering a server that is down. */
static bool open_session(eg_replica *r) {
  eg_err e;
  if (eg_replog_open(r->dsn, r->shard, &r->log, &e) != EG_OK) {
    r->log = NULL;
    r->backoff_ms = r->backoff_ms ? r->backoff_ms * 2 : 100;
    if (r->backoff_ms > 2000) r->backoff_ms = 2000;
    nap(r, r->backoff_ms);
    return false;
  }
  r->backoff_ms = 0;
  char server[300];
  eg_replog_server(r->log, server, sizeof server);
  if (r->opened_once) eg_series_add(r->m_reconnects, 1);
  r->opened_once = true;
  atomic_store(&r->connected, true);
  eg_series_set(r->m_connected, 1);
  EG_INFO("replica", "log session open", "shard=%s server=%s position=%llu", r->shard, server,
          (unsigned long long)eg_kv_position(r->store));
  return true;
}

/* Apply the log after our position, batch by batch. *at_end: the last batch was short
 * (we were at the log's end when it was read). A read the log refused (EG_EIO: a
 * statement cancelled or timed out …) says nothing about the records: it answers
 * EG_EUNAVAIL like a lost session, and the session is opened anew. */
static eg_code catch_up(eg_replica *r, bool *at_end, eg_err *err) {
  *at_end = false;
  for (int round = 0; round < 64 && !atomic_load(&r->stop); round++) {
    eg_replog_batch b;
    uint64_t pos = eg_kv_position(r->store);
    eg_code rc = eg_replog_read(r->log, pos, (size_t)r->batch, &b, err);
    if (rc == EG_EIO && err) err->code = EG_EUNAVAIL;
    if (rc) return rc == EG_EIO ? EG_EUNAVAIL : rc;
    eg_keyring_opened o = {0};
    /* nothing is applied before the standbys have it: a failover cannot take it back */
    if (b.n && (rc = eg_replog_durable(r->log, err))) {
      eg_replog_batch_free(&b);
      return rc == EG_EIO ? (err ? (err->code = EG_EUNAVAIL) : EG_EUNAVAIL) : rc;
    }
    if (b.n) {
      atomic_store(&r->oldest_unapplied, b.records[0].at_us);
      uint64_t last = b.records[b.n - 1].seq;
      if (last > atomic_load(&r->log_end)) atomic_store(&r->log_end, last);
      rc = eg_keyring_open(r->keys, r->log, &b, &o, err);
      if (rc == EG_EIO) rc = err ? (err->code = EG_EUNAVAIL) : EG_EUNAVAIL;
      if (!rc) rc = r->apply(r->apply_ctx, o.records, o.n, err);
      if (!rc) eg_keyring_applied(r->keys, r->log, &o);
    }
    *at_end = b.n < (size_t)r->batch;
    eg_keyring_opened_free(&o);
    eg_replog_batch_free(&b);
    if (rc || *at_end) return rc;
  }
  return EG_OK;
}

static void refresh_writer(eg_replica *r) {
  char addr[256];
  eg_err e;
  if (eg_replog_writer(r->log, addr, sizeof addr, &e) != EG_OK) return;
  pthread_mutex_lock(&r->mu);
  snprintf(r->writer_addr, sizeof r->writer_addr, "%s", addr);
  pthread_mutex_unlock(&r->mu);
}

/* We hold the lock: apply the log to its end, then let writes in. */
static void become_writer(eg_replica *r) {
  int64_t t0 = eg_time_mono_us();
  eg_err e;
  bool at_end = false;
  eg_code rc = EG_OK;
  while (!rc && !at_end && !atomic_load(&r->stop)) rc = catch_up(r, &at_end, &e);
  uint64_t end = 0;
  if (!rc) rc = eg_replog_end(r->log, &end, NULL, &e);
  if (!rc && end != eg_kv_position(r->store))
    rc = eg_err_set(&e, EG_EINTERNAL, "the log ends at %llu but this replica is at %llu",
                    (unsigned long long)end, (unsigned long long)eg_kv_position(r->store));
  if (rc) { /* give the lock back: another replica may do better */
    EG_WARN("replica", "cannot take over as writer", "shard=%s error=\"%s\"", r->shard, e.msg);
    drop_session(r);
    return;
  }
  pthread_rwlock_wrlock(&r->gate);
  atomic_store(&r->fenced, false);
  eg_kv_set_mode(r->store, EG_KV_LEADER, append_records, r);
  atomic_store(&r->log_end, end);
  set_role(r, WRITER);
  pthread_mutex_lock(&r->mu);
  snprintf(r->writer_addr, sizeof r->writer_addr, "%s", r->advertise);
  pthread_mutex_unlock(&r->mu);
  pthread_rwlock_unlock(&r->gate);
  EG_INFO("replica", "writer", "shard=%s position=%llu caught_up_ms=%lld", r->shard,
          (unsigned long long)end, (long long)((eg_time_mono_us() - t0) / 1000));
}

static void step_down(eg_replica *r) {
  set_role(r, FOLLOWER); /* new writes are refused from here on */
  pthread_rwlock_wrlock(&r->gate);
  eg_kv_set_mode(r->store, EG_KV_FOLLOWER, NULL, NULL);
  eg_kv_recover(r->store);
  atomic_store(&r->fenced, false);
  drop_session(r); /* releases the lock, if it is still ours */
  pthread_rwlock_unlock(&r->gate);
  EG_WARN("replica", "stepped down: following", "shard=%s position=%llu", r->shard,
          (unsigned long long)eg_kv_position(r->store));
}

static void *role_main(void *arg) {
  eg_replica *r = arg;
  int64_t next_ping = 0, next_writer_read = 0;
  while (!atomic_load(&r->stop)) {
    eg_err e;
    if (atomic_load(&r->role) == WRITER) {
      if (!atomic_load(&r->fenced) && eg_time_mono_us() >= next_ping) {
        next_ping = eg_time_mono_us() + EG_US_PER_SEC;
        if (eg_replog_ping(r->log, &e) != EG_OK) atomic_store(&r->fenced, true);
      }
      /* a group in the log that the store could not write: the store takes no write
       * until recovered, which only stepping down does (and the log has the group) */
      if (!atomic_load(&r->fenced) && eg_kv_failed(r->store)) {
        EG_WARN("replica", "the store failed a write: stepping down", "shard=%s", r->shard);
        atomic_store(&r->fenced, true);
      }
      if (atomic_load(&r->fenced))
        step_down(r);
      else
        nap(r, 100);
      continue;
    }
    if (!r->log) {
      if (!open_session(r)) continue;
      uint64_t end = 0;
      if (eg_replog_end(r->log, &end, NULL, &e) == EG_OK && end < eg_kv_position(r->store)) {
        EG_ERROR("replica", "this replica is ahead of the log: it neither applies nor leads",
                 "shard=%s position=%llu log_end=%llu", r->shard,
                 (unsigned long long)eg_kv_position(r->store), (unsigned long long)end);
        atomic_store(&r->stalled, true);
      }
      if (end > atomic_load(&r->log_end)) atomic_store(&r->log_end, end);
    }
    if (atomic_load(&r->stalled)) {
      nap(r, 1000);
      continue;
    }
    bool at_end = false;
    eg_code rc = catch_up(r, &at_end, &e);
    if (rc == EG_EUNAVAIL) {
      drop_session(r);
      nap(r, 200); /* the log is there but failing: do not hammer it */
      continue;
    }
    if (rc) {
      EG_ERROR("replica", "cannot apply the log: stalled", "shard=%s position=%llu error=\"%s\"",
               r->shard, (unsigned long long)eg_kv_position(r->store), e.msg);
      atomic_store(&r->stalled, true);
      continue;
    }
    if (!at_end) continue;
    bool lead = false;
    if (eg_replog_try_lead(r->log, r->advertise, &lead, &e) != EG_OK) {
      drop_session(r);
      continue;
    }
    if (lead) {
      become_writer(r);
      continue;
    }
    if (eg_time_mono_us() >= next_writer_read) {
      next_writer_read = eg_time_mono_us() + EG_US_PER_SEC;
      refresh_writer(r);
    }
    uint64_t end = atomic_load(&r->log_end);
    if (eg_replog_wait(r->log, 200, &end, &e) != EG_OK) {
      drop_session(r);
      continue;
    }
    if (end > atomic_load(&r->log_end)) {
      if (!lag_records_of(r)) atomic_store(&r->oldest_unapplied, eg_time_now_us());
      atomic_store(&r->log_end, end);
    }
  }
  return NULL;
}

/* ---- lifecycle ------------------------------------------------------------------------- */

eg_code eg_replica_new(eg_kv *store, eg_replica_apply_fn apply, void *ctx, const eg_replica_opts *o,
                       eg_metrics *m, eg_replica **out, eg_err *err) {
  if (!o->dsn || !*o->dsn) return eg_err_set(err, EG_EINVAL, "replog_dsn is empty");
  size_t sl = o->shard ? strlen(o->shard) : 0;
  if (sl < 1 || sl > 100) return eg_err_set(err, EG_EINVAL, "replog_shard must be 1 to 100 bytes");
  if (!o->record) return eg_err_set(err, EG_EINVAL, "the log's record type is not given");
  eg_replica *r = calloc(1, sizeof *r);
  if (!r || !(r->dsn = strdup(o->dsn))) {
    free(r);
    return eg_err_set(err, EG_ENOMEM, "out of memory");
  }
  eg_code rc = eg_keyring_new(o->record, &r->keys, err);
  if (rc) {
    free(r->dsn);
    free(r);
    return rc;
  }
  r->store = store;
  r->apply = apply;
  r->apply_ctx = ctx;
  memcpy(r->shard, o->shard, sl + 1);
  r->batch = o->batch > 0 ? o->batch : 512;
  pthread_rwlockattr_t ra;
  pthread_rwlockattr_init(&ra);
  /* a role change must not wait behind a stream of writes */
  pthread_rwlockattr_setkind_np(&ra, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
  pthread_rwlock_init(&r->gate, &ra);
  pthread_rwlockattr_destroy(&ra);
  pthread_mutex_init(&r->mu, NULL);
  pthread_cond_init(&r->cv, NULL);
  atomic_store(&r->log_end, eg_kv_position(store));
  if (m) {
    const char *svc = o->service ? o->service : "replica";
    char name[4][96];
    static const char *const what[4] = {"role", "applied_seq", "lag_records", "lag_seconds"};
    for (int i = 0; i < 4; i++)
      snprintf(name[i], sizeof name[i], "engram_%s_replication_%s", svc, what[i]);
    eg_metric *role = eg_metrics_gauge(
        m, name[0], "1 for this replica's role in its shard's log (writer or follower).", "role");
    const char *w[1] = {"writer"}, *f[1] = {"follower"};
    r->m_role[WRITER] = eg_metric_series(role, w, 1);
    r->m_role[FOLLOWER] = eg_metric_series(role, f, 1);
    eg_metrics_gauge_fn(m, name[1],
                        "The last log position this replica has applied (and made durable).",
                        applied_seq, r);
    eg_metrics_gauge_fn(m, name[2], "Log records not yet applied by this replica.", lag_records, r);
    eg_metrics_gauge_fn(
        m, name[3],
        "How long the oldest record not yet applied has been in the log (0 when caught up).",
        lag_seconds, r);
    char conn[96], reconn[96];
    snprintf(conn, sizeof conn, "engram_%s_replication_log_connected", svc);
    snprintf(reconn, sizeof reconn, "engram_%s_replication_log_reconnects_total", svc);
    r->m_connected = eg_metric_solo(eg_metrics_gauge(
        m, conn, "1 while this replica has a session with the log's primary.", NULL));
    r->m_reconnects = eg_metric_solo(eg_metrics_counter(
        m, reconn,
        "Log sessions opened after the first (the log's server was lost or failed over).", NULL));
  }
  set_role(r, FOLLOWER);
  eg_kv_set_mode(r->store, EG_KV_FOLLOWER, NULL, NULL);
  *out = r;
  return EG_OK;
}

eg_code eg_replica_start(eg_replica *r, const char *advertise, eg_err *err) {
  snprintf(r->advertise, sizeof r->advertise, "%s", advertise ? advertise : "");
  if (pthread_create(&r->thread, NULL, role_main, r) != 0)
    return eg_err_set(err, EG_EINTERNAL, "cannot start a thread");
  r->started = true;
  EG_INFO("replica", "following the log", "shard=%s position=%llu advertise=%s", r->shard,
          (unsigned long long)eg_kv_position(r->store), r->advertise);
  return EG_OK;
}

eg_code eg_replica_configure(const eg_cfg *c, const char *prefix, uint32_t shard_index,
                             const char *service, const ProtobufCMessageDescriptor *record,
                             eg_kv *store, eg_replica_apply_fn apply, void *ctx, eg_metrics *m,
                             eg_replica **out, eg_err *err) {
  *out = NULL;
  const char *dsn = eg_cfg_str(c, "replog_dsn");
  if (!*dsn) return EG_OK;
  char shard[128], host[256];
  const char *name = eg_cfg_str(c, "replog_shard");
  if (*name)
    snprintf(shard, sizeof shard, "%s", name);
  else
    snprintf(shard, sizeof shard, "%s-%u", prefix, shard_index);
  int port;
  eg_code rc = eg_split_hostport(eg_cfg_str(c, "grpc_addr"), host, sizeof host, &port, err);
  if (rc) return rc;
  eg_replica_opts o = {.dsn = dsn,
                       .shard = shard,
                       .batch = (int)eg_cfg_int(c, "replog_batch"),
                       .service = service,
                       .record = record};
  if ((rc = eg_replica_new(store, apply, ctx, &o, m, out, err))) return rc;
  snprintf((*out)->grpc_host, sizeof(*out)->grpc_host, "%s", host);
  snprintf((*out)->configured, sizeof(*out)->configured, "%s", eg_cfg_str(c, "replog_advertise"));
  return EG_OK;
}

eg_code eg_replica_serve(eg_replica *r, int grpc_port, eg_err *err) {
  if (!r) return EG_OK;
  char addr[300];
  if (*r->configured) {
    snprintf(addr, sizeof addr, "%s", r->configured);
  } else {
    char host[256];
    snprintf(host, sizeof host, "%s", r->grpc_host);
    /* listening on every interface: name this host */
    if (!*host || !strcmp(host, "0.0.0.0") || !strcmp(host, "::"))
      gethostname(host, sizeof host - 1);
    snprintf(addr, sizeof addr, strchr(host, ':') ? "[%s]:%d" : "%s:%d", host, grpc_port);
  }
  return eg_replica_start(r, addr, err);
}

void eg_replica_free(eg_replica *r) {
  if (!r) return;
  atomic_store(&r->stop, true);
  pthread_mutex_lock(&r->mu);
  pthread_cond_broadcast(&r->cv);
  pthread_mutex_unlock(&r->mu);
  if (r->started) pthread_join(r->thread, NULL);
  drop_session(r);
  eg_kv_set_mode(r->store, EG_KV_FOLLOWER, NULL, NULL);
  pthread_rwlock_destroy(&r->gate);
  pthread_mutex_destroy(&r->mu);
  pthread_cond_destroy(&r->cv);
  eg_keyring_free(r->keys);
  free(r->dsn);
  free(r);
}

/* ---- records ---------------------------------------------------------------------------- */

eg_code eg_record_pack(eg_arena *a, const ProtobufCMessageDescriptor *rec_desc, const char *tenant,
                       uint64_t tenant_id, const char *user, const char *erases,
                       const ProtobufCMessage *body, uint8_t **out, size_t *len, eg_err *err) {
  ProtobufCMessage *rec = eg_arena_alloc(a, rec_desc->sizeof_message);
  size_t bl = protobuf_c_message_get_packed_size(body);
  uint8_t *bb = eg_arena_alloc(a, bl ? bl : 1);
  if (!rec || !bb) return eg_err_set(err, EG_ENOMEM, "out of memory");
  protobuf_c_message_init(rec_desc, rec);
  uint32_t *format = eg_record_field(rec, "format");
  char **t = eg_record_field(rec, "tenant"), **u = eg_record_field(rec, "user");
  uint64_t *tid = eg_record_field(rec, "tenant_id");
  ProtobufCBinaryData *b = eg_record_field(rec, "body");
  char **er = eg_record_field(rec, "erases");
  protobuf_c_boolean *er_tenant = eg_record_field(rec, "erases_tenant");
  if (!format || !t || !u || !tid || !b || !er || !er_tenant)
    return eg_err_set(err, EG_EINTERNAL, "%s is not a log record", rec_desc->name);
  *format = EG_RECORD_CLEAR; /* sealed, when it is a user's, as it is appended */
  *t = (char *)tenant;
  *tid = tenant_id;
  /* an erasure is no user's: it stays readable once the keys it erased are shredded */
  *u = (char *)(user && !erases ? user : "");
  if (erases && *erases)
    *er = (char *)erases;
  else if (erases)
    *er_tenant = true;
  b->data = bb;
  b->len = protobuf_c_message_pack(body, bb);
  *len = protobuf_c_message_get_packed_size(rec);
  if (!(*out = eg_arena_alloc(a, *len ? *len : 1)))
    return eg_err_set(err, EG_ENOMEM, "out of memory");
  protobuf_c_message_pack(rec, *out);
  return EG_OK;
}

eg_code eg_record_open(eg_arena *a, const ProtobufCMessageDescriptor *rec_desc,
                       const ProtobufCMessageDescriptor *body_desc, const eg_replog_record *r,
                       const char *what, ProtobufCMessage **rec, ProtobufCMessage **body,
                       eg_err *err) {
  ProtobufCAllocator al = eg_rpc_arena_allocator(a);
  unsigned long long pos = (unsigned long long)r->seq;
  *body = NULL;
  if (!(*rec = protobuf_c_message_unpack(rec_desc, &al, r->len, r->payload)))
    return eg_err_set(err, EG_ECORRUPT, "log position %llu is not a %s record", pos, what);
  uint32_t format = *(uint32_t *)eg_record_field(*rec, "format");
  const char *tenant = *(char **)eg_record_field(*rec, "tenant");
  if (format == EG_RECORD_SHREDDED && tenant && *tenant) return EG_OK;
  if (format != EG_RECORD_CLEAR)
    return eg_err_set(err, EG_ECORRUPT,
                      "log position %llu has record format %u, this replica reads %d", pos, format,
                      EG_RECORD_CLEAR);
  const ProtobufCBinaryData *b = eg_record_field(*rec, "body");
  *body = protobuf_c_message_unpack(body_desc, &al, b->len, b->data);
  if (!*body || !tenant || !*tenant)
    return eg_err_set(err, EG_ECORRUPT, "log position %llu has a malformed body", pos);
  return EG_OK;
}

/* ---- watermarks ------------------------------------------------------------------------- */

void eg_watermark_format(char tag, uint64_t pos, char *buf, size_t len) {
  snprintf(buf, len, "%c1:%llx", tag, (unsigned long long)pos);
}

eg_code eg_watermark_parse(const char *w, char tag, const char *what, uint64_t *pos, eg_err *err) {
  unsigned long long v;
  int used = 0;
  char fmt[16];
  snprintf(fmt, sizeof fmt, "%c1:%%16llx%%n", tag);
  if (!w || sscanf(w, fmt, &v, &used) != 1 || w[used]) /* NOLINT(cert-err34-c): %n checks */
    return eg_err_set(
        err, EG_EINVAL,
        "malformed watermark '%.40s' (expected %c1:<hex>, from a %s write's response)", w ? w : "",
        tag, what);
  *pos = v;
  return EG_OK;
}

char **eg_watermark_field(const ProtobufCMessage *m) {
  const ProtobufCFieldDescriptor *f =
      protobuf_c_message_descriptor_get_field_by_name(m->descriptor, "watermark");
  if (!f || f->type != PROTOBUF_C_TYPE_STRING) return NULL;
  return (char **)((char *)m + f->offset);
}

eg_code eg_watermark_of_request(eg_rpc_call *call, const ProtobufCMessage *req, char tag,
                                const char *what, uint64_t *pos, int64_t *deadline_us,
                                eg_err *err) {
  *pos = 0;
  char **w = eg_watermark_field(req);
  if (!w || !*w || !**w) return EG_OK;
  eg_code rc = eg_watermark_parse(*w, tag, what, pos, err);
  if (rc) return rc;
  *deadline_us = eg_rpc_deadline_us(call);
  if (*deadline_us == INT64_MAX) *deadline_us = eg_time_now_us() + EG_WATERMARK_WAIT_DEFAULT_US;
  return EG_OK;
}

eg_code eg_watermark_set(eg_rpc_call *call, ProtobufCMessage *resp, char tag, uint64_t pos,
                         eg_err *err) {
  char **w = eg_watermark_field(resp);
  if (!w) return EG_OK;
  char buf[32];
  eg_watermark_format(tag, pos, buf, sizeof buf);
  *w = eg_arena_strdup(eg_rpc_arena(call), buf);
  return *w ? EG_OK : eg_err_set(err, EG_ENOMEM, "out of memory");
}
