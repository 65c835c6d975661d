/*
 * jobs.c — the durable async queue (jobs.h): jobs in RocksDB, run on a worker pool,
 * resumed after a restart.
 *
 * One column family "jobs", keys of 9 bytes: 'Q' | seq (big-endian) for a job still to
 * run (its request with it), 'D' | seq for a finished one (no request). A job moves from
 * Q to D in one synced write when it ends, so after a crash it is either still to run or
 * finished, never both. The value: u8 kind | u16 tenant length | tenant | u32 length |
 * packed engram.v1.Job | the packed request (Q only).
 */
#include "services/ingestd/jobs.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "common/keybuf.h"
#include "common/kv.h"
#include "common/log.h"
#include "common/map.h"
#include "common/pool.h"
#include "common/rpc.h"
#include "common/time.h"

enum { JCF_DEFAULT = 0, JCF_JOBS = 1 };

struct eg_job {
  eg_jobs *js;
  uint64_t seq;
  char id[48];
  bool running;
  uint32_t done, total; /* chunk progress */
  char watermark[64];   /* set by the run: reported when done ("" = the submitted one) */
};

struct eg_jobs {
  eg_jobs_opts o;
  eg_kv *kv;
  eg_pool *pool;
  pthread_mutex_t mu; /* guards everything below */
  eg_map *pending;    /* id → eg_job*: queued or running */
  uint64_t seq;       /* the last job number given */
  int waiting;        /* accepted, not yet running (the queue bound counts these) */
  bool closing;       /* jobs not yet started stay on disk */
  eg_series *m_rejected, *m_resumed, *m_jobs_done, *m_jobs_failed;
};

/* ---- records --------------------------------------------------------------------------- */

typedef struct job_rec {
  eg_job_kind kind;
  const char *tenant;
  size_t tenant_len;
  const uint8_t *job, *req; /* packed Job, packed request (NULL when finished) */
  size_t job_len, req_len;
} job_rec;

static void job_key(uint8_t k[9], char space, uint64_t seq) {
  k[0] = (uint8_t)space;
  key_put64(k + 1, seq);
}

/* The stored value (malloc'd, caller frees); req NULL for a finished job. */
static uint8_t *rec_encode(eg_job_kind kind, const char *tenant, const Engram__V1__Job *job,
                           const ProtobufCMessage *req, size_t *len) {
  size_t tl = strlen(tenant), jl = engram__v1__job__get_packed_size(job);
  size_t rl = req ? protobuf_c_message_get_packed_size(req) : 0;
  if (tl > UINT16_MAX) return NULL;
  uint8_t *v = malloc(1 + 2 + tl + 4 + jl + rl), *p = v;
  if (!v) return NULL;
  *p++ = (uint8_t)kind;
  p[0] = (uint8_t)(tl >> 8), p[1] = (uint8_t)tl, p += 2;
  memcpy(p, tenant, tl), p += tl;
  p[0] = (uint8_t)(jl >> 24), p[1] = (uint8_t)(jl >> 16), p[2] = (uint8_t)(jl >> 8),
  p[3] = (uint8_t)jl, p += 4;
  p += engram__v1__job__pack(job, p);
  if (req) p += protobuf_c_message_pack(req, p);
  *len = (size_t)(p - v);
  return v;
}

static bool rec_decode(const char *v, size_t vl, job_rec *r) {
  const uint8_t *p = (const uint8_t *)v, *end = p + vl;
  if (vl < 7) return false;
  r->kind = (eg_job_kind)p[0];
  r->tenant_len = (size_t)p[1] << 8 | p[2];
  p += 3;
  if ((size_t)(end - p) < r->tenant_len + 4) return false;
  r->tenant = (const char *)p;
  p += r->tenant_len;
  r->job_len = (size_t)p[0] << 24 | (size_t)p[1] << 16 | (size_t)p[2] << 8 | p[3];
  p += 4;
  if ((size_t)(end - p) < r->job_len) return false;
  r->job = p;
  p += r->job_len;
  r->req = p < end ? p : NULL;
  r->req_len = (size_t)(end - p);
  return true;
}

