/*
 * test_erasure.c — after Erase(user), that user's unique word, entity and vector are
 * found nowhere: not through any RPC, not in any file the daemons keep (RocksDB tables
 * and logs, write-ahead logs, daemon logs), not after a restart; the other user's
 * memory stays; the erasure is audited by counts and a digest, without content. The access
 * records of the user's facts (their retention) leave with them.
 *
 * The user's first session is made to reach RocksDB's table files (a restart flushes
 * the recovered log into a level-0 table) and the second stays in the write-ahead log,
 * and the scan is shown to find the word in both before the erasure.
 */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/buf.h"
#include "common/pbjson.h"
#include "common/rpc.h"
#include "proto/engram/v1/recall.pb-c.h"
#include "tests/graph_helpers.h"
#include "tests/harness.h"
#include "tests/ingest_helpers.h"
#include "tests/testlib.h"

#define WORD "vorquixel7731"
#define ENTITY "Zorblax"

static eg_cluster cl;
static eg_rpc_client *ing, *vec, *gra, *rec;

/* Occurrences of needle in every regular file under dir (recursively); *files counts
 * the files that hold it. */
static int scan(const char *dir, const char *needle, int *files) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    struct stat st;
    if (lstat(path, &st)) continue;
    if (S_ISDIR(st.st_mode)) {
      n += scan(path, needle, files);
      continue;
    }
    if (!S_ISREG(st.st_mode)) continue;
    FILE *f = fopen(path, "rb");
    if (!f) continue;
    char *buf = malloc((size_t)st.st_size + 1);
    size_t len = buf ? fread(buf, 1, (size_t)st.st_size, f) : 0;
    fclose(f);
    int here = 0;
    for (size_t i = 0; buf && i + strlen(needle) <= len; i++)
      here += memcmp(buf + i, needle, strlen(needle)) == 0;
    if (here) {
      (*files)++;
      fprintf(stderr, "  %s holds \"%s\" %d time(s)\n", path, needle, here);
    }
    n += here;
    free(buf);
  }
  closedir(d);
  return n;
}

static int found_on_disk(const char *needle) {
  int files = 0;
  return scan(cl.dir, needle, &files);
}

static void ingest(const char *user, const char *sid, const char *when, const char *text) {
  const char *const msgs[] = {"user", text, "assistant", "Noted."};
  eg_err e;
  EG_REQUIRE(ic_session(ing, "er", user, sid, T(when), msgs, 2, false, NULL, &e) == EG_OK);
}

static int search_hits(const char *user, const char *text, const char *needle) {
  Engram__V1__SearchResponse *r = NULL;
  eg_err e;
  if (ic_search(vec, "er", user, text, 20, &r, &e) != EG_OK) return -1;
  int n = 0;
  for (size_t i = 0; i < r->results[0]->n_hits; i++) {
    const Engram__V1__Chunk *c = r->results[0]->hits[i]->chunk;
    n += (c->content && strstr(c->content, needle)) || (c->latent && strstr(c->latent, needle));
  }
  protobuf_c_message_free_unpacked(&r->base, NULL);
  return n;
}

static bool mentions(const ProtobufCMessage *m, const char *needle) {
  eg_buf b = EG_BUF_INIT;
  bool yes = eg_pbjson_write(m, 0, &b) == EG_OK && eg_buf_append(&b, "", 1) == EG_OK &&
             strstr(b.data, needle);
  eg_buf_free(&b);
  return yes;
}

static void open_clients(void) {
  eg_err e;
  EG_CHECK(eg_rpc_client_open(cl.d[EG_INGESTD].addr, NULL, &ing, &e) == EG_OK);
  EG_CHECK(eg_rpc_client_open(cl.d[EG_VECTORD].addr, NULL, &vec, &e) == EG_OK);
  EG_CHECK(eg_rpc_client_open(cl.d[EG_GRAPHD].addr, NULL, &gra, &e) == EG_OK);
  EG_CHECK(eg_rpc_client_open(cl.d[EG_RECALLD].addr, NULL, &rec, &e) == EG_OK);
}

/* Closed before the daemons stop: a server's shutdown waits for its clients' connections. */
static void close_clients(void) {
  eg_rpc_client_close(ing);
  eg_rpc_client_close(vec);
  eg_rpc_client_close(gra);
  eg_rpc_client_close(rec);
  ing = vec = gra = rec = NULL;
}

