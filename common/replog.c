/*
 * replog.c — the replicated log over libpq (see replog.h): schema, the writer's lock,
 * fenced appends, batched reads and LISTEN/NOTIFY.
 *
 * Every statement is prepared once per session and exchanged in binary, so a payload
 * travels as its own bytes (no hex or escaping) and an append of a group of records is
 * one round trip: the payloads go as one bytea[] parameter.
 */
#include "common/replog.h"

#include <arpa/inet.h>
#include <libpq-fe.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/keybuf.h"
#include "common/log.h"

#define BYTEA_OID 17

struct eg_replog {
  PGconn *conn;
  pthread_mutex_t mu; /* guards conn */
  char shard[104];
  bool broken; /* the connection failed once: the session (and any lock) is gone */
  bool warned; /* the server sent a WARNING during the statement running now */
  char warning[200];
};

/* Tables, the notification trigger. Run under a transaction-scoped advisory lock, so
 * that replicas starting together do not race on CREATE … IF NOT EXISTS. */
static const char schema_sql[] =
    "BEGIN;"
    "SELECT pg_advisory_xact_lock(hashtextextended('engram_replog schema', 0));"
    "CREATE TABLE IF NOT EXISTS engram_replog ("
    "  shard text NOT NULL, seq bigint NOT NULL, payload bytea NOT NULL,"
    "  at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (shard, seq));"
    "CREATE TABLE IF NOT EXISTS engram_replog_barrier (shard text PRIMARY KEY, n bigint NOT NULL);"
    "CREATE TABLE IF NOT EXISTS engram_replog_writer ("
    "  shard text PRIMARY KEY, addr text NOT NULL, since timestamptz NOT NULL DEFAULT now());"
    /* A user's key per shard (deploy/REPLICATION.md, "Encryption"): at most one live key
     * per (shard, tenant, user); shredding empties `key` and keeps the row, so that a
     * record whose key was shredded is told from one whose key never existed. */
    "CREATE TABLE IF NOT EXISTS engram_replog_keys ("
    "  kid bigserial PRIMARY KEY, shard text NOT NULL, tenant text NOT NULL,"
    "  \"user\" text NOT NULL, key bytea, created_at timestamptz NOT NULL DEFAULT now(),"
    "  shredded_at timestamptz);"
    "CREATE UNIQUE INDEX IF NOT EXISTS engram_replog_keys_live"
    "  ON engram_replog_keys (shard, tenant, \"user\") WHERE key IS NOT NULL;"
    "CREATE OR REPLACE FUNCTION engram_replog_notify() RETURNS trigger LANGUAGE plpgsql AS $f$"
    " BEGIN"
    "  PERFORM pg_notify('engram_replog', s.shard || ' ' || s.last)"
    "   FROM (SELECT shard, max(seq) AS last FROM appended GROUP BY shard) s;"
    "  RETURN NULL;"
    " END $f$;"
    "CREATE OR REPLACE TRIGGER engram_replog_notify AFTER INSERT ON engram_replog"
    "  REFERENCING NEW TABLE AS appended FOR EACH STATEMENT EXECUTE FUNCTION "
    "engram_replog_notify();"
    "COMMIT;"
    "LISTEN engram_replog;";

#define LOCK_KEY "hashtextextended('engram_replog:' || $1, 0)"