/* Read the record of seq: pending first, then finished. *val malloc'd (caller frees). */
static eg_code rec_read(eg_jobs *js, uint64_t seq, bool *pending, char **val, job_rec *r,
                        eg_err *err) {
  uint8_t k[9];
  size_t vl;
  job_key(k, 'Q', seq);
  eg_code rc = eg_kv_get(js->kv, JCF_JOBS, k, 9, val, &vl, err);
  *pending = rc == EG_OK;
  if (rc == EG_ENOTFOUND) {
    job_key(k, 'D', seq);
    rc = eg_kv_get(js->kv, JCF_JOBS, k, 9, val, &vl, err);
  }
  if (rc) return rc;
  if (!rec_decode(*val, vl, r)) {
    free(*val);
    *val = NULL;
    return eg_err_set(err, EG_EINTERNAL, "job record damaged");
  }
  return EG_OK;
}

static bool seq_of(const char *id, uint64_t *seq) {
  unsigned long long s = 0;
  if (!id || sscanf(id, "job-%llx-", &s) != 1 || !s) return false;
  *seq = s;
  return true;
}

/* ---- running ------------------------------------------------------------------------------ */

/* Move the job from Q to D with its outcome, forgetting finished jobs past the retention. */
static eg_code finish(eg_jobs *js, eg_job *j, const job_rec *r, const Engram__V1__Job *old,
                      eg_code outcome, const eg_err *jerr, Engram__V1__IngestReport *rep,
                      eg_err *err) {
  Engram__V1__Job done = ENGRAM__V1__JOB__INIT;
  char *tenant = strndup(r->tenant, r->tenant_len);
  if (!tenant) return eg_err_set(err, EG_ENOMEM, "out of memory");
  done.job_id = j->id;
  done.state =
      outcome ? ENGRAM__V1__JOB_STATE__JOB_STATE_FAILED : ENGRAM__V1__JOB_STATE__JOB_STATE_DONE;
  done.watermark = old->watermark;
  pthread_mutex_lock(&js->mu);
  if (j->watermark[0] && !outcome) done.watermark = j->watermark;
  pthread_mutex_unlock(&js->mu);
  done.report = rep;
  done.error = outcome ? (char *)jerr->msg : "";
  pthread_mutex_lock(&js->mu);
  done.chunks_done = j->done;
  done.chunks_total = j->total;
  pthread_mutex_unlock(&js->mu);
  size_t vl;
  uint8_t *v = rec_encode(r->kind, tenant, &done, NULL, &vl);
  free(tenant);
  if (!v) return eg_err_set(err, EG_ENOMEM, "out of memory");
  eg_kvtxn *txn = eg_kv_begin(js->kv);
  uint8_t q[9], d[9];
  job_key(q, 'Q', j->seq);
  job_key(d, 'D', j->seq);
  eg_kvtxn_delete(txn, JCF_JOBS, q, 9);
  eg_kvtxn_put(txn, JCF_JOBS, d, 9, v, vl, false);
  if (j->seq > EG_JOBS_RETAINED) {
    uint8_t from[9], to[9];
    job_key(from, 'D', 0);
    job_key(to, 'D', j->seq - EG_JOBS_RETAINED);
    eg_kvtxn_delete_range(txn, JCF_JOBS, from, 9, to, 9);
  }
  free(v);
  return eg_kvtxn_commit(txn, err);
}

