/*
 * test_jobs.c — durable async ingests: N async sessions are accepted while ingestd is
 * killed with SIGKILL at several moments (while it accepts, and while it drains its
 * queue) and restarted on the same data dir. Afterwards every accepted session is stored
 * exactly once — its chunk in vectord, its fact in graphd — and every accepted job's
 * final state is readable through GetJob, across the restarts.
 *
 * A client retries a request that got no answer (ingestd was down); a retried request
 * that had in fact been accepted runs twice and must still be stored once (content hash).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/rpc.h"
#include "common/time.h"
#include "tests/graph_helpers.h"
#include "tests/harness.h"
#include "tests/ingest_helpers.h"
#include "tests/testlib.h"

enum { N = 200 };

static eg_cluster cl;
static char ingestd_flags[2][80];
static const char *restart_flags[5];
static atomic_int accepted; /* sessions 0 .. accepted-1 have a job id */
static char job_ids[N][48];
static pthread_mutex_t restart_mu = PTHREAD_MUTEX_INITIALIZER;

static void word_of(int i, char *out, size_t n) {
  snprintf(out, n, "durableq%c%c%cz", 'a' + i / 100, 'a' + (i / 10) % 10, 'a' + i % 10);
}

static void text_of(int i, char *out, size_t n) {
  char word[32];
  word_of(i, word, sizeof word);
  snprintf(out, n,
           "Note %s: I live in C%sville, and this sentence is long enough to be a full chunk.",
           word, word + 1);
}

/* Sends the N sessions in order, async; each until it is accepted (a client's retry). */
static void *sender(void *arg) {
  (void)arg;
  for (int i = 0; i < N; i++) {
    char text[200], user[32], sid[32];
    text_of(i, text, sizeof text);
    snprintf(user, sizeof user, "u%d", i);
    snprintf(sid, sizeof sid, "s%d", i);
    const char *const msgs[] = {"user", text};
    for (int attempt = 0; attempt < 400; attempt++) {
      pthread_mutex_lock(&restart_mu); /* the address is stable, the process is not */
      eg_rpc_client_opts o = {.timeout_us = 2 * EG_US_PER_SEC, .max_attempts = 1};
      eg_rpc_client *c = NULL;
      eg_err e;
      eg_code rc = eg_rpc_client_open(cl.d[EG_INGESTD].addr, &o, &c, &e);
      pthread_mutex_unlock(&restart_mu);
      Engram__V1__IngestResponse *r = NULL;
      if (!rc)
        rc = ic_session(c, "dur", user, sid, T("2024-06-01T10:00:00Z") + i, msgs, 1, true, &r, &e);
      eg_rpc_client_close(c);
      if (!rc && r && r->job_id && *r->job_id) {
        snprintf(job_ids[i], sizeof job_ids[i], "%s", r->job_id);
        protobuf_c_message_free_unpacked(&r->base, NULL);
        break;
      }
      if (r) protobuf_c_message_free_unpacked(&r->base, NULL);
      usleep(20000);
    }
    atomic_store(&accepted, i + 1);
  }
  return NULL;
}

static void kill_and_restart(const char *when) {
  eg_err e;
  pthread_mutex_lock(&restart_mu);
  EG_CHECK_INT(eg_harness_stop(&cl.d[EG_INGESTD], SIGKILL), 128 + SIGKILL);
  fprintf(stderr, "  killed ingestd %s (%d accepted)\n", when, atomic_load(&accepted));
  EG_REQUIRE(eg_harness_restart(&cl.d[EG_INGESTD], restart_flags, &e) == EG_OK);
  pthread_mutex_unlock(&restart_mu);
}

/* Chunks of the tenant holding session i's word (each must hold its whole text). */
static int chunks_with(eg_rpc_client *vec, int i) {
  char word[32], text[200];
  word_of(i, word, sizeof word);
  text_of(i, text, sizeof text);
  Engram__V1__SearchResponse *r = NULL;
  eg_err e;
  if (ic_search(vec, "dur", NULL, word, 5, &r, &e) != EG_OK) return -1;
  int n = 0;
  for (size_t k = 0; k < r->results[0]->n_hits; k++) {
    const char *content = r->results[0]->hits[k]->chunk->content;
    if (content && strstr(content, word))
      n += strstr(content, text) ? 1 : 100; /* a broken chunk counts as many */
  }
  protobuf_c_message_free_unpacked(&r->base, NULL);
  return n;
}

