/*
 * engram_bench.c — engram-bench: retrieval quality on LongMemEval-S and LoCoMo, QA accuracy
 * with a configured LLM, and ingest/recall performance, Engram beside a SQLite FTS5 peer on
 * the same questions.
 *
 *   engram-bench lme    [options]   session/turn recall and NDCG per question type
 *   engram-bench locomo [options]   evidence recall@5/10/25 per category
 *   engram-bench qa     [options]   answer + judge accuracy (needs --llm-url)
 *   engram-bench perf   [questions] [embedder] [clients] [calls] [data]
 *   engram-bench load   [seconds] [clients] [embedder] [groups] [ingest_pct] [data]
 *   engram-bench prefs  [options]   what the user values, scored (bench/prefs.h)
 *
 * --split tune|confirm asks only one fixed half of the questions (bench/split.h,
 * docs/tuning.md); every line of <out>.jsonl names its question's half either way.
 *
 * Unless --ingestd/--recalld name running daemons, the four daemons are started on loopback
 * in a temp dir with the offline default embedder (or --embedder). Every group is ingested
 * before the first question is asked, so a run's figures do not hang on --jobs or timing.
 * Every question's scores
 * are appended to <out>.jsonl as they come, so --resume carries on after an interruption;
 * the totals go to <out>.json and <out>.md and the table to stdout.
 */
#include <cjson/cJSON.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "bench/engine.h"
#include "bench/fts5.h"
#include "bench/lme.h"
#include "bench/load.h"
#include "bench/perf.h"
#include "bench/prefs.h"
#include "bench/qa.h"
#include "bench/split.h"
#include "bench/textfacts.h"
#include "cli/bulk.h"
#include "common/cfg.h"
#include "common/log.h"
#include "common/time.h"
#include "tests/harness.h"
#include "tests/testlib.h"

enum { SYS_ENGRAM, SYS_FTS5, SYS_QA, N_SYS };
static const char *const sys_names[N_SYS] = {"engram", "fts5", "qa"};
static const char *const qa_names[] = {"accuracy"};

typedef struct opts {
  const char *cmd, *data, *types, *out, *baseline, *embedder, *ingestd, *recalld;
  const char *llm_url, *llm_model, *prompts, *weights, *expansion;
  long limit;
  int jobs;
  uint32_t k;
  bool resume;
  eg_bsplit split; /* the half asked; EG_BSPLIT_ALL = every question */
} opts;

typedef struct run {
  const opts *o;
  eg_bdata d;
  bool on[N_SYS];
  eg_bengine eng;
  eg_bqa *qa;
  eg_btable t[N_SYS];
  bool *done[N_SYS]; /* per question, flattened over groups */
  size_t *first_q;   /* index of each group's first question in done[] */
  size_t n_questions;
  eg_bsplit_count split; /* what the split kept of the questions loaded */
  FILE *log;             /* <out>.jsonl */
  pthread_mutex_t mu;
  pthread_barrier_t asked; /* every group is ingested before the first question is asked */
  atomic_size_t next, next_ask;
  bool *ingested; /* per group */
  size_t groups_done, groups_ingested;
  uint64_t refused, tokens, failures;
  double ingest_s;
  int64_t *recall_us; /* client-side Recall latencies */
  size_t n_recall;
  int64_t t0;
  char commit[64]; /* of the source, read at the start */
} run;

