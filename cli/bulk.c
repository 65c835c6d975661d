/*
 * bulk.c — the JSONL ingest runner (see bulk.h).
 *
 * One reader hands lines out in file order under a mutex; `parallel` workers send them.
 * Completions are kept in a ring of RING slots, so the done prefix can advance past lines
 * that finished out of order; a worker never takes a line more than RING ahead of that
 * prefix. The state file records the prefix only, which is what makes resuming exact.
 */
#include "cli/bulk.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/arena.h"
#include "common/ingest_client.h"
#include "common/pbjson.h"
#include "common/scope.h"
#include "common/time.h"

enum { RING = 4096, MAX_ATTEMPTS = 10 };
#define STATE_EVERY_US 500000
#define BAR_EVERY_US 250000

typedef struct bulk {
  const eg_bulk_opts *o;
  eg_bulk_stats *st;
  FILE *f;
  char state_path[4096]; /* "" = no state file */
  pthread_mutex_t mu;
  pthread_cond_t cv;
  char *line; /* the reader's buffer (under mu) */
  size_t cap;
  uint64_t next;        /* lines handed out in this run */
  uint64_t offset;      /* file offset after the last line handed out */
  uint64_t done;        /* lines of this run done in order (the prefix) */
  uint64_t done_offset; /* file offset after that prefix */
  uint64_t base_lines;  /* lines done before this run (resume) */
  uint64_t total;       /* lines this run will read; 0 = unknown */
  bool ring_done[RING];
  uint64_t ring_end[RING];
  bool eof;
  int running; /* workers still running */
  int64_t t0, last_state;
  eg_err state_err; /* first failure to write the state file */
  uint64_t gave_up; /* the line number the run stopped at; 0 = none */
} bulk;

const eg_ingest_kind eg_ingest_kinds[EG_INGEST_KINDS] = {
    {"session", &engram__v1__ingest_session_request__descriptor},
    {"document", &engram__v1__ingest_document_request__descriptor},
    {"facts", &engram__v1__assert_facts_request__descriptor},
};

void eg_ingest_set_mode(ProtobufCMessage *req, Engram__V1__IngestMode mode) {
  const ProtobufCFieldDescriptor *f =
      protobuf_c_message_descriptor_get_field_by_name(req->descriptor, "mode");
  if (f) *(int *)((char *)req + f->offset) = (int)mode;
}

/* ---- the state file ------------------------------------------------------------------ */

bool eg_ingest_retryable(eg_code rc) {
  return rc == EG_EFULL || rc == EG_EUNAVAIL || rc == EG_ETIMEOUT;
}

eg_code eg_ingest_send(eg_rpc_client *c, const ProtobufCMessage *req,
                       Engram__V1__IngestResponse **resp, uint64_t *retries, eg_err *e) {
  int64_t backoff = 50000;
  for (int attempt = 1;; attempt++) {
    eg_rpc_request call = eg_ingestd_ingest_call(c, req, resp);
    eg_code rc = eg_rpc_run(&call, 0, e);
    if (rc == EG_OK) return EG_OK;
    if (!eg_ingest_retryable(rc) || attempt == MAX_ATTEMPTS) return rc;
    if (retries) (*retries)++;
    usleep((useconds_t)backoff);
    if (backoff < 2000000) backoff *= 2;
  }
}

static void save_state(bulk *b) {
  if (!b->state_path[0]) return;
  char tmp[4200];
  snprintf(tmp, sizeof tmp, "%s.tmp", b->state_path);
  FILE *f = fopen(tmp, "w");
  bool ok =
      f && fprintf(f, "engram-bulk 1 %llu %llu\n", (unsigned long long)(b->base_lines + b->done),
                   (unsigned long long)b->done_offset) > 0;
  ok = f && fflush(f) == 0 && fsync(fileno(f)) == 0 && ok;
  if (f && fclose(f) != 0) ok = false;
  if (ok && rename(tmp, b->state_path) == 0) return;
  if (b->state_err.code == EG_OK)
    eg_err_set(&b->state_err, EG_EIO, "cannot write %s: %s", b->state_path, strerror(errno));
}

/* Read the state and seek past the recorded prefix, after checking that it ends a line of
 * this file. */