static void job_run(void *arg) {
  eg_job *j = arg;
  eg_jobs *js = j->js;
  pthread_mutex_lock(&js->mu);
  bool skip = js->closing;
  if (!skip) {
    j->running = true;
    js->waiting--;
  }
  pthread_mutex_unlock(&js->mu);
  if (skip) return; /* shutting down: it stays queued on disk, for the next start */
  eg_arena *a = eg_arena_new(1 << 16, 0);
  Engram__V1__IngestReport rep = ENGRAM__V1__INGEST_REPORT__INIT;
  Engram__V1__Job *old = NULL;
  char *val = NULL;
  job_rec r;
  bool pending;
  eg_err err, jerr;
  eg_err_clear(&err);
  eg_err_clear(&jerr);
  eg_code outcome = EG_OK;
  eg_code rc = rec_read(js, j->seq, &pending, &val, &r, &err);
  if (!rc && (!pending || !(old = engram__v1__job__unpack(NULL, r.job_len, r.job))))
    rc = eg_err_set(&err, EG_EINTERNAL, "job record damaged");
  if (rc) {
    EG_ERROR("jobs", "cannot read a queued job", "job=%s error=\"%s\"", j->id, err.msg);
    goto cleanup;
  }
  if (!a)
    outcome = eg_err_set(&jerr, EG_ENOMEM, "out of memory");
  else
    outcome = js->o.run(js->o.ctx, j, r.kind, r.req ? r.req : (const uint8_t *)"", r.req_len, a,
                        &rep, &jerr);
  if (outcome) EG_WARN("jobs", "async job failed", "job=%s code=%s", j->id, eg_code_name(outcome));
  eg_series_add(outcome ? js->m_jobs_failed : js->m_jobs_done, 1);
  if ((rc = finish(js, j, &r, old, outcome, &jerr, &rep, &err)))
    EG_ERROR("jobs", "cannot record a finished job (it runs again at the next start)",
             "job=%s error=\"%s\"", j->id, err.msg);
cleanup:
  if (old) engram__v1__job__free_unpacked(old, NULL);
  free(val);
  eg_arena_free(a);
  pthread_mutex_lock(&js->mu);
  eg_map_del(js->pending, j->id, strlen(j->id));
  pthread_mutex_unlock(&js->mu);
  free(j);
}

void eg_job_set_watermark(eg_job *j, const char *watermark) {
  if (!j || !watermark) return;
  pthread_mutex_lock(&j->js->mu);
  snprintf(j->watermark, sizeof j->watermark, "%s", watermark);
  pthread_mutex_unlock(&j->js->mu);
}

void eg_job_progress(eg_job *j, uint32_t done, uint32_t total) {
  if (!j) return;
  pthread_mutex_lock(&j->js->mu);
  j->done = done;
  j->total = total;
  pthread_mutex_unlock(&j->js->mu);
}

/* Track a job as pending and hand it to the pool (caller counted it in waiting). */
static eg_code schedule(eg_jobs *js, uint64_t seq, const char *id, eg_err *err) {
  eg_job *j = calloc(1, sizeof *j);
  if (!j) return eg_err_set(err, EG_ENOMEM, "out of memory");
  j->js = js;
  j->seq = seq;
  snprintf(j->id, sizeof j->id, "%s", id);
  pthread_mutex_lock(&js->mu);
  eg_code rc = eg_map_put(js->pending, j->id, strlen(j->id), j);
  pthread_mutex_unlock(&js->mu);
  if (!rc) rc = eg_pool_submit(js->pool, job_run, j);
  if (rc) {
    pthread_mutex_lock(&js->mu);
    eg_map_del(js->pending, j->id, strlen(j->id));
    pthread_mutex_unlock(&js->mu);
    free(j);
    return eg_err_set(err, rc, "cannot schedule job (%s)", eg_code_name(rc));
  }
  return EG_OK;
}

/* ---- the API ---------------------------------------------------------------------------- */

eg_code eg_jobs_submit(eg_jobs *js, eg_job_kind kind, const char *tenant,
                       const ProtobufCMessage *req, const char *watermark, char id_out[48],
                       eg_err *err) {
  pthread_mutex_lock(&js->mu);
  if (js->waiting >= js->o.queue_max) {
    pthread_mutex_unlock(&js->mu);
    eg_series_add(js->m_rejected, 1);
    return eg_err_set(err, EG_EFULL, "ingest queue is full (%d jobs waiting): retry with backoff",
                      js->o.queue_max);
  }
  js->waiting++; /* reserved now, so concurrent accepts never overshoot the bound */
  uint64_t seq = ++js->seq;
  pthread_mutex_unlock(&js->mu);
  /* Job ids are not guessable: a random part besides the sequence. */
  unsigned long long nonce = 0;
  if (getrandom(&nonce, sizeof nonce, 0) != sizeof nonce)
    nonce = (unsigned long long)eg_time_mono_us() * 0x9e3779b97f4a7c15ull;
  char id[48];
  snprintf(id, sizeof id, "job-%llx-%016llx", (unsigned long long)seq, nonce);
  Engram__V1__Job job = ENGRAM__V1__JOB__INIT;
  job.job_id = id;
  job.state = ENGRAM__V1__JOB_STATE__JOB_STATE_QUEUED;
  job.watermark = (char *)watermark;
  size_t vl;
  uint8_t *v = rec_encode(kind, tenant, &job, req, &vl);
  eg_code rc;
  if (!v) {
    rc = eg_err_set(err, EG_ENOMEM, "out of memory");
  } else {
    eg_kvtxn *txn = eg_kv_begin(js->kv);
    uint8_t k[9];
    job_key(k, 'Q', seq);
    eg_kvtxn_put(txn, JCF_JOBS, k, 9, v, vl, false);
    free(v);
    rc = eg_kvtxn_commit(txn, err); /* synced: the answer below promises the job survives a crash */
  }
  /* Durable now; if scheduling fails the next start runs it, so the accept stands. */
  if (!rc && schedule(js, seq, id, err))
    EG_WARN("jobs", "job queued on disk only until the next start", "job=%s", id);
  if (rc) {
    pthread_mutex_lock(&js->mu);
    js->waiting--;
    pthread_mutex_unlock(&js->mu);
    return rc;
  }
  memcpy(id_out, id, sizeof id);
  return EG_OK;
}