static void usage(void) {
  fprintf(
      stderr,
      "usage: engram-bench lme|locomo|qa [--data PATH] [--limit N] [--types t1,t2] [--jobs N] "
      "[--k N]\n"
      "                    [--baseline fts5] [--out PREFIX] [--resume] [--embedder "
      "glove|use-lite]\n"
      "                    [--ingestd ADDR --recalld ADDR (token: ENGRAM_TOKEN)] [--set "
      "lme|locomo (qa)]\n"
      "                    [--weights content,latent,bm25,temporal,recency,graph[,sentence]]\n"
      "                    [--expansion offline|none|llm] [--split tune|confirm]\n"
      "                    [--llm-url URL --llm-model M (qa; key in ENGRAM_BENCH_LLM_API_KEY)] "
      "[--prompts DIR]\n"
      "       engram-bench perf [questions] [embedder] [clients] [calls] [data]\n"
      "       engram-bench load [seconds] [clients] [embedder] [groups] [ingest_pct] [data]\n"
      "       engram-bench textfacts [--data FILE] [--k N] [--verbose] [--late] [--ingestd ADDR "
      "--recalld ADDR]\n"
      "       engram-bench prefs [--data FILE] [--enricher rules|llm|both] [--scenarios a,b] "
      "[--k N] [--json FILE]\n");
}

enum { MAX_JOBS = 64 }; /* worker threads of one run */

static int parse(int argc, char **argv, opts *o, const char **set) {
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define STR(flag, field)       \
  if (!strcmp(a, flag) && v) { \
    o->field = v;              \
    i++;                       \
    continue;                  \
  }
    STR("--data", data);
    STR("--types", types);
    STR("--out", out);
    STR("--baseline", baseline);
    STR("--embedder", embedder);
    STR("--ingestd", ingestd);
    STR("--recalld", recalld);
    STR("--llm-url", llm_url);
    STR("--llm-model", llm_model);
    STR("--prompts", prompts);
    STR("--weights", weights);
    STR("--expansion", expansion);
#undef STR
    if (!strcmp(a, "--set") && v) {
      *set = v;
      i++;
      continue;
    }
    if (!strcmp(a, "--split") && v) {
      if (!eg_bsplit_parse(v, &o->split)) {
        fprintf(stderr, "engram-bench: --split is tune or confirm, not %s\n", v);
        return -1;
      }
      i++;
      continue;
    }
    int64_t n;
#define COUNT(flag, field, lo, hi)                                                               \
  if (!strcmp(a, flag) && v) {                                                                   \
    if (!eg_cfg_int_in(v, lo, hi, &n)) {                                                         \
      fprintf(stderr, "engram-bench: %s wants a whole number in %d..%d, not %s\n", flag, lo, hi, \
              v);                                                                                \
      return -1;                                                                                 \
    }                                                                                            \
    o->field = n;                                                                                \
    i++;                                                                                         \
    continue;                                                                                    \
  }
    COUNT("--limit", limit, 1, 1000000);
    COUNT("--jobs", jobs, 1, MAX_JOBS);
    COUNT("--k", k, 1, 1000);
#undef COUNT
    if (!strcmp(a, "--resume")) {
      o->resume = true;
      continue;
    }
    fprintf(stderr, "engram-bench: unknown or incomplete option %s\n", a);
    return -1;
  }
  if (o->baseline && strcmp(o->baseline, "fts5") != 0) {
    fprintf(stderr, "engram-bench: the only baseline is fts5\n");
    return -1;
  }
  if (o->jobs < 1) o->jobs = 1;
  if (!o->k) o->k = 50;
  return 0;
}

/* ---- results log ------------------------------------------------------------------------ */

static size_t question_index(const run *r, const char *id) {
  for (size_t g = 0; g < r->d.n; g++)
    for (size_t k = 0; k < r->d.g[g].nq; k++)
      if (!strcmp(r->d.g[g].q[k].id, id)) return r->first_q[g] + k;
  return SIZE_MAX;
}

static const eg_bquestion *question_at(const run *r, size_t qi) {
  size_t g = 0;
  while (g + 1 < r->d.n && r->first_q[g + 1] <= qi) g++;
  return &r->d.g[g].q[qi - r->first_q[g]];
}