static const struct {
  const char *name, *sql;
  int nparams;
} statements[] = {
    {"eg_lead", "SELECT pg_try_advisory_lock(" LOCK_KEY ")", 1},
    {"eg_publish",
     "INSERT INTO engram_replog_writer (shard, addr, since) VALUES ($1, $2, now())"
     " ON CONFLICT (shard) DO UPDATE SET addr = EXCLUDED.addr, since = now()",
     2},
    {"eg_writer", "SELECT addr FROM engram_replog_writer WHERE shard = $1", 1},
    {"eg_end",
     "SELECT seq, (extract(epoch FROM at) * 1000000)::bigint FROM engram_replog"
     " WHERE shard = $1 ORDER BY seq DESC LIMIT 1",
     1},
    /* Fenced: only while this session holds the shard's lock, and only right after the
     * log's end; (shard, seq) unique besides. Bigint advisory keys show in pg_locks as
     * classid (high 32 bits) and objid (low 32 bits), objsubid 1. */
    {"eg_append",
     "INSERT INTO engram_replog (shard, seq, payload)"
     " SELECT $1, $2::bigint + u.o - 1, u.p FROM unnest($3::bytea[]) WITH ORDINALITY AS u(p, o)"
     " WHERE coalesce((SELECT max(seq) FROM engram_replog WHERE shard = $1), 0) = $2::bigint - 1"
     "   AND EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted"
     "     AND pid = pg_backend_pid() AND objsubid = 1"
     "     AND classid::bigint = ((" LOCK_KEY " >> 32) & 4294967295)"
     "     AND objid::bigint = (" LOCK_KEY " & 4294967295))",
     3},
    /* The key is made by the server (sha256 of two random UUIDs: 244 random bits), so
     * that it is never a statement parameter a server's log could show. */
    {"eg_key_new",
     "INSERT INTO engram_replog_keys (shard, tenant, \"user\", key)"
     " VALUES ($1, $2, $3, sha256(uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid())))"
     " ON CONFLICT (shard, tenant, \"user\") WHERE key IS NOT NULL DO NOTHING",
     3},
    {"eg_key_live",
     "SELECT kid, key FROM engram_replog_keys"
     " WHERE shard = $1 AND tenant = $2 AND \"user\" = $3 AND key IS NOT NULL",
     3},
    {"eg_key_by_id", "SELECT tenant, \"user\", key FROM engram_replog_keys WHERE kid = $1::bigint",
     1},
    /* Keys made no later than the erasure's record (now() is a transaction's start): a
     * key made after it, for the user's later records, is not the erasure's to shred. */
    {"eg_key_shred",
     "UPDATE engram_replog_keys SET key = NULL, shredded_at = now()"
     " WHERE shard = $1 AND tenant = $2 AND ($3::text IS NULL OR \"user\" = $3) AND key IS NOT NULL"
     "   AND created_at <= (SELECT at FROM engram_replog WHERE shard = $1 AND seq = $4::bigint)",
     4},
    /* A write of our own, whose commit waits for the synchronous standbys
     * (synchronous_commit = on): once it is confirmed, so is every commit before it in the
     * WAL — the records just read among them. (A transaction that only takes an id writes
     * no WAL before its commit record, and such a commit does not wait.) */
    {"eg_durable",
     "INSERT INTO engram_replog_barrier AS b (shard, n) VALUES ($1, 1)"
     " ON CONFLICT (shard) DO UPDATE SET n = b.n + 1",
     1},
    {"eg_read",
     "SELECT seq, payload, (extract(epoch FROM at) * 1000000)::bigint FROM engram_replog"
     " WHERE shard = $1 AND seq > $2::bigint ORDER BY seq LIMIT $3::int",
     3},
};

/* libpq's messages span lines; a log line must not. */
static const char *one_line(const char *msg, char *buf, size_t len) {
  snprintf(buf, len, "%s", msg ? msg : "");
  for (char *p = buf; *p; p++)
    if (*p == '\n' || *p == '\t' || *p == '"') *p = ' ';
  return buf;
}

/* PostgreSQL's NOTICEs ("relation … already exists, skipping") are not ours to log; a
 * WARNING is remembered for the statement running (libpq calls this inside PQexec…, under
 * mu). The one that matters: a commit whose wait for the synchronous standbys was
 * cancelled answers success with "canceling wait for synchronous replication … committed
 * locally, but might not have been replicated" — not a commit the quorum has. */
static void on_notice(void *arg, const PGresult *res) {
  eg_replog *l = arg;
  const char *sev = PQresultErrorField(res, PG_DIAG_SEVERITY_NONLOCALIZED);
  if (!sev || strcmp(sev, "WARNING") != 0) return;
  l->warned = true;
  one_line(PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY), l->warning, sizeof l->warning);
}