static void restart_stores(void) {
  eg_err e;
  for (int d = EG_GRAPHD; d <= EG_VECTORD; d++) {
    EG_CHECK_INT(eg_harness_stop(&cl.d[d], SIGTERM), 0);
    EG_REQUIRE(eg_harness_restart(&cl.d[d], NULL, &e) == EG_OK);
  }
}

static void test_erase_leaves_no_trace(void) {
  eg_err e;
  EG_REQUIRE(eg_cluster_start(&cl, NULL, &e) == EG_OK);
  open_clients();

  ingest("u9", "s1", "2024-05-01T10:00:00Z",
         "My locker code is " WORD " and I work at " ENTITY " Industries.");
  ingest("u8", "s2", "2024-05-01T11:00:00Z",
         "I work at Acme Widgets and my locker code is plainvanilla42.");
  restart_stores(); /* the first sessions move from the log into table files */
  ingest("u9", "s3", "2024-05-02T10:00:00Z",
         "Remember " WORD " again: " ENTITY " moved me to the Oslo office.");
  EG_CHECK_STR(gc_value(gra, "er", "user:u9", "WORKS_AT", 0, 0), ENTITY " Industries");
  /* a question naming the word: vectord keeps the query text's vector in its cache */
  Engram__V1__Scope scope = ENGRAM__V1__SCOPE__INIT;
  scope.tenant = "er";
  scope.user = "u9";
  Engram__V1__RecallRequest rq = ENGRAM__V1__RECALL_REQUEST__INIT;
  rq.scope = &scope;
  rq.query = "What is my locker code " WORD "?";
  Engram__V1__RecallResponse *r = NULL;
  EG_REQUIRE(eg_recalld_recall(rec, &rq, &r, &e) == EG_OK);
  EG_CHECK(strstr(r->context, WORD " and I work") != NULL);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  EG_CHECK(search_hits("u9", WORD, WORD) >= 2);
  /* the scan sees the word where it lies: table files and the write-ahead log */
  int files = 0;
  EG_CHECK(scan(cl.d[EG_VECTORD].data, WORD, &files) >= 2);
  EG_CHECK(files >= 2);

  /* an access recorded on the user's fact (as recalld records what a Recall returned) */
  Engram__V1__StateResponse *st = NULL;
  EG_REQUIRE(gc_state_as(gra, "er", "u9", "user:u9", "WORKS_AT", 0, 0, &st, &e) == EG_OK);
  EG_REQUIRE(st->n_results == 1 && st->results[0]->n_values == 1);
  uint64_t works_at = st->results[0]->values[0]->id;
  protobuf_c_message_free_unpacked(&st->base, NULL);
  Engram__V1__RecordAccessRequest ra = ENGRAM__V1__RECORD_ACCESS_REQUEST__INIT;
  ra.scope = &scope;
  ra.ids = &works_at;
  ra.n_ids = 1;
  Engram__V1__RecordAccessResponse *acc = NULL;
  EG_REQUIRE(eg_graphd_record_access(gra, &ra, &acc, &e) == EG_OK);
  EG_CHECK_INT(acc->recorded, 1);
  protobuf_c_message_free_unpacked(&acc->base, NULL);

  Engram__V1__EraseRequest er = ENGRAM__V1__ERASE_REQUEST__INIT;
  er.scope = &scope;
  Engram__V1__EraseResponse *x = NULL;
  EG_REQUIRE(eg_ingestd_erase(ing, &er, &x, &e) == EG_OK);
  uint64_t chunks = 0, edges = 0, cached = 0, accesses = 0;
  for (size_t i = 0; i < x->n_counts; i++) {
    if (!strcmp(x->counts[i]->kind, "chunks")) chunks = x->counts[i]->count;
    if (!strcmp(x->counts[i]->kind, "edges")) edges = x->counts[i]->count;
    if (!strcmp(x->counts[i]->kind, "cached_queries")) cached = x->counts[i]->count;
    if (!strcmp(x->counts[i]->store, "graph") && !strcmp(x->counts[i]->kind, "access_records"))
      accesses = x->counts[i]->count;
  }
  EG_CHECK(accesses >= 1);
  EG_CHECK(chunks >= 2);
  EG_CHECK(edges >= 1);
  EG_CHECK(cached >= 1);
  protobuf_c_message_free_unpacked(&x->base, NULL);

  /* through the RPCs: words, vectors (the exact sentence as the query), entity, recall */
  EG_CHECK_INT(search_hits(NULL, WORD, WORD), 0);
  EG_CHECK_INT(
      search_hits(NULL, "My locker code is " WORD " and I work at " ENTITY " Industries.", ENTITY),
      0);
  EG_CHECK_STR(gc_value(gra, "er", "user:u9", "WORKS_AT", 0, 0), "");
  EG_REQUIRE(eg_graphd_record_access(gra, &ra, &acc, &e) == EG_OK);
  EG_CHECK_INT(acc->recorded, 0); /* gone with its edge */
  protobuf_c_message_free_unpacked(&acc->base, NULL);
  Engram__V1__ChangesRequest ch = ENGRAM__V1__CHANGES_REQUEST__INIT;
  Engram__V1__Scope tenant_only = ENGRAM__V1__SCOPE__INIT;
  tenant_only.tenant = "er";
  ch.scope = &tenant_only;
  Engram__V1__ChangesResponse *changes = NULL;
  EG_REQUIRE(eg_graphd_changes(gra, &ch, &changes, &e) == EG_OK);
  EG_CHECK(!mentions(&changes->base, ENTITY));
  EG_CHECK(mentions(&changes->base, "Acme Widgets")); /* the other user's memory stays */
  protobuf_c_message_free_unpacked(&changes->base, NULL);
  Engram__V1__ResolveEntitiesRequest re = ENGRAM__V1__RESOLVE_ENTITIES_REQUEST__INIT;
  Engram__V1__EntityMention m = ENGRAM__V1__ENTITY_MENTION__INIT;
  Engram__V1__EntityMention *ms[] = {&m};
  m.name = ENTITY " Industries";
  re.scope = &tenant_only;
  re.mentions = ms;
  re.n_mentions = 1;
  Engram__V1__ResolveEntitiesResponse *resolved = NULL;
  EG_REQUIRE(eg_graphd_resolve_entities(gra, &re, &resolved, &e) == EG_OK);
  EG_CHECK(!mentions(&resolved->base, ENTITY));
  protobuf_c_message_free_unpacked(&resolved->base, NULL);
  EG_CHECK_INT(search_hits(NULL, "plainvanilla42", "plainvanilla42"), 1);

  /* on disk, after the daemons stop: nowhere, logs included */
  close_clients();
  for (int d = EG_N_DAEMONS - 1; d >= 0; d--) EG_CHECK_INT(eg_harness_stop(&cl.d[d], SIGTERM), 0);
  EG_CHECK_INT(found_on_disk(WORD), 0);
  EG_CHECK_INT(found_on_disk(ENTITY), 0);
  EG_CHECK(found_on_disk("plainvanilla42") >= 1);

  /* the audit line: kind, a digest of the subject, counts; not the user id nor content */
  char *log = eg_test_slurp(cl.d[EG_INGESTD].log);
  const char *line = log ? strstr(log, "msg=\"erase\"") : NULL;
  EG_CHECK(line != NULL);
  if (line) {
    const char *end = strchr(line, '\n');
    size_t len = end ? (size_t)(end - line) : strlen(line);
    char buf[1024];
    snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf - 1 ? len : sizeof buf - 1), line);
    EG_CHECK(strstr(buf, "kind=user") && strstr(buf, "subject=sha256:") &&
             strstr(buf, "graph.edges=") && strstr(buf, "graph.access_records="));
    EG_CHECK(strstr(buf, "u9") == NULL);
  }
  free(log);

  /* and after a restart (the logs replayed), still nothing */
  for (int d = EG_GRAPHD; d <= EG_VECTORD; d++)
    EG_REQUIRE(eg_harness_restart(&cl.d[d], NULL, &e) == EG_OK);
  open_clients();
  EG_CHECK_INT(search_hits(NULL, WORD, WORD), 0);
  EG_CHECK_STR(gc_value(gra, "er", "user:u9", "WORKS_AT", 0, 0), "");
  EG_CHECK_INT(search_hits(NULL, "plainvanilla42", "plainvanilla42"), 1);
}

int main(void) {
  eg_rpc_global_init();
  EG_RUN(test_erase_leaves_no_trace);
  close_clients();
  eg_cluster_stop(&cl, eg_test_failed());
  eg_rpc_global_shutdown();
  return eg_test_finish();
}