/* Record one result: the table, the done flag and a line of <out>.jsonl. Under r->mu. */
static void record(run *r, int sys, size_t qi, const eg_bscore *s, const eg_brank *rank,
                   const char *response, bool write) {
  const eg_bquestion *q = question_at(r, qi);
  r->done[sys][qi] = true;
  eg_btable_add(&r->t[sys], q->category, s);
  if (!write) return;
  cJSON *o = cJSON_CreateObject(), *sc = cJSON_AddObjectToObject(o, "scores");
  cJSON_AddStringToObject(o, "id", q->id);
  cJSON_AddStringToObject(o, "system", sys_names[sys]);
  cJSON_AddStringToObject(o, "category", q->category);
  cJSON_AddStringToObject(o, "split", eg_bsplit_name(q->split));
  for (size_t m = 0; m < r->t[sys].n_names; m++)
    if (s->has[m]) cJSON_AddNumberToObject(sc, r->t[sys].names[m], s->v[m]);
  if (response) cJSON_AddStringToObject(o, "response", response);
  if (rank) { /* the first units ranked, "session#turn+len", for reading a miss */
    cJSON *a = cJSON_AddArrayToObject(o, "ranked");
    for (size_t i = 0; i < rank->n && i < 25; i++) {
      char u[160];
      snprintf(u, sizeof u, "%s#%d+%d", rank->u[i].session, (int)rank->u[i].turn,
               (int)rank->u[i].len);
      cJSON_AddItemToArray(a, cJSON_CreateString(u));
    }
  }
  char *line = cJSON_PrintUnformatted(o);
  fprintf(r->log, "%s\n", line);
  fflush(r->log);
  free(line);
  cJSON_Delete(o);
}

/* Read back <out>.jsonl: every result there counts as done. */
static long replay(run *r, const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  long n = 0;
  char *line = NULL;
  size_t cap = 0;
  while (getline(&line, &cap, f) > 0) {
    cJSON *j = cJSON_Parse(line);
    const cJSON *id = cJSON_GetObjectItem(j, "id"), *sy = cJSON_GetObjectItem(j, "system");
    const cJSON *sc = cJSON_GetObjectItem(j, "scores");
    int sys = 0;
    while (cJSON_IsString(sy) && sys < N_SYS && strcmp(sys_names[sys], sy->valuestring) != 0) sys++;
    size_t qi = cJSON_IsString(id) && sys < N_SYS ? question_index(r, id->valuestring) : SIZE_MAX;
    if (qi != SIZE_MAX && r->on[sys] && !r->done[sys][qi]) {
      eg_bscore s = {0};
      for (size_t m = 0; m < r->t[sys].n_names; m++) {
        const cJSON *v = cJSON_GetObjectItem(sc, r->t[sys].names[m]);
        if (cJSON_IsNumber(v)) s.v[m] = v->valuedouble, s.has[m] = true;
      }
      record(r, sys, qi, &s, NULL, NULL, false);
      n++;
    }
    cJSON_Delete(j);
  }
  free(line);
  fclose(f);
  return n;
}

/* ---- one group --------------------------------------------------------------------------- */

static bool wanted(const run *r, int sys, const eg_bquestion *q, size_t qi) {
  return r->on[sys] && !r->done[sys][qi] && (sys == SYS_QA || !q->excluded);
}

static void fail(run *r, const char *what, const eg_err *e) {
  pthread_mutex_lock(&r->mu);
  if (r->failures++ < 5)
    fprintf(stderr, "\r\033[K%s: %s: %s\n", what, eg_code_name(e->code), e->msg);
  pthread_mutex_unlock(&r->mu);
}