static void wait_accepted(int n) {
  while (atomic_load(&accepted) < n) usleep(2000);
}

static void test_kill_ingestd(void) {
  eg_err e;
  EG_REQUIRE(eg_cluster_start(&cl, NULL, &e) == EG_OK);
  snprintf(ingestd_flags[0], sizeof ingestd_flags[0], "--graphd-addr=%s", cl.d[EG_GRAPHD].addr);
  snprintf(ingestd_flags[1], sizeof ingestd_flags[1], "--vectord-addr=%s", cl.d[EG_VECTORD].addr);
  restart_flags[0] = ingestd_flags[0];
  restart_flags[1] = ingestd_flags[1];
  pthread_t th;
  pthread_create(&th, NULL, sender, NULL);
  wait_accepted(40);
  kill_and_restart("while accepting");
  wait_accepted(120);
  kill_and_restart("while accepting");
  wait_accepted(N);
  kill_and_restart("while draining"); /* the last jobs were accepted a moment ago */
  pthread_join(th, NULL);
  usleep(100000);
  kill_and_restart("while draining");

  /* every job reaches its final state, readable after the restarts */
  eg_rpc_client *ing = NULL, *vec = NULL, *gra = NULL;
  EG_REQUIRE(eg_rpc_client_open(cl.d[EG_INGESTD].addr, NULL, &ing, &e) == EG_OK);
  int done = 0, failed = 0, missing = 0;
  int64_t until = eg_time_mono_us() + 20 * EG_US_PER_SEC;
  for (int i = 0; i < N; i++) {
    for (;;) {
      eg_code rc;
      Engram__V1__Job *j = ic_get_job(ing, "dur", NULL, job_ids[i], &rc);
      int state = j ? (int)j->state : -1;
      if (j && state == ENGRAM__V1__JOB_STATE__JOB_STATE_DONE) EG_CHECK(j->report != NULL);
      if (j) protobuf_c_message_free_unpacked(&j->base, NULL);
      if (state == ENGRAM__V1__JOB_STATE__JOB_STATE_DONE)
        done++;
      else if (state == ENGRAM__V1__JOB_STATE__JOB_STATE_FAILED)
        failed++;
      else if (rc == EG_ENOTFOUND)
        missing++;
      else if (eg_time_mono_us() < until) {
        usleep(20000);
        continue;
      }
      break;
    }
  }
  fprintf(stderr, "  jobs: %d done, %d failed, %d unknown after the restarts\n", done, failed,
          missing);
  EG_CHECK_INT(done, N);
  EG_CHECK_INT(missing, 0);

  /* each session stored exactly once, its fact committed */
  EG_REQUIRE(eg_rpc_client_open(cl.d[EG_VECTORD].addr, NULL, &vec, &e) == EG_OK);
  EG_REQUIRE(eg_rpc_client_open(cl.d[EG_GRAPHD].addr, NULL, &gra, &e) == EG_OK);
  int lost = 0, dup = 0, facts_missing = 0;
  for (int i = 0; i < N; i++) {
    int n = chunks_with(vec, i);
    lost += n == 0;
    dup += n > 1;
    char user[40], word[32], want[64];
    snprintf(user, sizeof user, "user:u%d", i);
    word_of(i, word, sizeof word);
    snprintf(want, sizeof want, "C%sville", word + 1);
    facts_missing += strcasecmp(gc_value(gra, "dur", user, "LIVES_IN", 0, 0), want) != 0;
  }
  EG_CHECK_INT(lost, 0);
  EG_CHECK_INT(dup, 0);
  EG_CHECK_INT(facts_missing, 0);

  /* a job accepted before a restart answers GetJob from disk, and the queue is empty */
  eg_code rc;
  Engram__V1__Job *j = ic_get_job(ing, "dur", NULL, job_ids[0], &rc);
  EG_CHECK(j && j->state == ENGRAM__V1__JOB_STATE__JOB_STATE_DONE && j->watermark && *j->watermark);
  if (j) protobuf_c_message_free_unpacked(&j->base, NULL);
  /* another tenant does not see it */
  Engram__V1__Job *jr = ic_get_job(ing, "other", NULL, job_ids[0], &rc);
  EG_CHECK_INT(rc, EG_ENOTFOUND);
  if (jr) protobuf_c_message_free_unpacked(&jr->base, NULL);
  eg_rpc_client_close(ing);
  eg_rpc_client_close(vec);
  eg_rpc_client_close(gra);
}