static eg_code load_state(bulk *b, eg_err *err) {
  FILE *f = fopen(b->state_path, "r");
  if (!f)
    return errno == ENOENT ? EG_OK
                           : eg_err_set(err, EG_EIO, "%s: %s", b->state_path, strerror(errno));
  unsigned long long lines = 0, off = 0;
  int n = fscanf(f, "engram-bulk 1 %llu %llu", &lines, &off);
  fclose(f);
  if (n != 2)
    return eg_err_set(err, EG_EINVAL, "%s is not an engram bulk state file", b->state_path);
  int prev = '\n';
  if (off > 0) {
    if (fseeko(b->f, (off_t)off - 1, SEEK_SET) != 0)
      prev = EOF;
    else
      prev = fgetc(b->f);
  }
  if (prev != '\n')
    return eg_err_set(err, EG_EPRECOND,
                      "%s does not match %s (offset %llu is not the end of a line): remove it to "
                      "start over",
                      b->state_path, b->o->path, off);
  if (fseeko(b->f, (off_t)off, SEEK_SET) != 0)
    return eg_err_set(err, EG_EIO, "seek: %s", strerror(errno));
  b->base_lines = lines;
  b->offset = b->done_offset = off;
  b->st->skipped = lines;
  return EG_OK;
}

/* Lines from the current position to the end (a last line without '\n' counts). */
static uint64_t count_lines(FILE *f) {
  off_t at = ftello(f);
  char buf[1 << 16];
  uint64_t n = 0;
  size_t got;
  int last = '\n';
  while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
    for (size_t i = 0; i < got; i++) n += buf[i] == '\n';
    last = (unsigned char)buf[got - 1];
  }
  fseeko(f, at, SEEK_SET);
  return n + (last != '\n');
}

/* ---- one line -------------------------------------------------------------------------- */

/* LINE_GAVE_UP: the service stayed unavailable or overloaded through every retry; the
 * run stops there and the line is not counted as done, so a resumed run sends it again. */
typedef enum { LINE_BLANK, LINE_OK, LINE_DUPLICATE, LINE_FAILED, LINE_GAVE_UP } line_result;

static void add_stage(eg_bulk_stats *st, const char *name, int64_t us) {
  size_t i = 0;
  while (i < st->n_stages && strcmp(st->stages[i].name, name) != 0) i++;
  if (i == st->n_stages) {
    if (i == EG_BULK_MAX_STAGES) return;
    snprintf(st->stages[i].name, sizeof st->stages[i].name, "%s", name);
    st->stages[i].micros = 0;
    st->n_stages++;
  }
  st->stages[i].micros += us;
}

static void report_failure(bulk *b, uint64_t lineno, const char *what, const char *msg) {
  fprintf(stderr, "%sline %llu: %s: %s\n", b->o->progress ? "\r\033[K" : "",
          (unsigned long long)lineno, what, msg);
}

eg_code eg_ingest_parse_line(const char *text, eg_arena *a, const eg_ingest_kind **kind,
                             ProtobufCMessage **req, eg_err *err) {
  *kind = NULL;
  *req = NULL;
  const char *s = text;
  while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n') s++;
  if (!*s) return EG_OK;
  cJSON *j = NULL;
  eg_code rc = eg_pbjson_parse(s, &j, err); /* one request per line: nothing after it */
  if (!rc && !cJSON_IsObject(j)) rc = eg_err_set(err, EG_EINVAL, "not a JSON object");
  if (!rc) {
    *kind = cJSON_GetObjectItem(j, "messages") ? &eg_ingest_kinds[EG_INGEST_SESSION]
            : cJSON_GetObjectItem(j, "text")   ? &eg_ingest_kinds[EG_INGEST_DOCUMENT]
            : cJSON_GetObjectItem(j, "facts")  ? &eg_ingest_kinds[EG_INGEST_FACTS]
                                               : NULL;
    if (!*kind)
      rc = eg_err_set(err, EG_EINVAL,
                      "expected a session (\"messages\"), a document (\"text\") or \"facts\"");
    else
      rc = eg_pbjson_read((*kind)->desc, j, a, req, err);
  }
  cJSON_Delete(j);
  return rc;
}

/* Send one line; stats are added under b->mu by the caller from *resp. */
static line_result send_line(bulk *b, char *text, uint64_t lineno,
                             Engram__V1__IngestResponse **resp, uint64_t *retries) {
  eg_arena *a = eg_arena_new(0, 0);
  const eg_ingest_kind *kind = NULL;
  ProtobufCMessage *req = NULL;
  eg_err e;
  line_result r = LINE_FAILED;
  if (!a) {
    report_failure(b, lineno, "OUT_OF_MEMORY", "out of memory");
    return r;
  }
  if (eg_ingest_parse_line(text, a, &kind, &req, &e)) {
    report_failure(b, lineno, eg_code_name(e.code), e.msg);
    goto done;
  }
  if (!req) {
    r = LINE_BLANK;
    goto done;
  }
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = (char *)b->o->tenant;
  scope.user = (char *)b->o->user;
  scope.agent = (char *)b->o->agent;
  eg_scope_default(req, &scope);
  eg_ingest_set_mode(req, ENGRAM__V1__INGEST_MODE__INGEST_MODE_SYNC);
  eg_code rc = eg_ingest_send(b->o->client, req, resp, retries, &e);
  if (rc == EG_OK) {
    r = (*resp)->report && (*resp)->report->duplicate ? LINE_DUPLICATE : LINE_OK;
  } else {
    report_failure(b, lineno, eg_code_name(rc), e.msg);
    if (eg_ingest_retryable(rc)) r = LINE_GAVE_UP;
  }
done:
  eg_arena_free(a);
  return r;
}