/* A group's conversations into the daemons, when one of its questions is to be asked. */
static void engram_ingest(run *r, size_t gi) {
  const eg_bgroup *g = &r->d.g[gi];
  bool need = false;
  for (size_t k = 0; k < g->nq; k++)
    need |= wanted(r, SYS_ENGRAM, &g->q[k], r->first_q[gi] + k) ||
            wanted(r, SYS_QA, &g->q[k], r->first_q[gi] + k);
  if (!need) return;
  uint64_t refused = 0, tokens = 0;
  eg_err e;
  int64_t t0 = eg_time_mono_us();
  if (eg_bengine_ingest(&r->eng, g, &refused, &tokens, &e)) {
    fail(r, g->user, &e);
    return;
  }
  pthread_mutex_lock(&r->mu);
  r->refused += refused, r->tokens += tokens;
  r->ingest_s += (double)(eg_time_mono_us() - t0) / 1e6;
  r->ingested[gi] = true;
  pthread_mutex_unlock(&r->mu);
}

/* A group's questions, once every group is in. */
static void engram_group(run *r, size_t gi) {
  const eg_bgroup *g = &r->d.g[gi];
  eg_err e;
  if (!r->ingested[gi]) return;
  for (size_t k = 0; k < g->nq; k++) {
    const eg_bquestion *q = &g->q[k];
    size_t qi = r->first_q[gi] + k;
    bool ret = wanted(r, SYS_ENGRAM, q, qi), qa = wanted(r, SYS_QA, q, qi);
    if (!ret && !qa) continue;
    eg_brank rank = {0};
    char *context = NULL;
    int64_t t1 = eg_time_mono_us();
    if (eg_bengine_recall(&r->eng, g, q, &rank, qa ? &context : NULL, &e)) {
      fail(r, q->id, &e);
      eg_brank_free(&rank);
      continue;
    }
    int64_t us = eg_time_mono_us() - t1;
    eg_bscore s;
    eg_bscore_question(r->d.set, q, &rank, &s);
    eg_bscore as = {0};
    char *response = NULL;
    bool ok_qa = false;
    if (qa) {
      bool correct = false;
      if (eg_bqa_run(r->qa, q, context, &correct, &response, &e))
        fail(r, q->id, &e);
      else
        ok_qa = true, as.v[0] = correct ? 100.0 : 0.0, as.has[0] = true;
    }
    pthread_mutex_lock(&r->mu);
    r->recall_us[r->n_recall++] = us;
    if (ret) record(r, SYS_ENGRAM, qi, &s, &rank, NULL, true);
    if (ok_qa) record(r, SYS_QA, qi, &as, NULL, response, true);
    pthread_mutex_unlock(&r->mu);
    free(response);
    free(context);
    eg_brank_free(&rank);
  }
}

static void fts5_group(run *r, size_t gi) {
  const eg_bgroup *g = &r->d.g[gi];
  eg_fts5 *f = NULL;
  for (size_t k = 0; k < g->nq; k++) {
    size_t qi = r->first_q[gi] + k;
    if (!wanted(r, SYS_FTS5, &g->q[k], qi)) continue;
    if (!f && !(f = eg_fts5_open(g))) return;
    eg_brank rank = {0};
    if (eg_fts5_rank(f, g->q[k].query, 1000, &rank) == 0) {
      eg_bscore s;
      eg_bscore_question(r->d.set, &g->q[k], &rank, &s);
      pthread_mutex_lock(&r->mu);
      record(r, SYS_FTS5, qi, &s, &rank, NULL, true);
      pthread_mutex_unlock(&r->mu);
    }
    eg_brank_free(&rank);
  }
  eg_fts5_close(f);
}

static void progress(run *r) {
  if (!isatty(2)) return;
  char extra[160];
  int n = snprintf(extra, sizeof extra, "%.0f s", (double)(eg_time_mono_us() - r->t0) / 1e6);
  for (int s = 0; s < N_SYS; s++)
    if (r->on[s] && n < (int)sizeof extra)
      n += snprintf(extra + n, sizeof extra - (size_t)n, "  %s %s %.3f", sys_names[s],
                    r->t[s].names[s == SYS_QA ? 0 : 1],
                    eg_btable_mean(&r->t[s], 0, s == SYS_QA ? 0 : 1));
  eg_progress_draw(r->groups_done, r->d.n, "groups", (double)(eg_time_mono_us() - r->t0) / 1e6,
                   extra);
}

