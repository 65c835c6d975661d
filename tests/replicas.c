/*
 * replicas.c — graphd or vectord replicas over a PostgreSQL log for tests and benchmarks
 * (replicas.h).
 */
#include "tests/replicas.h"

#include <libpq-fe.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/time.h"
#include "tests/testlib.h"

static eg_code start_one(eg_replicas *rs, int i, eg_err *err) {
  const char *extra[] = {rs->dsn_flag, "--replog-batch=256", NULL};
  if (rs->r[i].name[0]) return eg_harness_restart(&rs->r[i], extra, err);
  char dir[600];
  snprintf(dir, sizeof dir, "%s/r%d", rs->dir, i);
  mkdir(dir, 0755);
  return eg_harness_start(rs->daemon, dir, extra, &rs->r[i], err);
}

eg_code eg_replicas_start(eg_replicas *rs, int n, bool durable, eg_err *err) {
  return eg_replicas_start_of(rs, "graphd", n, durable, err);
}

/* n replicas of daemon over the log at dsn; rs cleared but for its pg. */
static eg_code launch(eg_replicas *rs, const char *daemon, int n, const char *dsn, eg_err *err) {
  snprintf(rs->daemon, sizeof rs->daemon, "%s", daemon);
  if (n < 1 || n > EG_MAX_REPLICAS)
    return eg_err_set(err, EG_EINVAL, "1 to %d replicas", EG_MAX_REPLICAS);
  rs->n = n;
  snprintf(rs->dsn, sizeof rs->dsn, "%s", dsn);
  snprintf(rs->dsn_flag, sizeof rs->dsn_flag, "--replog-dsn=%s", dsn);
  rs->dir = eg_test_tempdir("replicas");
  if (!rs->dir) return eg_err_set(err, EG_EIO, "cannot make a temp dir");
  eg_code rc = EG_OK;
  for (int i = 0; i < n; i++)
    if ((rc = start_one(rs, i, err))) return rc;
  if (eg_replicas_writer(rs, 15 * EG_US_PER_SEC) < 0)
    return eg_err_set(err, EG_ETIMEOUT, "no replica became the writer");
  return EG_OK;
}

eg_code eg_replicas_start_of(eg_replicas *rs, const char *daemon, int n, bool durable,
                             eg_err *err) {
  memset(rs, 0, sizeof *rs);
  if (n < 1 || n > EG_MAX_REPLICAS)
    return eg_err_set(err, EG_EINVAL, "1 to %d replicas", EG_MAX_REPLICAS);
  eg_code rc = eg_pg_start(&rs->pg, durable, err);
  return rc ? rc : launch(rs, daemon, n, rs->pg.dsn, err);
}

eg_code eg_replicas_start_on(eg_replicas *rs, const char *daemon, int n, const char *dsn,
                             eg_err *err) {
  memset(rs, 0, sizeof *rs);
  return launch(rs, daemon, n, dsn, err);
}

eg_code eg_replicas_restart(eg_replicas *rs, int i, eg_err *err) { return start_one(rs, i, err); }

eg_code eg_replicas_restart_empty(eg_replicas *rs, int i, eg_err *err) {
  if (rs->r[i].pid) eg_harness_stop(&rs->r[i], SIGTERM);
  eg_test_rmtree(rs->r[i].data);
  mkdir(rs->r[i].data, 0755);
  return start_one(rs, i, err);
}

int eg_replicas_log_holds(eg_replicas *rs, const char *shard, const char *text) {
  PGconn *c = PQconnectdb(rs->dsn);
  PGresult *r = PQexecParams(c, "SELECT payload FROM engram_replog WHERE shard = $1", 1, NULL,
                             (const char *const[]){shard}, NULL, NULL, 1);
  int n = -1;
  if (PQresultStatus(r) == PGRES_TUPLES_OK) {
    n = 0;
    for (int i = 0; i < PQntuples(r); i++)
      n += memmem(PQgetvalue(r, i, 0), (size_t)PQgetlength(r, i, 0), text, strlen(text)) != NULL;
  } else {
    fprintf(stderr, "cannot read the log: %s", PQerrorMessage(c));
  }
  PQclear(r);
  PQfinish(c);
  return n;
}