/* ---- workers and progress -------------------------------------------------------------- */

static void account(bulk *b, line_result r, const Engram__V1__IngestResponse *resp,
                    uint64_t retries) {
  eg_bulk_stats *st = b->st;
  st->retries += retries;
  if (r == LINE_BLANK) return;
  st->lines++;
  if (r == LINE_FAILED) {
    st->failed++;
    return;
  }
  if (r == LINE_DUPLICATE)
    st->duplicates++;
  else
    st->ok++;
  const Engram__V1__IngestReport *rep = resp ? resp->report : NULL;
  if (!rep) return;
  st->chunks += rep->chunks;
  st->entities += rep->entities;
  st->facts += rep->facts;
  st->tokens += rep->tokens;
  for (size_t i = 0; i < rep->n_stages; i++)
    add_stage(st, rep->stages[i]->stage, rep->stages[i]->micros);
}

static bool interrupted(const bulk *b) { return b->o->interrupt && *b->o->interrupt; }

static void *worker(void *arg) {
  bulk *b = arg;
  pthread_mutex_lock(&b->mu);
  for (;;) {
    while (!b->eof && !interrupted(b) && b->next >= b->done + RING)
      pthread_cond_wait(&b->cv, &b->mu);
    if (b->eof || interrupted(b)) break;
    ssize_t n = getline(&b->line, &b->cap, b->f);
    if (n < 0) {
      b->eof = true;
      pthread_cond_broadcast(&b->cv);
      break;
    }
    uint64_t idx = b->next++;
    b->offset += (uint64_t)n;
    uint64_t end = b->offset;
    char *text = strndup(b->line, (size_t)n);
    pthread_mutex_unlock(&b->mu);

    Engram__V1__IngestResponse *resp = NULL;
    uint64_t retries = 0;
    line_result r =
        text ? send_line(b, text, b->base_lines + idx + 1, &resp, &retries) : LINE_FAILED;
    free(text);

    pthread_mutex_lock(&b->mu);
    if (r == LINE_GAVE_UP) {
      if (!b->gave_up || b->base_lines + idx + 1 < b->gave_up) b->gave_up = b->base_lines + idx + 1;
      b->st->failed++;
      b->eof = true; /* hand out nothing more; the prefix stops before this line */
      pthread_cond_broadcast(&b->cv);
      break;
    }
    account(b, r, resp, retries);
    if (resp) protobuf_c_message_free_unpacked(&resp->base, NULL);
    b->ring_done[idx % RING] = true;
    b->ring_end[idx % RING] = end;
    while (b->ring_done[b->done % RING] && b->done < b->next) {
      b->ring_done[b->done % RING] = false;
      b->done_offset = b->ring_end[b->done % RING];
      b->done++;
    }
    int64_t now = eg_time_mono_us();
    if (now - b->last_state >= STATE_EVERY_US) {
      save_state(b);
      b->last_state = now;
    }
    pthread_cond_broadcast(&b->cv);
  }
  b->running--;
  pthread_cond_broadcast(&b->cv);
  pthread_mutex_unlock(&b->mu);
  return NULL;
}

static void fmt_duration(double s, char *buf, size_t len) {
  long t = (long)(s + 0.5);
  if (t >= 3600)
    snprintf(buf, len, "%ldh%02ldm", t / 3600, t / 60 % 60);
  else
    snprintf(buf, len, "%ldm%02lds", t / 60, t % 60);
}

void eg_progress_draw(uint64_t done, uint64_t total, const char *what, double elapsed_s,
                      const char *extra) {
  if (!total) {
    fprintf(stderr, "\r\033[K%llu %s  %s", (unsigned long long)done, what, extra);
    fflush(stderr);
    return;
  }
  double frac = (double)done / (double)total;
  char bar[21], eta[32] = "?";
  int fill = (int)(frac * 20);
  for (int i = 0; i < 20; i++) bar[i] = i < fill ? '#' : '.';
  bar[20] = 0;
  if (done) fmt_duration(elapsed_s / (double)done * (double)(total - done), eta, sizeof eta);
  fprintf(stderr, "\r\033[K[%s] %llu/%llu %s %5.1f%%  %s  ETA %s", bar, (unsigned long long)done,
          (unsigned long long)total, what, 100 * frac, extra, eta);
  fflush(stderr);
}