/* Two phases: every group is ingested, then every question asked. A question is so asked of
 * the same tenant in every run — all the groups' chunks, whatever the jobs' timing (the
 * tenant's BM25 statistics, the default, count every user's chunks: asked while other groups
 * were still arriving, a question's ranking hung on which had). */
static void *worker(void *arg) {
  run *r = arg;
  bool engram = r->on[SYS_ENGRAM] || r->on[SYS_QA];
  for (size_t gi; engram && (gi = atomic_fetch_add(&r->next, 1)) < r->d.n;) {
    engram_ingest(r, gi);
    pthread_mutex_lock(&r->mu);
    if (isatty(2))
      eg_progress_draw(++r->groups_ingested, r->d.n, "groups ingested",
                       (double)(eg_time_mono_us() - r->t0) / 1e6, "");
    pthread_mutex_unlock(&r->mu);
  }
  pthread_barrier_wait(&r->asked);
  for (size_t gi; (gi = atomic_fetch_add(&r->next_ask, 1)) < r->d.n;) {
    if (engram) engram_group(r, gi);
    if (r->on[SYS_FTS5]) fts5_group(r, gi);
    pthread_mutex_lock(&r->mu);
    r->groups_done++;
    progress(r);
    pthread_mutex_unlock(&r->mu);
  }
  return NULL;
}

/* ---- report ------------------------------------------------------------------------------ */

static void machine(char *buf, size_t len) {
  struct utsname u;
  long mem_kb = 0;
  FILE *f = fopen("/proc/meminfo", "r");
  if (f) {
    if (fscanf(f, "MemTotal: %ld kB", &mem_kb) != 1) mem_kb = 0;
    fclose(f);
  }
  uname(&u);
  snprintf(buf, len, "%s %s %s, %ld cores, %.0f GiB", u.sysname, u.release, u.machine,
           sysconf(_SC_NPROCESSORS_ONLN), (double)mem_kb / 1048576.0);
}

/* Which half the tables cover: "split: tune (141 of 282 scored questions)"; nothing when
 * every question was asked. */
static void split_line(const run *r, FILE *f) {
  const eg_bsplit_count *c = &r->split;
  if (r->o->split == EG_BSPLIT_ALL) return;
  fprintf(f, "split: %s (%zu of %zu scored questions", eg_bsplit_name(r->o->split), c->kept_scored,
          c->total_scored);
  if (r->on[SYS_QA]) fprintf(f, "; %zu of %zu judged", c->kept, c->total);
  fprintf(f, ")\n\n");
}

/* The source's commit, "-dirty" when it has uncommitted changes. */
static void commit_of(char *buf, size_t len) {
  snprintf(buf, len, "unknown");
  FILE *p = popen("git -C " EG_SOURCE_DIR " describe --always --dirty --abbrev=7 2>/dev/null", "r");
  if (!p) return;
  if (fgets(buf, (int)len, p)) buf[strcspn(buf, "\n")] = 0;
  pclose(p);
}