/* The queue bound counts persisted jobs. ingestd's peers are a socket that accepts
 * connections and never answers, so its one worker hangs on the first job: queue_max
 * more are accepted, the next is RESOURCE_EXHAUSTED — and after a restart, where the
 * persisted jobs wait again, still. */
static void test_queue_bound(void) {
  eg_err e;
  int ls = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t sl = sizeof sa;
  EG_REQUIRE(ls >= 0 && bind(ls, (struct sockaddr *)&sa, sizeof sa) == 0 && listen(ls, 64) == 0 &&
             getsockname(ls, (struct sockaddr *)&sa, &sl) == 0);
  char f0[80], f1[80];
  snprintf(f0, sizeof f0, "--graphd-addr=127.0.0.1:%d", ntohs(sa.sin_port));
  snprintf(f1, sizeof f1, "--vectord-addr=127.0.0.1:%d", ntohs(sa.sin_port));
  const char *flags[] = {
      f0, f1, "--async-workers=1", "--ingest-queue-max=4", "--peer-timeout-ms=60000", NULL};
  char *dir = eg_test_tempdir("jobs");
  eg_proc p;
  EG_REQUIRE(dir && eg_harness_start("ingestd", dir, flags, &p, &e) == EG_OK);
  eg_rpc_client *ing = NULL;
  eg_rpc_client_opts o = {.max_attempts = 1};
  EG_REQUIRE(eg_rpc_client_open(p.addr, &o, &ing, &e) == EG_OK);
  int ok = 0, full = 0;
  for (int i = 0; i < 8; i++) {
    char sid[16];
    snprintf(sid, sizeof sid, "q%d", i);
    const char *const msgs[] = {"user", "I live in Porto."};
    eg_code rc = ic_session(ing, "dur", "qu", sid, T("2024-06-01"), msgs, 1, true, NULL, &e);
    ok += rc == EG_OK;
    full += rc == EG_EFULL;
    if (i == 0) usleep(300000); /* the worker takes the first job */
  }
  EG_CHECK_INT(ok, 5); /* one running, four waiting */
  EG_CHECK_INT(full, 3);
  eg_rpc_client_close(ing);
  EG_CHECK_INT(eg_harness_stop(&p, SIGKILL), 128 + SIGKILL);
  EG_REQUIRE(eg_harness_restart(&p, flags, &e) == EG_OK);
  EG_REQUIRE(eg_rpc_client_open(p.addr, &o, &ing, &e) == EG_OK);
  const char *const msgs[] = {"user", "I live in Braga."};
  EG_CHECK_INT(ic_session(ing, "dur", "qu", "q9", T("2024-06-01"), msgs, 1, true, NULL, &e),
               EG_EFULL);
  eg_rpc_client_close(ing);
  eg_harness_stop(&p, SIGKILL); /* its worker hangs on the silent peer */
  if (eg_test_failed())
    eg_dump_file(p.log, 3000);
  else
    eg_test_rmtree(dir);
  free(dir);
  close(ls);
}

int main(void) {
  eg_rpc_global_init();
  EG_RUN(test_kill_ingestd);
  eg_cluster_stop(&cl, eg_test_failed());
  EG_RUN(test_queue_bound);
  eg_rpc_global_shutdown();
  return eg_test_finish();
}