/* One progress line: bar, lines, tokens/s, ETA (when the total is known). Under b->mu. */
static void draw(bulk *b) {
  const eg_bulk_stats *st = b->st;
  double el = (double)(eg_time_mono_us() - b->t0) / 1e6;
  char extra[96];
  snprintf(extra, sizeof extra, "%.0f tokens/s  %llu failed", el > 0 ? (double)st->tokens / el : 0,
           (unsigned long long)st->failed);
  eg_progress_draw(b->done, b->total, "lines", el, extra);
}

eg_code eg_bulk_run(const eg_bulk_opts *o, eg_bulk_stats *stats, eg_err *err) {
  static bulk zero;
  bulk *b = malloc(sizeof *b);
  if (!b) return eg_err_set(err, EG_ENOMEM, "out of memory");
  *b = zero;
  memset(stats, 0, sizeof *stats);
  b->o = o;
  b->st = stats;
  bool is_stdin = strcmp(o->path, "-") == 0;
  b->f = is_stdin ? stdin : fopen(o->path, "r");
  if (!b->f) {
    eg_err_set(err, EG_ENOTFOUND, "cannot open %s: %s", o->path, strerror(errno));
    free(b);
    return err->code;
  }
  if (!is_stdin)
    snprintf(b->state_path, sizeof b->state_path, "%s", o->state_path ? o->state_path : "");
  if (!is_stdin && !o->state_path)
    snprintf(b->state_path, sizeof b->state_path, "%s.progress", o->path);
  eg_code rc = EG_OK;
  if (o->resume && is_stdin) rc = eg_err_set(err, EG_EINVAL, "cannot resume reading from stdin");
  if (rc == EG_OK && o->resume) rc = load_state(b, err);
  struct stat sb;
  /* the total is for the progress line only: no extra pass over the file without one */
  if (rc == EG_OK && o->progress && !is_stdin && fstat(fileno(b->f), &sb) == 0 &&
      S_ISREG(sb.st_mode))
    b->total = count_lines(b->f);
  int nw = o->parallel > 0 ? o->parallel : 4;
  pthread_t *th = calloc((size_t)nw, sizeof *th);
  if (rc == EG_OK && !th) rc = eg_err_set(err, EG_ENOMEM, "out of memory");
  if (rc == EG_OK) {
    pthread_mutex_init(&b->mu, NULL);
    pthread_cond_init(&b->cv, NULL);
    b->t0 = b->last_state = eg_time_mono_us();
    pthread_mutex_lock(&b->mu);
    for (int i = 0; i < nw; i++)
      if (pthread_create(&th[i], NULL, worker, b) == 0) b->running++;
    while (b->running > 0) {
      if (o->progress) draw(b);
      if (interrupted(b)) pthread_cond_broadcast(&b->cv); /* wake the workers waiting for room */
      struct timespec ts;
      clock_gettime(CLOCK_REALTIME, &ts);
      ts.tv_nsec += BAR_EVERY_US * 1000L;
      if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
      pthread_cond_timedwait(&b->cv, &b->mu, &ts);
    }
    save_state(b);
    if (o->progress) {
      draw(b);
      fputc('\n', stderr);
    }
    pthread_mutex_unlock(&b->mu);
    for (int i = 0; i < nw; i++)
      if (th[i]) pthread_join(th[i], NULL);
    stats->seconds = (double)(eg_time_mono_us() - b->t0) / 1e6;
    stats->done_lines = b->base_lines + b->done;
    if (ferror(b->f))
      rc = eg_err_set(err, EG_EIO, "reading %s failed", o->path);
    else if (interrupted(b) && !b->eof)
      rc = eg_err_set(err, EG_ECANCELLED, "interrupted: the first %llu lines of %s are done%s",
                      (unsigned long long)stats->done_lines, o->path,
                      b->state_path[0] ? "; run again with --resume to go on after them" : "");
    else if (b->gave_up)
      rc = eg_err_set(err, EG_EUNAVAIL,
                      "stopped at line %llu: ingestd stayed unavailable; run again with --resume",
                      (unsigned long long)b->gave_up);
    else if (b->state_err.code)
      *err = b->state_err, rc = err->code;
    pthread_cond_destroy(&b->cv);
    pthread_mutex_destroy(&b->mu);
  }
  free(th);
  free(b->line);
  if (!is_stdin) fclose(b->f);
  free(b);
  return rc;
}