/* The session is gone: say so once, remember it. Caller holds mu. */
static eg_code conn_lost(eg_replog *l, eg_err *err) {
  char b[256];
  if (!l->broken)
    EG_WARN("replog", "connection to the log lost", "shard=%s error=\"%s\"", l->shard,
            one_line(PQerrorMessage(l->conn), b, sizeof b));
  l->broken = true;
  return eg_err_set(err, EG_EUNAVAIL, "the log's PostgreSQL session is gone");
}

/* A failed statement: EG_EUNAVAIL when the connection is down, else EG_EIO (logged). */
static eg_code stmt_failed(eg_replog *l, PGresult *r, const char *what, eg_err *err) {
  if (PQstatus(l->conn) != CONNECTION_OK) return conn_lost(l, err);
  char b[256];
  EG_ERROR("replog", "statement failed", "shard=%s stmt=%s error=\"%s\"", l->shard, what,
           one_line(r ? PQresultErrorMessage(r) : PQerrorMessage(l->conn), b, sizeof b));
  return eg_err_set(err, EG_EIO, "the log refused %s (see log)", what);
}

/* A commit the server reported with a WARNING (its wait for the synchronous standbys
 * cancelled, …): its outcome is unknown to the quorum. Caller holds mu. */
static eg_code unconfirmed(eg_replog *l, const char *what, eg_err *err) {
  EG_WARN("replog", "commit not confirmed by the standbys", "shard=%s stmt=\"%s\" warning=\"%s\"",
          l->shard, what, l->warning);
  return eg_err_set(err, EG_EUNAVAIL,
                    "%s committed on the log's primary but was not confirmed by its standbys "
                    "(%s)",
                    what, l->warning);
}

eg_code eg_replog_open(const char *dsn, const char *shard, eg_replog **out, eg_err *err) {
  size_t sl = shard ? strlen(shard) : 0;
  if (sl < 1 || sl > 100)
    return eg_err_set(err, EG_EINVAL, "the log's shard name must be 1 to 100 bytes");
  eg_replog *l = calloc(1, sizeof *l);
  if (!l) return eg_err_set(err, EG_ENOMEM, "out of memory");
  memcpy(l->shard, shard, sl + 1);
  pthread_mutex_init(&l->mu, NULL);
  /* dsn last: what it says overrides these defaults. Without keepalives and a TCP user
   * timeout a server whose host vanished (no RST) leaves a statement waiting for hours:
   * a writer's appends would hang instead of failing it over, a follower would stop. */
  const char *const keys[] = {
      "application_name", "connect_timeout",  "keepalives_idle", "keepalives_interval",
      "keepalives_count", "tcp_user_timeout", "dbname",          NULL};
  const char *const vals[] = {"engram", "5", "10", "5", "3", "30000", dsn, NULL};
  l->conn = PQconnectdbParams(keys, vals, 1);
  eg_code rc = EG_OK;
  if (!l->conn || PQstatus(l->conn) != CONNECTION_OK) {
    char b[256];
    EG_WARN("replog", "cannot connect to the log", "error=\"%s\"",
            one_line(l->conn ? PQerrorMessage(l->conn) : "out of memory", b, sizeof b));
    rc = eg_err_set(err, EG_EUNAVAIL, "cannot connect to the log's PostgreSQL (see log)");
    goto fail;
  }
  PQsetNoticeReceiver(l->conn, on_notice, l);
  PGresult *r = PQexec(l->conn, schema_sql);
  bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
  if (!ok) rc = stmt_failed(l, r, "the schema", err);
  PQclear(r);
  if (!ok) goto fail;
  for (size_t i = 0; i < sizeof statements / sizeof *statements; i++) {
    r = PQprepare(l->conn, statements[i].name, statements[i].sql, statements[i].nparams, NULL);
    ok = PQresultStatus(r) == PGRES_COMMAND_OK;
    if (!ok) rc = stmt_failed(l, r, statements[i].name, err);
    PQclear(r);
    if (!ok) goto fail;
  }
  *out = l;
  return EG_OK;
fail:
  eg_replog_close(l);
  return rc;
}

void eg_replog_close(eg_replog *l) {
  if (!l) return;
  if (l->conn) PQfinish(l->conn);
  pthread_mutex_destroy(&l->mu);
  free(l);
}