void eg_replicas_stop(eg_replicas *rs, bool keep) {
  for (int i = 0; i < rs->n; i++) {
    if (rs->r[i].pid) eg_harness_stop(&rs->r[i], SIGTERM);
    if (keep && rs->r[i].name[0]) fprintf(stderr, "replica %d's log: %s\n", i, rs->r[i].log);
  }
  eg_pg_stop(&rs->pg, keep);
  if (rs->dir && !keep) eg_test_rmtree(rs->dir);
  free(rs->dir);
  rs->dir = NULL;
}

int eg_replicas_writer(eg_replicas *rs, int64_t timeout_us) {
  int64_t until = eg_time_mono_us() + timeout_us;
  char series[96];
  snprintf(series, sizeof series, "engram_%s_replication_role{role=\"writer\"}", rs->daemon);
  do {
    for (int i = 0; i < rs->n; i++)
      if (rs->r[i].pid && eg_metric_value(rs->r[i].metrics_port, series) == 1) return i;
    usleep(20000);
  } while (eg_time_mono_us() < until);
  return -1;
}

eg_code eg_writer_client_open(eg_writer_client *wc, eg_replicas *rs, int64_t timeout_us,
                              eg_err *err) {
  memset(wc, 0, sizeof *wc);
  wc->rs = rs;
  eg_rpc_client_opts o = {.timeout_us = timeout_us, .max_attempts = 1};
  for (int i = 0; i < rs->n; i++) {
    eg_code rc = eg_rpc_client_open(rs->r[i].addr, &o, &wc->c[i], err);
    if (rc) return rc;
  }
  int w = eg_replicas_writer(rs, 0);
  wc->target = w < 0 ? 0 : w;
  return EG_OK;
}

void eg_writer_client_close(eg_writer_client *wc) {
  for (int i = 0; i < EG_MAX_REPLICAS; i++) eg_rpc_client_close(wc->c[i]);
  memset(wc, 0, sizeof *wc);
}

/* The replica a refusal names ("… writer=127.0.0.1:1234"), or -1. */
static int named_writer(const eg_writer_client *wc, const char *msg) {
  const char *p = strstr(msg, "writer=");
  if (!p) return -1;
  p += 7;
  for (int i = 0; i < wc->rs->n; i++) {
    size_t l = strlen(wc->rs->r[i].addr);
    if (l && strncmp(p, wc->rs->r[i].addr, l) == 0 && (p[l] == '\0' || p[l] == ' ' || p[l] == ';'))
      return i;
  }
  return -1;
}

/* One attempt of a write at a replica. */
typedef eg_code (*attempt_fn)(eg_rpc_client *c, void *ctx, eg_err *err);

static eg_code follow_writer(eg_writer_client *wc, attempt_fn attempt, void *ctx,
                             int64_t give_up_us, eg_err *err) {
  for (;;) {
    eg_code rc = attempt(wc->c[wc->target], ctx, err);
    if (rc == EG_OK) return EG_OK;
    if (rc != EG_EUNAVAIL && rc != EG_ETIMEOUT) return rc; /* a real refusal */
    if (eg_time_mono_us() >= give_up_us) return rc;
    int named = named_writer(wc, err->msg);
    if (named >= 0 && named != wc->target) {
      wc->target = named;
      wc->redirects++;
      continue;
    }
    wc->target = (wc->target + 1) % wc->rs->n; /* down, or no writer known yet */
    usleep(20000);
  }
}

typedef struct call_args {
  eg_write_at_fn at;
  const void *req;
} call_args;

static eg_code call_attempt(eg_rpc_client *c, void *ctx, eg_err *err) {
  call_args *a = ctx;
  eg_rpc_request r = a->at(c, a->req);
  eg_code rc = eg_rpc_run(&r, 0, err);
  if (r.resp) protobuf_c_message_free_unpacked(r.resp, NULL);
  return rc;
}

eg_code eg_writer_call(eg_writer_client *wc, eg_write_at_fn at, const void *req, int64_t give_up_us,
                       eg_err *err) {
  call_args a = {at, req};
  return follow_writer(wc, call_attempt, &a, give_up_us, err);
}

typedef struct commit_args {
  const char *tenant, *user;
  const eg_edge_spec *s;
  Engram__V1__CommitResponse **resp;
} commit_args;

