/*
 * jobs.h — ingestd's durable queue of async ingests.
 *
 * An async request is accepted only once it is on disk: its packed request and its state
 * are written to ingestd's own RocksDB (data_dir/jobs) with a synced write before the job
 * id is returned, so a crash of ingestd loses no accepted job. At open, every job that
 * was queued or running when the daemon stopped is queued again and runs after the
 * restart; the write path is idempotent by content hash (a job that had finished its
 * writes finds its receipt and writes nothing), so each job is applied exactly once.
 *
 * States: QUEUED and the final DONE / FAILED (with report or error) are durable; RUNNING
 * and the chunk progress are kept in memory (after a restart, an interrupted job reads
 * QUEUED until it runs again). Finished jobs are kept for the newest EG_JOBS_RETAINED job
 * ids; older ones are forgotten (GetJob: NOT_FOUND).
 *
 * Backpressure: at most queue_max jobs wait (persisted and not yet running); one more is
 * refused with EG_EFULL (RESOURCE_EXHAUSTED), never dropped.
 *
 * Thread rules: every function may be called from any thread.
 */
#ifndef EG_INGESTD_JOBS_H
#define EG_INGESTD_JOBS_H

#include <stdint.h>

#include "common/arena.h"
#include "common/err.h"
#include "common/metrics.h"
#include "proto/engram/v1/ingest.pb-c.h"

/* Finished jobs whose state GetJob still answers (the newest job ids). */
#define EG_JOBS_RETAINED 10000

typedef struct eg_jobs eg_jobs;
/* A job while it runs (borrowed by the run function until it returns). */
typedef struct eg_job eg_job;

/* What a job holds; stored with it, so values are append-only. */
typedef enum eg_job_kind { EG_JOB_SESSION = 0, EG_JOB_DOCUMENT = 1, EG_JOB_FACTS = 2 } eg_job_kind;

/* Runs one job: req is the packed request of `kind` (borrowed for the call). Fills rep;
 * returns EG_OK or the error that fails the job (err->msg is kept as its error text). */
typedef eg_code (*eg_job_run_fn)(void *ctx, eg_job *job, eg_job_kind kind, const uint8_t *req,
                                 size_t req_len, eg_arena *a, Engram__V1__IngestReport *rep,
                                 eg_err *err);

typedef struct eg_jobs_opts {
  const char *dir;   /* RocksDB directory (created) */
  int workers;       /* threads running jobs */
  int queue_max;     /* jobs waiting at most */
  eg_job_run_fn run; /* with ctx (borrowed; must outlive the queue) */
  void *ctx;
} eg_jobs_opts;

/* Open the store and queue again the jobs an earlier run left unfinished. */
eg_code eg_jobs_open(const eg_jobs_opts *opts, eg_metrics *metrics, eg_jobs **out, eg_err *err);
/* Let running jobs finish, then free. Jobs still waiting stay on disk for the next start.
 * Accepts NULL. */
void eg_jobs_close(eg_jobs *js);

/* Accept a job: persisted (synced) before it returns. tenant and req are copied. The id
 * ("job-…", not guessable) goes to id_out. EG_EFULL when queue_max jobs wait. */
eg_code eg_jobs_submit(eg_jobs *js, eg_job_kind kind, const char *tenant,
                       const ProtobufCMessage *req, const char *watermark, char id_out[48],
                       eg_err *err);

/* The job `id` of tenant into out (strings and report in a). EG_ENOTFOUND when unknown,
 * forgotten, or another tenant's. */
eg_code eg_jobs_get(eg_jobs *js, const char *tenant, const char *id, eg_arena *a,
                    Engram__V1__Job *out, eg_err *err);

/* Record a running job's progress: done of total chunks stored. job may be NULL (a sync
 * ingest), then nothing happens. */
void eg_job_progress(eg_job *job, uint32_t done, uint32_t total);
/* The watermark the finished job reports (GetJob), when the write knew more than the one
 * given at submission (graphd's position of its facts): copied; NULL or "" keeps that one. */
void eg_job_set_watermark(eg_job *job, const char *watermark);

/* Jobs waiting (accepted, not yet running). */
int eg_jobs_waiting(eg_jobs *js);

#endif