eg_code eg_jobs_get(eg_jobs *js, const char *tenant, const char *id, eg_arena *a,
                    Engram__V1__Job *out, eg_err *err) {
  uint64_t seq;
  if (!seq_of(id, &seq)) return eg_err_set(err, EG_ENOTFOUND, "no such job");
  char *val = NULL;
  job_rec r;
  bool pending;
  eg_code rc = rec_read(js, seq, &pending, &val, &r, err);
  if (rc == EG_ENOTFOUND)
    return eg_err_set(err, EG_ENOTFOUND, "no such job (finished jobs are kept for the last %d)",
                      EG_JOBS_RETAINED);
  if (rc) return rc;
  ProtobufCAllocator al = eg_rpc_arena_allocator(a);
  Engram__V1__Job *j = engram__v1__job__unpack(&al, r.job_len, r.job);
  bool mine = j && j->job_id && !strcmp(j->job_id, id) && r.tenant_len == strlen(tenant) &&
              !memcmp(r.tenant, tenant, r.tenant_len);
  free(val);
  if (!j) return eg_err_set(err, EG_EINTERNAL, "job record damaged");
  if (!mine)
    return eg_err_set(err, EG_ENOTFOUND, "no such job"); /* another tenant's: as if absent */
  *out = *j;
  if (pending) {
    pthread_mutex_lock(&js->mu);
    eg_job *live = eg_map_get(js->pending, id, strlen(id));
    if (live && live->running) {
      out->state = ENGRAM__V1__JOB_STATE__JOB_STATE_RUNNING;
      out->chunks_done = live->done;
      out->chunks_total = live->total;
    }
    pthread_mutex_unlock(&js->mu);
  }
  return EG_OK;
}

int eg_jobs_waiting(eg_jobs *js) {
  pthread_mutex_lock(&js->mu);
  int n = js->waiting;
  pthread_mutex_unlock(&js->mu);
  return n;
}

/* ---- lifecycle ------------------------------------------------------------------------- */

static double waiting_gauge(void *arg) { return eg_jobs_waiting(arg); }
static double capacity_gauge(void *arg) { return ((eg_jobs *)arg)->o.queue_max; }

/* The jobs left to run by an earlier run, in order; the highest job number ever given. */
typedef struct resume_list {
  uint64_t *seqs;
  char (*ids)[48];
  size_t n, cap;
} resume_list;