const char *eg_replog_shard(const eg_replog *l) { return l->shard; }

/* Run a prepared statement with text parameters (and the formats given), results in
 * binary. Caller holds mu and clears the result. NULL when the handle is broken. */
static PGresult *run(eg_replog *l, const char *name, int n, const char *const *vals,
                     const int *lens, const int *formats) {
  if (l->broken) return NULL;
  l->warned = false;
  return PQexecPrepared(l->conn, name, n, vals, lens, formats, 1);
}

static uint64_t get_u64(PGresult *r, int row, int col) {
  if (PQgetlength(r, row, col) != 8) return 0;
  return key_get64((const uint8_t *)PQgetvalue(r, row, col));
}

eg_code eg_replog_try_lead(eg_replog *l, const char *addr, bool *leader, eg_err *err) {
  *leader = false;
  pthread_mutex_lock(&l->mu);
  const char *p[2] = {l->shard, addr};
  eg_code rc = EG_OK;
  PGresult *r = run(l, "eg_lead", 1, p, NULL, NULL);
  if (!r || PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1) {
    rc = r ? stmt_failed(l, r, "the lock", err) : conn_lost(l, err);
  } else {
    *leader = PQgetlength(r, 0, 0) == 1 && PQgetvalue(r, 0, 0)[0] == 1;
  }
  PQclear(r);
  if (!rc && *leader) {
    r = run(l, "eg_publish", 2, p, NULL, NULL);
    if (!r || PQresultStatus(r) != PGRES_COMMAND_OK)
      rc = r ? stmt_failed(l, r, "the writer's address", err) : conn_lost(l, err);
    PQclear(r);
  }
  if (!rc &&
      *leader) { /* a writer does not tail: its appends' notifications would pile up in libpq */
    r = PQexec(l->conn, "UNLISTEN engram_replog");
    if (PQresultStatus(r) != PGRES_COMMAND_OK) rc = stmt_failed(l, r, "UNLISTEN", err);
    PQclear(r);
    PGnotify *nt;
    while ((nt = PQnotifies(l->conn))) PQfreemem(nt);
  }
  pthread_mutex_unlock(&l->mu);
  return rc;
}

eg_code eg_replog_end(eg_replog *l, uint64_t *seq, int64_t *at_us, eg_err *err) {
  pthread_mutex_lock(&l->mu);
  const char *p[1] = {l->shard};
  eg_code rc = EG_OK;
  PGresult *r = run(l, "eg_end", 1, p, NULL, NULL);
  if (!r || PQresultStatus(r) != PGRES_TUPLES_OK) {
    rc = r ? stmt_failed(l, r, "reading the log's end", err) : conn_lost(l, err);
  } else {
    *seq = PQntuples(r) ? get_u64(r, 0, 0) : 0;
    if (at_us) *at_us = PQntuples(r) ? (int64_t)get_u64(r, 0, 1) : 0;
  }
  PQclear(r);
  pthread_mutex_unlock(&l->mu);
  return rc;
}

