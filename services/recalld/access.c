/*
 * access.c — access recording (docs/retention.md): the chunks and facts a Recall
 * returned feed the access term of their retention.
 *
 * After a Recall is answered, the chunk ids and fact edge ids of its items are queued per
 * (tenant, user, agent) and a background thread sends them in batches as
 * Vector.RecordAccess and Graph.RecordAccess: every flush_us, or as soon as `batch` ids
 * wait. A Recall never waits for it and never fails because of it: when the queue holds
 * queue_max ids, a Recall's ids are dropped and counted
 * (engram_recalld_access_dropped_total{reason="queue_full"}), as are ids whose send
 * failed (reason="send_failed"); ids delivered are counted per store
 * (engram_recalld_access_flushed_total{store}). Closing flushes what is queued.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "common/time.h"
#include "proto/engram/v1/graph.pb-c.h"
#include "proto/engram/v1/vector.pb-c.h"
#include "services/recalld/recall_int.h"

#define SEND_TIMEOUT_US (2 * EG_US_PER_SEC)
#define WARN_EVERY_US (60 * EG_US_PER_SEC)

typedef struct idvec {
  uint64_t *v;
  size_t n, cap;
} idvec;

/* The ids waiting for one reader's scope. */
typedef struct group {
  char *tenant, *user, *agent;
  idvec chunks, edges;
  struct group *next;
} group;

enum { STORE_VEC = 0, STORE_GRA = 1 };

struct rc_access {
  eg_peers *peers;
  int64_t flush_us;
  size_t batch, queue_max;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  group *groups; /* guarded by mu */
  size_t queued; /* ids in groups */
  bool stop;
  pthread_t thread;
  eg_series *m_full, *m_failed, *m_flushed[2];
  int64_t warned[2]; /* when a failed send of each store was last logged (flusher only) */
};

static bool push(idvec *v, uint64_t id) {
  if (v->n == v->cap) {
    size_t cap = v->cap ? 2 * v->cap : 16;
    uint64_t *n = realloc(v->v, cap * sizeof *n);
    if (!n) return false;
    v->v = n;
    v->cap = cap;
  }
  v->v[v->n++] = id;
  return true;
}

static void group_free(group *g) {
  free(g->tenant);
  free(g->user);
  free(g->agent);
  free(g->chunks.v);
  free(g->edges.v);
  free(g);
}

static bool same(const char *a, const char *b) { return !strcmp(a ? a : "", b ? b : ""); }

/* The group of scope s (mu held), created when new; NULL when out of memory. */
static group *group_of(rc_access *q, const Engram__V1__Scope *s) {
  for (group *g = q->groups; g; g = g->next)
    if (same(g->tenant, s->tenant) && same(g->user, s->user) && same(g->agent, s->agent)) return g;
  group *g = calloc(1, sizeof *g);
  if (!g) return NULL;
  g->tenant = strdup(s->tenant ? s->tenant : "");
  g->user = strdup(s->user ? s->user : "");
  g->agent = strdup(s->agent ? s->agent : "");
  if (!g->tenant || !g->user || !g->agent) {
    group_free(g);
    return NULL;
  }
  g->next = q->groups;
  q->groups = g;
  return g;
}

void rc_access_note(rc_access *q, const Engram__V1__Scope *scope,
                    const Engram__V1__RecallResponse *resp) {
  if (!q || !scope || !resp) return;
  size_t n = 0;
  for (size_t i = 0; i < resp->n_items; i++) {
    const Engram__V1__RecallItem *it = resp->items[i];
    n += (it->kind == ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK && it->chunk_id) ||
         (it->kind == ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT && it->fact && it->fact->id);
  }
  if (!n) return;
  pthread_mutex_lock(&q->mu);
  group *g = q->queued + n <= q->queue_max ? group_of(q, scope) : NULL;
  size_t added = 0;
  for (size_t i = 0; g && i < resp->n_items; i++) {
    const Engram__V1__RecallItem *it = resp->items[i];
    if (it->kind == ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK && it->chunk_id)
      added += push(&g->chunks, it->chunk_id);
    else if (it->kind == ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT && it->fact && it->fact->id)
      added += push(&g->edges, it->fact->id);
  }
  q->queued += added;
  if (q->queued >= q->batch) pthread_cond_signal(&q->cv);
  pthread_mutex_unlock(&q->mu);
  if (added < n) eg_series_add(q->m_full, (double)(n - added));
}