static int report(run *r, int argc, char **argv) {
  char cmd[2048] = "", date[40], host[256], path[1100];
  const char *commit = r->commit;
  for (int i = 0; i < argc; i++) {
    size_t l = strlen(cmd);
    snprintf(cmd + l, sizeof cmd - l, "%s%s", i ? " " : "", argv[i]);
  }
  eg_time_format(eg_time_now_us(), date, sizeof date);
  machine(host, sizeof host);
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "set", r->d.set == EG_BSET_LME ? "longmemeval-s" : "locomo");
  cJSON_AddStringToObject(o, "command", cmd);
  cJSON_AddStringToObject(o, "date", date);
  cJSON_AddStringToObject(o, "commit", commit);
  cJSON_AddStringToObject(o, "machine", host);
  cJSON_AddStringToObject(o, "data", r->o->data);
  cJSON_AddNumberToObject(o, "k", r->o->k);
  cJSON_AddNumberToObject(o, "groups", (double)r->d.n);
  cJSON *split = cJSON_AddObjectToObject(o, "split");
  cJSON_AddStringToObject(split, "half", eg_bsplit_name(r->o->split));
  cJSON_AddNumberToObject(split, "scored", (double)r->split.kept_scored);
  cJSON_AddNumberToObject(split, "of_scored", (double)r->split.total_scored);
  cJSON_AddNumberToObject(split, "questions", (double)r->split.kept);
  cJSON_AddNumberToObject(split, "of", (double)r->split.total);
  cJSON_AddNumberToObject(o, "failures", (double)r->failures);
  cJSON_AddNumberToObject(o, "sessions_refused", (double)r->refused);
  if (r->ingest_s > 0)
    cJSON_AddNumberToObject(o, "ingest_tokens_per_min_per_job",
                            (double)r->tokens / r->ingest_s * 60);
  if (r->n_recall) {
    eg_sort_i64(r->recall_us, r->n_recall);
    cJSON_AddNumberToObject(o, "recall_p50_ms", (double)r->recall_us[r->n_recall / 2] / 1000.0);
    cJSON_AddNumberToObject(o, "recall_p99_ms",
                            (double)r->recall_us[r->n_recall * 99 / 100] / 1000.0);
  }
  cJSON *sy = cJSON_AddObjectToObject(o, "systems");
  const eg_btable *tabs[N_SYS];
  const char *names[N_SYS];
  size_t nt = 0;
  for (int s = 0; s < N_SYS; s++) {
    if (!r->on[s]) continue;
    char *j = eg_btable_json(&r->t[s]);
    cJSON_AddItemToObject(sy, sys_names[s], cJSON_Parse(j));
    free(j);
    if (s != SYS_QA) tabs[nt] = &r->t[s], names[nt++] = sys_names[s];
  }
  char *text = cJSON_Print(o);
  snprintf(path, sizeof path, "%s.json", r->o->out);
  FILE *f = fopen(path, "w");
  int rc = f ? 0 : -1;
  if (f) rc = fputs(text, f) < 0 || fputc('\n', f) < 0, rc |= fclose(f) != 0;
  free(text);
  cJSON_Delete(o);
  snprintf(path, sizeof path, "%s.md", r->o->out);
  FILE *md = fopen(path, "w");
  FILE *outs[2] = {stdout, md};
  for (int i = 0; i < 2; i++) {
    if (!outs[i]) continue;
    fprintf(outs[i], "%s — %s, commit %s, %s\n`%s`\n\n",
            r->d.set == EG_BSET_LME ? "LongMemEval-S" : "LoCoMo", date, commit, host, cmd);
    split_line(r, outs[i]);
    if (nt) eg_btable_markdown(outs[i], tabs, names, nt);
    if (r->on[SYS_QA]) {
      const eg_btable *q = &r->t[SYS_QA];
      const char *qn = "qa";
      fprintf(outs[i], "\n");
      eg_btable_markdown(outs[i], &q, &qn, 1);
    }
  }
  if (md) rc |= fclose(md) != 0;
  if (rc) fprintf(stderr, "engram-bench: cannot write %s.json/.md\n", r->o->out);
  return rc;
}

/* ---- main -------------------------------------------------------------------------------- */

/* Whether one of <out>.jsonl, .json, .md is the data file. */
static bool same_file(const char *data, const char *out) {
  char d[PATH_MAX], o[PATH_MAX], p[PATH_MAX + 8];
  if (!realpath(data, d)) return false;
  static const char *const ext[] = {".jsonl", ".json", ".md"};
  for (int i = 0; i < 3; i++) {
    snprintf(p, sizeof p, "%s%s", out, ext[i]);
    if (realpath(p, o) && strcmp(d, o) == 0) return true;
  }
  return false;
}