static eg_code scan(eg_jobs *js, resume_list *rl, eg_err *err) {
  eg_kv_iter *it = eg_kv_iter_open(js->kv, JCF_JOBS, "", 0, NULL, 0); /* the whole family */
  eg_code rc = EG_OK;
  for (; eg_kv_iter_valid(it); eg_kv_iter_next(it)) {
    size_t kl, vl;
    const uint8_t *k = eg_kv_iter_key(it, &kl);
    if (kl != 9) continue;
    uint64_t seq = key_get64(k + 1);
    if (seq > js->seq) js->seq = seq;
    if (k[0] != 'Q') continue;
    job_rec r;
    const char *v = eg_kv_iter_value(it, &vl);
    Engram__V1__Job *j =
        rec_decode(v, vl, &r) ? engram__v1__job__unpack(NULL, r.job_len, r.job) : NULL;
    if (!j || !j->job_id) {
      EG_ERROR("jobs", "skipping a damaged queued job", "seq=%llu", (unsigned long long)seq);
      if (j) engram__v1__job__free_unpacked(j, NULL);
      continue;
    }
    if (rl->n == rl->cap) {
      size_t nc = rl->cap ? rl->cap * 2 : 64;
      uint64_t *s2 = realloc(rl->seqs, nc * sizeof *s2);
      if (s2) rl->seqs = s2;
      char(*i2)[48] = realloc(rl->ids, nc * sizeof *i2);
      if (i2) rl->ids = i2;
      if (!s2 || !i2) {
        engram__v1__job__free_unpacked(j, NULL);
        rc = eg_err_set(err, EG_ENOMEM, "out of memory");
        break;
      }
      rl->cap = nc;
    }
    rl->seqs[rl->n] = seq;
    snprintf(rl->ids[rl->n++], 48, "%s", j->job_id);
    engram__v1__job__free_unpacked(j, NULL);
  }
  eg_kv_iter_close(it);
  return rc;
}

eg_code eg_jobs_open(const eg_jobs_opts *opts, eg_metrics *mx, eg_jobs **out, eg_err *err) {
  eg_jobs *js = calloc(1, sizeof *js);
  if (!js) return eg_err_set(err, EG_ENOMEM, "out of memory");
  js->o = *opts;
  pthread_mutex_init(&js->mu, NULL);
  js->pending = eg_map_new();
  resume_list rl = {0};
  static const char *const cfs[] = {"default", "jobs"};
  eg_code rc = eg_kv_open(opts->dir, cfs, 2, 0, "engram_ingestd_jobs", mx, &js->kv, err);
  if (!rc) rc = scan(js, &rl, err);
  /* The pool holds every resumed job even when queue_max was lowered since. */
  if (!rc)
    rc = eg_pool_new(opts->workers, opts->queue_max > (int)rl.n ? opts->queue_max : (int)rl.n,
                     &js->pool, err);
  if (rc) goto cleanup;
  if (mx) {
    js->m_rejected = eg_metric_solo(
        eg_metrics_counter(mx, "engram_ingestd_queue_rejected_total",
                           "Async ingests refused because the queue was full.", NULL));
    js->m_resumed = eg_metric_solo(
        eg_metrics_counter(mx, "engram_ingestd_jobs_resumed_total",
                           "Async ingests queued again at start (accepted before a stop).", NULL));
    js->m_jobs_done = eg_metric_solo(
        eg_metrics_counter(mx, "engram_ingestd_jobs_done_total", "Async ingests done.", NULL));
    js->m_jobs_failed = eg_metric_solo(eg_metrics_counter(mx, "engram_ingestd_jobs_failed_total",
                                                          "Async ingests that failed.", NULL));
    eg_metrics_gauge_fn(mx, "engram_ingestd_queue_depth", "Async ingest jobs waiting.",
                        waiting_gauge, js);
    eg_metrics_gauge_fn(mx, "engram_ingestd_queue_capacity",
                        "Async ingest jobs the queue holds at most.", capacity_gauge, js);
  }
  js->waiting = (int)rl.n;
  for (size_t i = 0; i < rl.n && !rc; i++) rc = schedule(js, rl.seqs[i], rl.ids[i], err);
  if (rc) goto cleanup;
  if (rl.n) EG_INFO("jobs", "resumed queued jobs", "jobs=%zu", rl.n);
  eg_series_add(js->m_resumed, (double)rl.n);
  *out = js;
cleanup:
  free(rl.seqs);
  free(rl.ids);
  if (rc) eg_jobs_close(js);
  return rc;
}

static bool free_job(void *ctx, const void *k, size_t kl, void *v) {
  (void)ctx, (void)k, (void)kl;
  free(v);
  return true;
}

void eg_jobs_close(eg_jobs *js) {
  if (!js) return;
  pthread_mutex_lock(&js->mu);
  js->closing = true;
  pthread_mutex_unlock(&js->mu);
  eg_pool_free(js->pool); /* running jobs finish; waiting ones return at once */
  eg_map_each(js->pending, free_job, NULL);
  eg_map_free(js->pending);
  eg_kv_close(js->kv);
  pthread_mutex_destroy(&js->mu);
  free(js);
}