static eg_code commit_attempt(eg_rpc_client *c, void *ctx, eg_err *err) {
  commit_args *a = ctx;
  return gc_commit_resp(c, a->tenant, a->user, a->s, a->resp, err);
}

eg_code eg_writer_commit(eg_writer_client *wc, const char *tenant, const char *user,
                         const eg_edge_spec *s, int64_t give_up_us,
                         Engram__V1__CommitResponse **resp, eg_err *err) {
  commit_args a = {tenant, user, s, resp};
  return follow_writer(wc, commit_attempt, &a, give_up_us, err);
}

int eg_replicas_run(eg_replicas *rs, const char *daemon, int n, eg_rpc_client **cl,
                    const eg_replicas_test *tests, size_t n_tests) {
  eg_rpc_global_init();
  eg_err e;
  if (eg_replicas_start_of(rs, daemon, n, false, &e) != EG_OK) {
    fprintf(stderr, "cannot start the replicas: %s\n", e.msg);
    eg_replicas_stop(rs, true);
    return 1;
  }
  eg_rpc_client_opts o = {.timeout_us = 10 * EG_US_PER_SEC, .max_attempts = 1};
  for (int i = 0; i < rs->n; i++) eg_rpc_client_open(rs->r[i].addr, &o, &cl[i], &e);
  for (size_t i = 0; i < n_tests; i++) eg_test_run(tests[i].name, tests[i].fn);
  for (int i = 0; i < rs->n; i++) eg_rpc_client_close(cl[i]);
  int rc = eg_test_finish();
  eg_replicas_stop(rs, rc != 0);
  eg_rpc_global_shutdown();
  return rc;
}

/* The packed bytes of a message (caller frees). */
static uint8_t *packed(const ProtobufCMessage *m, size_t *len) {
  *len = protobuf_c_message_get_packed_size(m);
  uint8_t *b = malloc(*len ? *len : 1);
  if (b) protobuf_c_message_pack(m, b);
  return b;
}

bool eg_same_message(const ProtobufCMessage *a, const ProtobufCMessage *b) {
  size_t la, lb;
  uint8_t *pa = packed(a, &la), *pb = packed(b, &lb);
  bool same = pa && pb && la == lb && memcmp(pa, pb, la) == 0;
  free(pa);
  free(pb);
  return same;
}

/* ---- a writer killed under load ------------------------------------------------------------ */

typedef struct load_run {
  eg_replicas *rs;
  eg_load *ld;
} load_run;

static void *load_main(void *arg) {
  load_run *lr = arg;
  eg_load *ld = lr->ld;
  eg_writer_client wc;
  eg_err e;
  if (eg_writer_client_open(&wc, lr->rs, 2 * EG_US_PER_SEC, &e)) return NULL;
  for (int i = 0; i < EG_LOAD_MAX && !atomic_load(&ld->stop); i++) {
    atomic_store(&ld->sent, i + 1);
    int redirects = wc.redirects;
    if (ld->write(&wc, i, ld->ctx, eg_time_mono_us() + 30 * EG_US_PER_SEC, &e) == EG_OK) {
      ld->acked[i] = true;
      ld->acked_at[i] = eg_time_mono_us();
    }
    if (wc.redirects != redirects || !ld->acked[i]) ld->failures++;
  }
  ld->redirects = wc.redirects;
  eg_writer_client_close(&wc);
  return NULL;
}

/* The writer, with SIGKILL. */
static eg_code kill_writer(eg_replicas *rs, void *ctx, eg_failover *out, eg_err *err) {
  (void)ctx;
  out->killed = eg_replicas_writer(rs, 0);
  if (out->killed < 0) return eg_err_set(err, EG_EPRECOND, "no writer to kill");
  int status = eg_harness_stop(&rs->r[out->killed], SIGKILL);
  if (status != 128 + SIGKILL)
    return eg_err_set(err, EG_EINTERNAL, "the writer was not killed (status %d)", status);
  return EG_OK;
}

eg_code eg_failover_under_load(eg_replicas *rs, eg_load *ld, int64_t run_us, eg_failover *out,
                               eg_err *err) {
  if (eg_replicas_writer(rs, 0) < 0) return eg_err_set(err, EG_EPRECOND, "no writer to kill");
  return eg_failover_under_load_by(rs, ld, run_us, kill_writer, NULL, out, err);
}