/* Send one group's ids: both stores at once. */
static void send_group(rc_access *q, group *g) {
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = g->tenant;
  scope.user = g->user;
  scope.agent = g->agent;
  Engram__V1__RecordAccessRequest req[2] = {ENGRAM__V1__RECORD_ACCESS_REQUEST__INIT,
                                            ENGRAM__V1__RECORD_ACCESS_REQUEST__INIT};
  const idvec *ids[2] = {&g->chunks, &g->edges};
  static const char *const names[2] = {"vectord", "graphd"};
  eg_rpc_request rs[2];
  int store[2];
  size_t n = 0;
  int64_t now = eg_time_now_us();
  for (int s = 0; s < 2; s++) {
    if (!ids[s]->n) continue;
    req[s].scope = &scope;
    req[s].ids = ids[s]->v;
    req[s].n_ids = ids[s]->n;
    req[s].time = now;
    rs[n] =
        s == STORE_VEC
            ? eg_vectord_record_access_call(eg_peers_vectord(q->peers, g->tenant), &req[s], NULL)
            : eg_graphd_record_access_call(eg_peers_graphd(q->peers, g->tenant), &req[s], NULL);
    store[n++] = s;
  }
  (void)eg_rpc_fanout(rs, n, SEND_TIMEOUT_US);
  for (size_t i = 0; i < n; i++) {
    int s = store[i];
    if (rs[i].resp) protobuf_c_message_free_unpacked(rs[i].resp, NULL);
    if (!rs[i].err.code) {
      eg_series_add(q->m_flushed[s], (double)ids[s]->n);
      continue;
    }
    eg_series_add(q->m_failed, (double)ids[s]->n);
    int64_t t = eg_time_mono_us();
    if (!q->warned[s] || t - q->warned[s] >= WARN_EVERY_US) { /* at most once a minute per store */
      q->warned[s] = t;
      EG_WARN("access", "recording accesses failed: ids dropped",
              "store=%s ids=%zu code=%s error=\"%s\"", names[s], ids[s]->n,
              eg_code_name(rs[i].err.code), rs[i].err.msg);
    }
  }
}

static void *flusher(void *arg) {
  rc_access *q = arg;
  pthread_mutex_lock(&q->mu);
  for (;;) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    int64_t ns = until.tv_nsec + (q->flush_us % EG_US_PER_SEC) * 1000;
    until.tv_sec += (time_t)(q->flush_us / EG_US_PER_SEC + ns / 1000000000);
    until.tv_nsec = (long)(ns % 1000000000);
    while (!q->stop && q->queued < q->batch &&
           pthread_cond_timedwait(&q->cv, &q->mu, &until) == 0) {
    }
    group *gs = q->groups;
    q->groups = NULL;
    q->queued = 0;
    bool stop = q->stop;
    pthread_mutex_unlock(&q->mu);
    while (gs) {
      group *next = gs->next;
      send_group(q, gs);
      group_free(gs);
      gs = next;
    }
    pthread_mutex_lock(&q->mu);
    if (stop && !q->groups) break; /* stopped, and nothing came in meanwhile */
  }
  pthread_mutex_unlock(&q->mu);
  return NULL;
}

eg_code rc_access_open(eg_peers *peers, int64_t flush_us, size_t batch, size_t queue_max,
                       eg_metrics *mx, rc_access **out, eg_err *err) {
  rc_access *q = calloc(1, sizeof *q);
  if (!q) return eg_err_set(err, EG_ENOMEM, "out of memory");
  q->peers = peers;
  q->flush_us = flush_us > 0 ? flush_us : 250000;
  q->batch = batch ? batch : 512;
  q->queue_max = queue_max ? queue_max : 65536;
  if (mx) {
    eg_metric *d = eg_metrics_counter(
        mx, "engram_recalld_access_dropped_total",
        "Returned chunk and fact ids not recorded as accesses (queue full, send failed).",
        "reason");
    eg_metric *f =
        eg_metrics_counter(mx, "engram_recalld_access_flushed_total",
                           "Returned chunk and fact ids recorded as accesses, per store.", "store");
    q->m_full = eg_metric_series(d, (const char *const[]){"queue_full"}, 1);
    q->m_failed = eg_metric_series(d, (const char *const[]){"send_failed"}, 1);
    q->m_flushed[STORE_VEC] = eg_metric_series(f, (const char *const[]){"vector"}, 1);
    q->m_flushed[STORE_GRA] = eg_metric_series(f, (const char *const[]){"graph"}, 1);
  }
  pthread_mutex_init(&q->mu, NULL);
  pthread_cond_init(&q->cv, NULL);
  if (pthread_create(&q->thread, NULL, flusher, q) != 0) {
    pthread_cond_destroy(&q->cv);
    pthread_mutex_destroy(&q->mu);
    free(q);
    return eg_err_set(err, EG_ENOMEM, "cannot start the access flusher thread");
  }
  *out = q;
  return EG_OK;
}

void rc_access_close(rc_access *q) {
  if (!q) return;
  pthread_mutex_lock(&q->mu);
  q->stop = true;
  pthread_cond_signal(&q->cv);
  pthread_mutex_unlock(&q->mu);
  pthread_join(q->thread, NULL);
  pthread_cond_destroy(&q->cv);
  pthread_mutex_destroy(&q->mu);
  free(q);
}