static int start(run *r, eg_cluster *cl, const opts *o) {
  const char *ing = o->ingestd, *rec = o->recalld;
  if (!ing || !rec) {
    setenv("ENGRAM_EMBEDDER", o->embedder ? o->embedder : "use-lite", 1);
    eg_err e;
    if (eg_cluster_start(cl, NULL, &e)) {
      fprintf(stderr, "cluster: %s\n", e.msg);
      return -1;
    }
    ing = cl->d[EG_INGESTD].addr, rec = cl->d[EG_RECALLD].addr;
  }
  /* daemons started elsewhere may want a token: ENGRAM_TOKEN, as for the CLI (tenant "bench") */
  eg_rpc_client_opts co = {.timeout_us = 600 * 1000000LL,
                           .token = o->ingestd ? getenv("ENGRAM_TOKEN") : NULL};
  eg_err e;
  if (eg_rpc_client_open(ing, &co, &r->eng.ingestd, &e) ||
      eg_rpc_client_open(rec, &co, &r->eng.recalld, &e)) {
    fprintf(stderr, "connect: %s\n", e.msg);
    return -1;
  }
  r->eng.tenant = "bench";
  r->eng.k = o->k;
  float *w = r->eng.weights;
  int nw = o->weights ? sscanf(o->weights, "%f,%f,%f,%f,%f,%f,%f", &w[0], &w[1], &w[2], &w[3],
                               &w[4], &w[5], &w[6])
                      : 0;
  if (o->weights && nw != 6 && nw != 7) {
    fprintf(stderr,
            "engram-bench: --weights wants six or seven numbers: "
            "content,latent,bm25,temporal,recency,graph"
            "[,sentence]\n");
    return -1;
  }
  static const char *const modes[] = {"", "offline", "llm", "none"};
  for (int m = 1; o->expansion && m < 4; m++)
    if (!strcmp(o->expansion, modes[m])) r->eng.expansion = m;
  if (o->expansion && !r->eng.expansion) {
    fprintf(stderr, "engram-bench: --expansion is offline, llm or none\n");
    return -1;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) return usage(), 2;
  /* The daemons it starts do not record the Recalls' accesses: the questions must not
   * feed back into the retention of what they ask about (unless the environment says so). */
  setenv("ENGRAM_RECORD_ACCESS", "false", 0);
  if (!strcmp(argv[1], "perf")) return eg_bperf_main(argc - 1, argv + 1);
  if (!strcmp(argv[1], "load")) return eg_bload_main(argc - 1, argv + 1);
  if (!strcmp(argv[1], "textfacts")) return eg_btextfacts_main(argc - 1, argv + 1);
  if (!strcmp(argv[1], "prefs")) return eg_bprefs_main(argc - 1, argv + 1);
  opts o = {.cmd = argv[1]};
  const char *set = !strcmp(argv[1], "qa") ? "lme" : argv[1];
  if (parse(argc, argv, &o, &set) || (strcmp(o.cmd, "qa") && strcmp(o.cmd, set)) ||
      (strcmp(set, "lme") && strcmp(set, "locomo")))
    return usage(), 2;
  bool lme = !strcmp(set, "lme");
  if (!o.data) o.data = lme ? EG_LME_DEFAULT : EG_LOCOMO_DEFAULT;
  char out[1024];
  if (!o.out) {
    snprintf(out, sizeof out, "%s/bench/out/%s", EG_SOURCE_DIR, o.cmd);
    o.out = out;
    if (eg_test_system("mkdir -p '%s/bench/out'", EG_SOURCE_DIR)) return 1;
  }
  eg_log_init("engram-bench", EG_LOG_WARN);
  static run r;
  r.o = &o;
  commit_of(r.commit, sizeof r.commit);
  pthread_mutex_init(&r.mu, NULL);
  if (lme ? eg_bdata_load_lme(o.data, o.limit, o.types, &r.d)
          : eg_bdata_load_locomo(o.data, o.limit, &r.d))
    return 1;
  eg_bdata_split(&r.d, o.split, &r.split); /* after --limit: a half of the questions loaded */
  r.on[SYS_ENGRAM] = true;
  r.on[SYS_FTS5] = o.baseline != NULL;
  r.on[SYS_QA] = !strcmp(o.cmd, "qa");
  if (r.on[SYS_QA]) {
    const char *url = o.llm_url ? o.llm_url : getenv("ENGRAM_BENCH_LLM_URL");
    if (!url || !*url) {
      fprintf(
          stderr,
          "engram-bench qa: no LLM endpoint (--llm-url or ENGRAM_BENCH_LLM_URL); nothing to do\n");
      return 2;
    }
    eg_err e;
    char dir[1100];
    snprintf(dir, sizeof dir, "%s", o.prompts ? o.prompts : EG_SOURCE_DIR "/bench/prompts");
    if (eg_bqa_open(url, o.llm_model ? o.llm_model : "gpt-4o-mini",
                    getenv("ENGRAM_BENCH_LLM_API_KEY"), dir, &r.qa, &e)) {
      fprintf(stderr, "engram-bench qa: %s\n", e.msg);
      return 2;
    }
  }
  const char *const *names;
  size_t nn = eg_bmetric_names(r.d.set, &names);
  r.first_q = calloc(r.d.n + 1, sizeof *r.first_q);
  for (size_t g = 0; g < r.d.n; g++) r.first_q[g + 1] = r.first_q[g] + r.d.g[g].nq;
  r.n_questions = r.first_q[r.d.n];
  r.recall_us = calloc(r.n_questions + 1, sizeof *r.recall_us);
  for (int s = 0; s < N_SYS; s++) {
    if (s == SYS_QA)
      eg_btable_init(&r.t[s], qa_names, 1, true);
    else
      eg_btable_init(&r.t[s], names, nn, !lme);
    r.done[s] = calloc(r.n_questions + 1, sizeof(bool));
  }
  char log_path[1100];
  snprintf(log_path, sizeof log_path, "%s.jsonl", o.out);
  if (same_file(o.data, o.out)) {
    fprintf(stderr, "engram-bench: --out %s would overwrite the data %s\n", o.out, o.data);
    return 2;
  }
  long replayed = o.resume ? replay(&r, log_path) : 0;
  if (!(r.log = fopen(log_path, o.resume ? "a" : "w"))) {
    fprintf(stderr, "engram-bench: cannot write %s\n", log_path);
    return 1;
  }
  if (replayed) fprintf(stderr, "resuming: %ld results from %s\n", replayed, log_path);
  eg_cluster cl = {0};
  if (start(&r, &cl, &o)) return 1;
  r.t0 = eg_time_mono_us();
  r.ingested = calloc(r.d.n + 1, sizeof *r.ingested);
  pthread_barrier_init(&r.asked, NULL, (unsigned)o.jobs);
  pthread_t th[MAX_JOBS]; /* parse keeps --jobs within 1..MAX_JOBS */
  for (int i = 0; i < o.jobs; i++) pthread_create(&th[i], NULL, worker, &r);
  for (int i = 0; i < o.jobs; i++) pthread_join(th[i], NULL);
  if (isatty(2)) fprintf(stderr, "\n");
  fclose(r.log);
  int rc = report(&r, argc, argv);
  eg_rpc_client_close(r.eng.ingestd);
  eg_rpc_client_close(r.eng.recalld);
  if (cl.dir) eg_cluster_stop(&cl, r.failures > 0);
  eg_bqa_close(r.qa);
  for (int s = 0; s < N_SYS; s++) eg_btable_free(&r.t[s]), free(r.done[s]);
  free(r.first_q), free(r.recall_us), free(r.ingested);
  pthread_barrier_destroy(&r.asked);
  eg_bdata_free(&r.d);
  return rc || r.failures ? 1 : 0;
}