eg_code eg_replog_append(eg_replog *l, uint64_t first, const eg_replog_payload *p, size_t n,
                         eg_err *err) {
  if (!n) return EG_OK;
  if (first < 1 || n > INT32_MAX / 2) return eg_err_set(err, EG_EINVAL, "bad append range");
  /* A one-dimensional bytea[] in PostgreSQL's binary array format: ndim, has-null flag,
   * element type, then (length, lower bound) of the dimension, then each element as
   * length + bytes. */
  eg_buf arr = EG_BUF_INIT;
  uint32_t head[5] = {htonl(1), htonl(0), htonl(BYTEA_OID), htonl((uint32_t)n), htonl(1)};
  eg_code rc = eg_buf_append(&arr, head, sizeof head);
  for (size_t i = 0; i < n && !rc; i++) {
    if (p[i].len > INT32_MAX) rc = EG_EINVAL;
    uint32_t len = htonl((uint32_t)p[i].len);
    if (!rc) rc = eg_buf_append(&arr, &len, 4);
    if (!rc && p[i].len) rc = eg_buf_append(&arr, p[i].data, p[i].len);
  }
  if (rc || arr.len > INT32_MAX) {
    eg_buf_free(&arr);
    return eg_err_set(err, rc ? rc : EG_EINVAL, "cannot build the append (too large?)");
  }
  char firsts[24];
  snprintf(firsts, sizeof firsts, "%llu", (unsigned long long)first);
  const char *vals[3] = {l->shard, firsts, arr.data};
  const int lens[3] = {0, 0, (int)arr.len}, formats[3] = {0, 0, 1};
  pthread_mutex_lock(&l->mu);
  PGresult *r = run(l, "eg_append", 3, vals, lens, formats);
  if (!r) {
    rc = conn_lost(l, err);
  } else if (PQresultStatus(r) == PGRES_COMMAND_OK) {
    if (l->warned) /* committed here, perhaps not on the standbys: not acknowledged */
      rc = unconfirmed(l, "the append", err);
    else if ((size_t)strtoull(PQcmdTuples(r), NULL, 10) != n)
      rc = eg_err_set(err, EG_EABORTED,
                      "fenced: this session does not hold the lock of shard %s, or the log "
                      "has moved past position %llu",
                      l->shard, (unsigned long long)(first - 1));
  } else {
    const char *state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
    if (state && strcmp(state, "23505") == 0) /* unique_violation: another writer's record */
      rc = eg_err_set(err, EG_EABORTED, "fenced: position %llu of shard %s is taken",
                      (unsigned long long)first, l->shard);
    else
      rc = stmt_failed(l, r, "the append", err);
  }
  PQclear(r);
  pthread_mutex_unlock(&l->mu);
  eg_buf_free(&arr);
  return rc;
}

eg_code eg_replog_read(eg_replog *l, uint64_t after, size_t max, eg_replog_batch *out,
                       eg_err *err) {
  memset(out, 0, sizeof *out);
  if (max < 1) max = 1;
  if (max > 100000) max = 100000;
  char afters[24], maxs[24];
  snprintf(afters, sizeof afters, "%llu", (unsigned long long)after);
  snprintf(maxs, sizeof maxs, "%zu", max);
  const char *p[3] = {l->shard, afters, maxs};
  pthread_mutex_lock(&l->mu);
  PGresult *r = run(l, "eg_read", 3, p, NULL, NULL);
  eg_code rc = EG_OK;
  if (!r || PQresultStatus(r) != PGRES_TUPLES_OK) {
    rc = r ? stmt_failed(l, r, "reading the log", err) : conn_lost(l, err);
    PQclear(r);
    pthread_mutex_unlock(&l->mu);
    return rc;
  }
  pthread_mutex_unlock(&l->mu);
  int n = PQntuples(r);
  out->records = calloc(n ? (size_t)n : 1, sizeof *out->records);
  if (!out->records) {
    PQclear(r);
    return eg_err_set(err, EG_ENOMEM, "out of memory");
  }
  out->res = r;
  for (int i = 0; i < n; i++) {
    eg_replog_record *rec = &out->records[i];
    rec->seq = get_u64(r, i, 0);
    rec->payload = (const uint8_t *)PQgetvalue(r, i, 1);
    rec->len = (size_t)PQgetlength(r, i, 1);
    rec->at_us = (int64_t)get_u64(r, i, 2);
    if (rec->seq != after + 1 + (uint64_t)i) { /* the log has a gap: never skip a record */
      EG_ERROR("replog", "gap in the log", "shard=%s after=%llu seq=%llu", l->shard,
               (unsigned long long)(after + 1 + (uint64_t)i), (unsigned long long)rec->seq);
      eg_replog_batch_free(out);
      return eg_err_set(err, EG_ECORRUPT, "the log of shard %s has a gap after position %llu",
                        l->shard, (unsigned long long)(after + (uint64_t)i));
    }
  }
  out->n = (size_t)n;
  return EG_OK;
}

void eg_replog_batch_free(eg_replog_batch *b) {
  if (!b) return;
  PQclear(b->res);
  free(b->records);
  memset(b, 0, sizeof *b);
}