eg_code eg_failover_under_load_by(eg_replicas *rs, eg_load *ld, int64_t run_us, eg_kill_fn do_kill,
                                  void *ctx, eg_failover *out, eg_err *err) {
  memset(out, 0, sizeof *out);
  out->killed = -1;
  out->writer = -1;
  out->seconds = -1;
  load_run lr = {rs, ld};
  pthread_t th;
  if (pthread_create(&th, NULL, load_main, &lr) != 0)
    return eg_err_set(err, EG_EINTERNAL, "cannot start a thread");
  usleep((useconds_t)run_us);
  out->before = atomic_load(&ld->sent);
  int64_t killed_at = eg_time_mono_us();
  eg_err ke;
  eg_code killed = do_kill(rs, ctx, out, &ke);
  int after = atomic_load(&ld->sent); /* the writes from here on were sent after the kill */
  int64_t first_after = 0;
  while (!first_after && eg_time_mono_us() - killed_at < 20 * EG_US_PER_SEC) {
    usleep(10000);
    int sent = atomic_load(&ld->sent);
    /* a write sent after the kill (the one in flight then may have landed before it) */
    for (int i = after; i < sent && !first_after; i++)
      if (ld->acked_at[i] > killed_at) first_after = ld->acked_at[i];
  }
  usleep((useconds_t)run_us); /* writes go on on the new writer */
  atomic_store(&ld->stop, true);
  pthread_join(th, NULL);
  out->seconds = first_after ? (double)(first_after - killed_at) / 1e6 : -1;
  out->writer = eg_replicas_writer(rs, 5 * EG_US_PER_SEC);
  out->sent = atomic_load(&ld->sent);
  int64_t last = killed_at, gap = 0;
  for (int i = 0; i < out->sent; i++) {
    out->acked += ld->acked[i];
    if (!ld->acked[i] || ld->acked_at[i] < killed_at) continue;
    if (ld->acked_at[i] - last > gap) gap = ld->acked_at[i] - last;
    last = ld->acked_at[i];
  }
  out->outage = (double)gap / 1e6;
  fprintf(stderr,
          "  %d writes before the kill, %d tried, %d acknowledged, %d retried, %d redirects; "
          "failover %.2f s, no write acknowledged for %.2f s (replica %d → %d)\n",
          out->before, out->sent, out->acked, ld->failures, ld->redirects, out->seconds,
          out->outage, out->killed, out->writer);
  if (killed) return eg_err_set(err, killed, "%s", ke.msg);
  return EG_OK;
}

/* ---- the graphd load ------------------------------------------------------------------------ */

void eg_load_subject(int i, char *buf, size_t n) { snprintf(buf, n, "person %d", i); }

eg_code eg_load_commit_city(eg_writer_client *wc, int i, void *ctx, int64_t give_up_us,
                            eg_err *err) {
  char subj[32], city[32];
  eg_load_subject(i, subj, sizeof subj);
  snprintf(city, sizeof city, "city-%d", i);
  eg_edge_spec s = {.subject = subj, .relation = "LIVES_IN", .literal = city};
  Engram__V1__CommitResponse *r = NULL;
  eg_code rc = eg_writer_commit(wc, ctx, NULL, &s, give_up_us, &r, err);
  if (r) protobuf_c_message_free_unpacked(&r->base, NULL);
  return rc;
}

/* The load's commit the len bytes at p name ("city-<i>", nothing else), or -1. */
static int city_at(const char *p, size_t len, int sent) {
  if (len < 6 || len > 14 || memcmp(p, "city-", 5) != 0) return -1;
  int i = 0;
  for (size_t k = 5; k < len; k++) {
    if (p[k] < '0' || p[k] > '9') return -1;
    i = i * 10 + (p[k] - '0');
  }
  return i < sent ? i : -1;
}