/* Take every pending notification; caller holds mu. */
static eg_code drain_notifies(eg_replog *l, uint64_t *end, bool *got, eg_err *err) {
  if (!PQconsumeInput(l->conn)) return conn_lost(l, err);
  PGnotify *nt;
  size_t sl = strlen(l->shard);
  while ((nt = PQnotifies(l->conn))) {
    const char *ex = nt->extra;
    if (ex && strncmp(ex, l->shard, sl) == 0 && ex[sl] == ' ') {
      uint64_t seq = strtoull(ex + sl + 1, NULL, 10);
      if (seq > *end) *end = seq;
      *got = true;
    }
    PQfreemem(nt);
  }
  return EG_OK;
}

eg_code eg_replog_wait(eg_replog *l, int timeout_ms, uint64_t *end, eg_err *err) {
  bool got = false;
  pthread_mutex_lock(&l->mu);
  eg_code rc = l->broken ? conn_lost(l, err) : drain_notifies(l, end, &got, err);
  int fd = PQsocket(l->conn);
  pthread_mutex_unlock(&l->mu);
  if (rc || got) return rc;
  if (fd < 0) {
    pthread_mutex_lock(&l->mu);
    rc = conn_lost(l, err);
    pthread_mutex_unlock(&l->mu);
    return rc;
  }
  struct pollfd pfd = {.fd = fd, .events = POLLIN};
  int pr = poll(&pfd, 1, timeout_ms);
  if (pr <= 0) return EG_OK; /* timeout (or a signal): the caller looks again */
  pthread_mutex_lock(&l->mu);
  rc = drain_notifies(l, end, &got, err);
  pthread_mutex_unlock(&l->mu);
  return rc;
}

eg_code eg_replog_writer(eg_replog *l, char *addr, size_t len, eg_err *err) {
  if (len) addr[0] = '\0';
  pthread_mutex_lock(&l->mu);
  const char *p[1] = {l->shard};
  eg_code rc = EG_OK;
  PGresult *r = run(l, "eg_writer", 1, p, NULL, NULL);
  if (!r || PQresultStatus(r) != PGRES_TUPLES_OK)
    rc = r ? stmt_failed(l, r, "reading the writer", err) : conn_lost(l, err);
  else if (PQntuples(r) == 1 && len)
    snprintf(addr, len, "%.*s", PQgetlength(r, 0, 0), PQgetvalue(r, 0, 0));
  PQclear(r);
  pthread_mutex_unlock(&l->mu);
  return rc;
}

eg_code eg_replog_durable(eg_replog *l, eg_err *err) {
  pthread_mutex_lock(&l->mu);
  eg_code rc = EG_OK;
  const char *p[1] = {l->shard};
  PGresult *r = run(l, "eg_durable", 1, p, NULL, NULL);
  if (!r || PQresultStatus(r) != PGRES_COMMAND_OK)
    rc = r ? stmt_failed(l, r, "the durability barrier", err) : conn_lost(l, err);
  else if (l->warned)
    rc = unconfirmed(l, "the durability barrier", err);
  PQclear(r);
  pthread_mutex_unlock(&l->mu);
  return rc;
}

void eg_replog_server(eg_replog *l, char *buf, size_t len) {
  pthread_mutex_lock(&l->mu);
  const char *h = PQhost(l->conn), *p = PQport(l->conn);
  snprintf(buf, len, "%s:%s", h ? h : "?", p ? p : "?");
  pthread_mutex_unlock(&l->mu);
}

eg_code eg_replog_ping(eg_replog *l, eg_err *err) {
  pthread_mutex_lock(&l->mu);
  eg_code rc = EG_OK;
  if (l->broken) {
    rc = conn_lost(l, err);
  } else {
    PGresult *r = PQexec(l->conn, "SELECT 1");
    if (PQresultStatus(r) != PGRES_TUPLES_OK) rc = stmt_failed(l, r, "a ping", err);
    PQclear(r);
  }
  pthread_mutex_unlock(&l->mu);
  return rc;
}

/* ---- keys ----------------------------------------------------------------------------- */

/* The key of one row (col) into key; false when the row holds none (shredded). */
static bool key_of(PGresult *r, int col, uint8_t key[EG_REPLOG_KEY_LEN]) {
  if (PQgetisnull(r, 0, col) || PQgetlength(r, 0, col) != EG_REPLOG_KEY_LEN) return false;
  memcpy(key, PQgetvalue(r, 0, col), EG_REPLOG_KEY_LEN);
  return true;
}

eg_code eg_replog_key_live(eg_replog *l, const char *tenant, const char *user, uint64_t *kid,
                           uint8_t key[EG_REPLOG_KEY_LEN], eg_err *err) {
  const char *p[3] = {l->shard, tenant, user};
  eg_code rc = EG_OK;
  pthread_mutex_lock(&l->mu);
  for (int attempt = 0; attempt < 2 && !rc; attempt++) {
    PGresult *r = run(l, "eg_key_live", 3, p, NULL, NULL);
    if (!r || PQresultStatus(r) != PGRES_TUPLES_OK) {
      rc = r ? stmt_failed(l, r, "reading a key", err) : conn_lost(l, err);
    } else if (PQntuples(r) == 1 && key_of(r, 1, key)) {
      *kid = get_u64(r, 0, 0);
      PQclear(r);
      pthread_mutex_unlock(&l->mu);
      return EG_OK;
    }
    PQclear(r);
    if (rc || attempt) break;
    /* none yet: make one (another session may make it first: then that one is read) */
    r = run(l, "eg_key_new", 3, p, NULL, NULL);
    if (!r || PQresultStatus(r) != PGRES_COMMAND_OK)
      rc = r ? stmt_failed(l, r, "making a key", err) : conn_lost(l, err);
    PQclear(r);
  }
  pthread_mutex_unlock(&l->mu);
  return rc ? rc : eg_err_set(err, EG_EINTERNAL, "the key just made cannot be read");
}

eg_code eg_replog_key_by_id(eg_replog *l, uint64_t kid, const char *tenant, const char *user,
                            uint8_t key[EG_REPLOG_KEY_LEN], bool *shredded, eg_err *err) {
  char kids[24];
  snprintf(kids, sizeof kids, "%llu", (unsigned long long)kid);
  const char *p[1] = {kids};
  *shredded = false;
  pthread_mutex_lock(&l->mu);
  PGresult *r = run(l, "eg_key_by_id", 1, p, NULL, NULL);
  eg_code rc = EG_OK;
  if (!r || PQresultStatus(r) != PGRES_TUPLES_OK) {
    rc = r ? stmt_failed(l, r, "reading a key", err) : conn_lost(l, err);
  } else if (PQntuples(r) != 1) {
    rc = eg_err_set(err, EG_ECORRUPT, "key %llu is not in the key table", (unsigned long long)kid);
  } else if (strcmp(PQgetvalue(r, 0, 0), tenant) != 0 || strcmp(PQgetvalue(r, 0, 1), user) != 0) {
    rc = eg_err_set(err, EG_ECORRUPT, "key %llu belongs to another tenant or user",
                    (unsigned long long)kid);
  } else {
    *shredded = !key_of(r, 2, key);
  }
  PQclear(r);
  pthread_mutex_unlock(&l->mu);
  return rc;
}

eg_code eg_replog_key_shred(eg_replog *l, const char *tenant, const char *user, uint64_t seq,
                            uint64_t *shredded, eg_err *err) {
  char seqs[24];
  snprintf(seqs, sizeof seqs, "%llu", (unsigned long long)seq);
  const char *p[4] = {l->shard, tenant, user, seqs};
  pthread_mutex_lock(&l->mu);
  PGresult *r = run(l, "eg_key_shred", 4, p, NULL, NULL);
  eg_code rc = EG_OK;
  if (!r || PQresultStatus(r) != PGRES_COMMAND_OK)
    rc = r ? stmt_failed(l, r, "shredding keys", err) : conn_lost(l, err);
  else if (shredded)
    *shredded = strtoull(PQcmdTuples(r), NULL, 10);
  PQclear(r);
  pthread_mutex_unlock(&l->mu);
  return rc;
}