eg_code eg_load_count_edges(eg_rpc_client *c, const char *tenant, int sent, int *count, int *other,
                            eg_err *err) {
  memset(count, 0, (size_t)sent * sizeof *count);
  *other = 0;
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = (char *)tenant;
  Engram__V1__ChangesRequest cr = ENGRAM__V1__CHANGES_REQUEST__INIT;
  cr.scope = &scope;
  cr.limit = 1000;
  char token[64] = "";
  for (int page = 0; page < 1000; page++) {
    cr.page_token = token;
    Engram__V1__ChangesResponse *ch = NULL;
    eg_code rc = eg_graphd_changes(c, &cr, &ch, err);
    if (rc) return rc;
    for (size_t k = 0; k < ch->n_edges; k++) {
      const Engram__V1__Edge *ed = ch->edges[k];
      bool lit = ed->object && ed->object->kind_case == ENGRAM__V1__VALUE__KIND_LITERAL;
      const char *l = lit ? ed->object->literal : "";
      int i = city_at(l, strlen(l), sent);
      if (i >= 0)
        count[i]++;
      else
        (*other)++;
    }
    snprintf(token, sizeof token, "%s", ch->next_page_token ? ch->next_page_token : "");
    protobuf_c_message_free_unpacked(&ch->base, NULL);
    if (!token[0]) break;
  }
  return EG_OK;
}

int eg_load_count_records(const char *dsn, const char *shard, int sent, int *count) {
  memset(count, 0, (size_t)sent * sizeof *count);
  PGconn *c = PQconnectdb(dsn);
  PGresult *r = PQexecParams(c, "SELECT payload FROM engram_replog WHERE shard = $1", 1, NULL,
                             (const char *const[]){shard}, NULL, NULL, 1);
  int n = -1;
  if (PQresultStatus(r) == PGRES_TUPLES_OK) {
    n = PQntuples(r);
    bool *seen = calloc((size_t)sent + 1, sizeof *seen);
    for (int row = 0; row < n && seen; row++) { /* each commit once per record */
      const char *p = PQgetvalue(r, row, 0);
      size_t len = (size_t)PQgetlength(r, row, 0);
      memset(seen, 0, (size_t)sent * sizeof *seen);
      /* a protobuf string: its length in the byte before it */
      for (const char *q = p; (q = memmem(q, len - (size_t)(q - p), "city-", 5)); q += 5) {
        size_t l = q > p ? (unsigned char)q[-1] : 0;
        int i = l <= len - (size_t)(q - p) ? city_at(q, l, sent) : -1;
        if (i >= 0 && !seen[i]) seen[i] = true, count[i]++;
      }
    }
    free(seen);
  } else {
    fprintf(stderr, "cannot read the log: %s", PQerrorMessage(c));
  }
  PQclear(r);
  PQfinish(c);
  return n;
}

eg_code eg_load_verdict_of(const eg_load *ld, int sent, eg_rpc_client *c, const char *tenant,
                           const char *dsn, const char *shard, eg_load_verdict *v, eg_err *err) {
  memset(v, 0, sizeof *v);
  int *count = calloc((size_t)sent + 1, sizeof *count);
  if (!count) return eg_err_set(err, EG_ENOMEM, "out of memory");
  eg_code rc = eg_load_count_edges(c, tenant, sent, count, &v->other, err);
  for (int i = 0; i < sent && !rc; i++) {
    v->acked += ld->acked[i];
    v->lost += ld->acked[i] && count[i] == 0;
    v->dup += count[i] > 1;
  }
  if (!rc && dsn) {
    if (eg_load_count_records(dsn, shard, sent, count) < 0)
      rc = eg_err_set(err, EG_EIO, "cannot read the log of %s", shard);
    for (int i = 0; i < sent && !rc; i++) v->unlogged += ld->acked[i] && count[i] == 0;
  }
  free(count);
  if (!rc)
    fprintf(stderr,
            "  %d acknowledged: %d lost, %d duplicated, %d not in the log%s (%d other edges)\n",
            v->acked, v->lost, v->dup, v->unlogged, dsn ? "" : " (not read)", v->other);
  return rc;
}

bool eg_replicas_caught_up(eg_replicas *rs, int f, int w, int64_t timeout_us) {
  char series[96];
  snprintf(series, sizeof series, "engram_%s_replication_applied_seq", rs->daemon);
  int64_t until = eg_time_mono_us() + timeout_us;
  do {
    double a = eg_metric_value(rs->r[f].metrics_port, series),
           b = eg_metric_value(rs->r[w].metrics_port, series);
    if (a >= 0 && a == b) return true;
    usleep(50000);
  } while (eg_time_mono_us() < until);
  return false;
}
