/*
 * test_cli.c — the `engram` CLI against the four real daemons, where it used to report
 * success for something it had not done: a JSON request with more after it (a JSONL file
 * where one request is expected), a k above the server's limit, and a premise walk of an
 * edge that does not exist; and where a new user tripped: relations and the warning on a
 * near-miss relation name, async jobs, erasure, which daemon answers health, changes by
 * transaction time, bulk's units, scope completion and Ctrl-C, where bad JSON or a bad
 * date is, and retention.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/harness.h"
#include "tests/testlib.h"

static eg_cluster cl;
static bool started;
static char base[1024], out[600], err_file[600];

/* Run `engram <args>` (base options first), stdout to out and stderr to err_file. */
static int cli(const char *stdin_text, const char *args) {
  char in[700];
  snprintf(in, sizeof in, "%s/cli.in", cl.dir);
  FILE *f = fopen(in, "w");
  if (!f) return -1;
  fputs(stdin_text ? stdin_text : "", f);
  fclose(f);
  return eg_test_system("%s %s < %s > %s 2> %s", base, args, in, out, err_file);
}

static bool out_has(const char *needle) {
  char *text = eg_test_slurp(out);
  bool found = strstr(text, needle) != NULL;
  free(text);
  return found;
}

static bool err_has(const char *needle) {
  char *text = eg_test_slurp(err_file);
  bool found = strstr(text, needle) != NULL;
  if (!found) fprintf(stderr, "stderr was: %s\n", text);
  free(text);
  return found;
}

/* Write text to <cluster dir>/name; the path, in a static buffer of its own per call site. */
static const char *write_file(char *path, size_t len, const char *name, const char *text) {
  snprintf(path, len, "%s/%s", cl.dir, name);
  FILE *f = fopen(path, "w");
  if (!f) return path;
  fputs(text, f);
  fclose(f);
  return path;
}

/* The text after needle in the last output, up to the next of stop (a static copy). */
static const char *out_after(const char *needle, const char *stop) {
  static char found[200];
  char *text = eg_test_slurp(out);
  const char *p = strstr(text, needle);
  found[0] = 0;
  if (p)
    snprintf(found, sizeof found, "%.*s", (int)strcspn(p + strlen(needle), stop),
             p + strlen(needle));
  free(text);
  return found;
}

static void test_start(void) {
  eg_err e;
  eg_code rc = eg_cluster_start(&cl, NULL, &e);
  if (rc) fprintf(stderr, "cluster start: %s\n", e.msg);
  EG_REQUIRE(rc == EG_OK);
  snprintf(base, sizeof base,
           "%s/engram --ingestd-addr %s --graphd-addr %s --vectord-addr %s --recalld-addr %s "
           "--tenant clitest "
           "--user u1",
           EG_BINARY_DIR, cl.d[EG_INGESTD].addr, cl.d[EG_GRAPHD].addr, cl.d[EG_VECTORD].addr,
           cl.d[EG_RECALLD].addr);
  snprintf(out, sizeof out, "%s/cli.out", cl.dir);
  snprintf(err_file, sizeof err_file, "%s/cli.err", cl.dir);
  started = true;
}

#define SESSION(id, text)                                                          \
  "{\"session_id\":\"" id                                                          \
  "\",\"session_time\":\"2024-05-02T09:00:00Z\",\"messages\":[{\"role\":\"user\"," \
  "\"content\":\"" text "\"}]}"

/* Three JSONL lines where one request is expected: refused (exit 2), nothing sent — the
 * first line sent on its own afterwards is new to ingestd. */
static void test_trailing_data_refused(void) {
  EG_REQUIRE(started);
  const char *jsonl = SESSION("trail-1", "I keep bees on the roof.") "\n" SESSION(
      "trail-2", "The hives are blue.") "\n" SESSION("trail-3", "Honey comes in August.") "\n";
  EG_CHECK_INT(cli(jsonl, "ingest session -"), 2);
  EG_CHECK(err_has("more after the JSON value"));
  EG_CHECK(err_has("ingest bulk"));
  char file[700], args[800];
  snprintf(file, sizeof file, "%s/three.jsonl", cl.dir);
  FILE *f = fopen(file, "w");
  EG_REQUIRE(f != NULL);
  fputs(jsonl, f);
  fclose(f);
  snprintf(args, sizeof args, "ingest session %s", file);
  EG_CHECK_INT(cli(NULL, args), 2);
  EG_CHECK(err_has("more after the JSON value"));
  /* the other readers of one request: call, graph commit */
  EG_CHECK_INT(cli("{\"edges\":[]} {\"edges\":[]}", "graph commit -"), 2);
  EG_CHECK(err_has("more after the JSON value"));
  EG_CHECK_INT(cli(NULL, "call Graph/State '{} x'"), 2);
  EG_CHECK(err_has("more after the JSON value"));
  /* whitespace after the value is fine; and trail-1 was not sent before */
  EG_CHECK_INT(cli(SESSION("trail-1", "I keep bees on the roof.") "\n\n  \n", "ingest session -"),
               0);
  EG_CHECK(!out_has("already ingested"));
  EG_CHECK(out_has("chunks,"));
}

/* The server's max_k is the limit (the CLI has none of its own): its INVALID_ARGUMENT is
 * printed and the exit status is 1. */
static void test_k_limit_is_the_servers(void) {
  EG_REQUIRE(started);
  EG_CHECK_INT(cli(NULL, "recall 'Where are the bees?' --k 100"), 0);
  EG_CHECK_INT(cli(NULL, "recall 'Where are the bees?' --k 101"), 1);
  EG_CHECK(err_has("INVALID_ARGUMENT: k, k1 and k2 must be at most 100"));
  EG_CHECK_INT(cli(NULL, "recall 'Where are the bees?' --k 200000"), 1);
  EG_CHECK(err_has("INVALID_ARGUMENT: k, k1 and k2 must be at most 100"));
  EG_CHECK_INT(cli(NULL, "vector search bees --k 1000"), 0);
  EG_CHECK_INT(cli(NULL, "vector search bees --k 200000"), 1);
  EG_CHECK(err_has("INVALID_ARGUMENT: k above the limit of 1000"));
  EG_CHECK_INT(cli(NULL, "recall bees --k 0"), 2);
}

/* An edge id graphd does not know is an error (exit 1, said on stderr), in text and JSON;
 * a known one prints its status and exits 0. */
static void test_walk_unknown_edge(void) {
  EG_REQUIRE(started);
  EG_REQUIRE(cli("{\"edges\":[{\"subject\":{\"name\":\"Walk Person\"},\"relation\":\"LIVES_IN\","
                 "\"object_entity\":{\"name\":\"Porto\"},\"valid_from\":\"2022-05-01\"}]}",
                 "graph commit -") == 0);
  char *text = eg_test_slurp(out);
  const char *hash = strchr(text, '#');
  unsigned long long id = hash ? strtoull(hash + 1, NULL, 10) : 0;
  free(text);
  EG_REQUIRE(id != 0);
  char args[200];
  snprintf(args, sizeof args, "graph walk %llu", id);
  EG_CHECK_INT(cli(NULL, args), 0);
  EG_CHECK(out_has("UNVERIFIED"));

  unsigned long long unknown = id + 1000000;
  char want[100];
  snprintf(args, sizeof args, "graph walk %llu", unknown);
  EG_CHECK_INT(cli(NULL, args), 1);
  EG_CHECK(!out_has("UNSPECIFIED"));
  snprintf(want, sizeof want, "%llu not found", unknown); /* graphd's NOT_FOUND, passed on */
  EG_CHECK(err_has(want));
  snprintf(args, sizeof args, "--json graph walk %llu", unknown);
  EG_CHECK_INT(cli(NULL, args), 1);
  snprintf(args, sizeof args, "graph walk %llu %llu", id, unknown);
  EG_CHECK_INT(cli(NULL, args), 1);
  EG_CHECK(!out_has("UNSPECIFIED"));
  EG_CHECK_INT(cli(NULL, "graph walk forty-two"), 2);
}

/* `engram relations`: the built-ins with their cardinality, then the tenant's declared
 * ones. A commit of an undeclared relation close to a known one is committed and warned
 * about on stderr (through graph commit and through ingest facts); a built-in, a declared
 * one or an undeclared name close to nothing is not. */
static void test_relations_and_warnings(void) {
  EG_REQUIRE(started);
  EG_CHECK_INT(cli(NULL, "relations"), 0);
  EG_CHECK(out_has("LIVES_IN             ONE          built-in"));
  EG_CHECK(out_has("CEO_OF               ONE_INVERSE  built-in"));
  EG_CHECK(out_has("HAS_PET              MANY         built-in"));
  EG_CHECK(!out_has("BOOK_CLUB"));
  EG_CHECK_INT(
      cli(NULL,
          "call Graph/DeclareRelation '{\"relation\":\"BOOK_CLUB\",\"cardinality\":\"ONE\","
          "\"description\":\"the club a person reads with\"}'"),
      0);
  EG_CHECK_INT(cli(NULL, "relations"), 0);
  EG_CHECK(out_has("BOOK_CLUB            ONE          declared  the club a person reads with"));
  EG_CHECK_INT(cli(NULL, "--json relations"), 0);
  EG_CHECK(out_has("\"builtin\": true"));
  EG_CHECK_INT(cli(NULL, "relations extra"), 2);

  EG_CHECK_INT(cli("{\"edges\":[{\"subject\":{\"name\":\"Rel "
                   "Person\"},\"relation\":\"LIVE_IN\",\"object_literal\":\"Oslo\"},"
                   "{\"subject\":{\"name\":\"Rel "
                   "Person\"},\"relation\":\"BOOK_CLUBS\",\"object_literal\":\"Tuesday\"},"
                   "{\"subject\":{\"name\":\"Rel "
                   "Person\"},\"relation\":\"LIVES_IN\",\"object_literal\":\"Oslo\"},"
                   "{\"subject\":{\"name\":\"Rel "
                   "Person\"},\"relation\":\"FAVOURITE_BIRD\",\"object_literal\":\"owl\"}]}",
                   "graph commit -"),
               0);
  EG_CHECK(out_has("committed 4 edges"));
  EG_CHECK(
      err_has("warning: edges[0]: relation LIVE_IN is not declared (committed as MANY); did you "
              "mean LIVES_IN (ONE)?"));
  EG_CHECK(
      err_has("warning: edges[1]: relation BOOK_CLUBS is not declared (committed as MANY); did you "
              "mean BOOK_CLUB (ONE)?"));
  EG_CHECK(!err_has("edges[2]") && !err_has("FAVOURITE_BIRD"));
  EG_CHECK_INT(cli(NULL, "graph state 'Rel Person' LIVE_IN"), 0); /* committed as written */
  EG_CHECK(out_has("LIVE_IN = Oslo"));
  EG_CHECK_INT(cli("{\"facts\":[{\"subject\":{\"name\":\"Rel "
                   "Person\"},\"relation\":\"WORKS_FOR\",\"object_literal\":\"Acme\"},"
                   "{\"subject\":{\"name\":\"Rel "
                   "Person\"},\"relation\":\"WORKING_AT\",\"object_literal\":\"Acme\"}]}",
                   "ingest facts -"),
               0);
  EG_CHECK(
      err_has("warning: edges[1]: relation WORKING_AT is not declared (committed as MANY); did you "
              "mean WORKS_AT (ONE)?"));
  EG_CHECK(!err_has("WORKS_FOR"));
}

/* An async ingest's job: `engram job ID` says its state, --wait follows it to DONE with the
 * report; `ingest --wait` does both; an unknown job is ingestd's NOT_FOUND (exit 1). */
static void test_jobs(void) {
  EG_REQUIRE(started);
  EG_CHECK_INT(cli(SESSION("job-1", "My bike is green."), "ingest session - --async"), 0);
  char job[120];
  snprintf(job, sizeof job, "%s", out_after("accepted: job ", ","));
  EG_REQUIRE(job[0] != 0);
  char args[300];
  snprintf(args, sizeof args, "job %s --wait", job);
  EG_CHECK_INT(cli(NULL, args), 0);
  char want[200];
  snprintf(want, sizeof want, "job %s DONE", job);
  EG_CHECK(out_has(want));
  EG_CHECK(out_has("1 chunks,"));
  snprintf(args, sizeof args, "--json job %s", job);
  EG_CHECK_INT(cli(NULL, args), 0);
  EG_CHECK(out_has("\"state\": \"JOB_STATE_DONE\""));
  EG_CHECK_INT(cli(SESSION("job-2", "My boat is red."), "ingest session - --wait"), 0);
  EG_CHECK(out_has("accepted: job "));
  EG_CHECK(out_has(" DONE"));
  EG_CHECK(out_has("1 chunks,"));
  EG_CHECK_INT(cli(NULL, "job job-0-0000000000000000"), 1);
  EG_CHECK(err_has("NOT_FOUND"));
  EG_CHECK_INT(cli(NULL, "job"), 2);
}

/* `engram erase`: a user's memory goes (their fact no longer answers), the rest stays;
 * without --user or --confirm-tenant nothing is sent (exit 2). */
static void test_erase(void) {
  EG_REQUIRE(started);
  const char *fact =
      "{\"edges\":[{\"subject\":{\"name\":\"Erase "
      "Person\"},\"relation\":\"DIET\",\"object_literal\":\"keto\"}]}";
  EG_REQUIRE(cli(fact, "--user eraseme graph commit -") == 0);
  EG_REQUIRE(cli(fact, "--user keepme graph commit -") == 0);
  EG_CHECK_INT(cli(NULL, "--user eraseme graph state 'Erase Person' DIET"), 0);
  EG_CHECK(out_has("DIET = keto"));
  EG_CHECK_INT(cli(NULL, "--user '' erase"), 2);
  EG_CHECK(err_has("--confirm-tenant"));
  EG_CHECK_INT(cli(NULL, "--user eraseme erase"), 0);
  EG_CHECK(out_has("erased user eraseme of tenant clitest"));
  EG_CHECK(out_has("graph    edges           1"));
  EG_CHECK_INT(cli(NULL, "--user eraseme graph state 'Erase Person' DIET"), 0);
  EG_CHECK(out_has("(no current value)"));
  EG_CHECK_INT(cli(NULL, "--user keepme graph state 'Erase Person' DIET"), 0);
  EG_CHECK(out_has("DIET = keto"));
}

/* engram retention: a fact's R, tier, salience and its source; the policy shown, a key
 * changed (the others kept), a bad key or value refused before any call, a policy that
 * evicts refused without --confirm-tenant. */
static void test_retention(void) {
  EG_REQUIRE(started);
  const char *fact =
      "{\"edges\":[{\"subject\":{\"name\":\"user:u1\"},\"relation\":\"ALLERGIC_TO\","
      "\"object_literal\":\"shellfish\"}]}";
  EG_REQUIRE(cli(fact, "graph commit -") == 0);
  char args[200];
  snprintf(args, sizeof args, "retention get --fact 999999 --fact %s", out_after("#", "\n"));
  EG_CHECK_INT(cli(NULL, args), 0);
  EG_CHECK(out_has("fact") && out_has("lexicon: health") && out_has("HOT") &&
           out_has("why: R 0.9"));
  EG_CHECK(out_has("(1 of 2 ids unknown or not visible to the scope)"));
  EG_CHECK(out_has("policy: half_life_days=30 sigma=0.25"));
  EG_CHECK_INT(cli(NULL, "retention get --fact 12x"), 2);
  EG_CHECK(err_has("--fact wants ids"));
  EG_CHECK_INT(cli(NULL, "retention policy --set sigma=lots"), 2);
  EG_CHECK(err_has("'lots' is not a number"));
  EG_CHECK_INT(cli(NULL, "retention policy --set colour=red"), 2);
  EG_CHECK(err_has("a key of the policy"));
  EG_CHECK_INT(cli(NULL, "retention policy --set half_life_days=12 --set sigma=0.5"), 0);
  EG_CHECK(out_has("half_life_days=12 sigma=0.5 hot_min=0.25"));
  EG_CHECK_INT(cli(NULL, "retention policy --set evict_cold_after_days=60"), 1);
  EG_CHECK(err_has("INVALID_ARGUMENT") && err_has("confirm_tenant"));
  EG_CHECK_INT(
      cli(NULL, "retention policy --set evict_cold_after_days=60 --confirm-tenant clitest"), 0);
  EG_CHECK(out_has("half_life_days=12 sigma=0.5") && out_has("evict_cold_after_days=60"));
}

/* --addr health names the daemon that answered; an address of the four that reaches
 * another daemon is an error. */
static void test_health_names_daemon(void) {
  EG_REQUIRE(started);
  for (int d = 0; d < EG_N_DAEMONS; d++) {
    char args[200], want[100];
    snprintf(args, sizeof args, "--addr %s health", cl.d[d].addr);
    EG_CHECK_INT(cli(NULL, args), 0);
    snprintf(want, sizeof want, "%-8s %s", eg_daemon_names[d], cl.d[d].addr);
    EG_CHECK(out_has(want));
  }
  char args[200];
  snprintf(args, sizeof args, "--graphd-addr %s health", cl.d[EG_VECTORD].addr);
  EG_CHECK_INT(cli(NULL, args), 1);
  EG_CHECK(out_has("this address serves vectord, not graphd"));
  EG_CHECK_INT(cli(NULL, "health"), 0);
}

/* graph changes is a window of transaction time: a fact valid since 2019 committed now is
 * in the changes since yesterday, not in those before 2020. */
static void test_changes_transaction_time(void) {
  EG_REQUIRE(started);
  EG_REQUIRE(
      cli("{\"edges\":[{\"subject\":{\"name\":\"Old Fact Person\"},\"relation\":\"NATIONALITY\","
          "\"object_literal\":\"Chilean\",\"valid_from\":\"2019-03-01\"}]}",
          "graph commit -") == 0);
  char args[200], day[16];
  time_t yesterday = time(NULL) - 86400;
  strftime(day, sizeof day, "%Y-%m-%d", gmtime(&yesterday));
  snprintf(args, sizeof args, "graph changes --from %s", day);
  EG_CHECK_INT(cli(NULL, args), 0);
  EG_CHECK(out_has("NATIONALITY = Chilean"));
  EG_CHECK_INT(cli(NULL, "graph changes --from 2019-01-01 --to 2020-01-01"), 0);
  EG_CHECK(!out_has("Chilean"));
  EG_CHECK(out_has("window of transaction time"));
  EG_CHECK_INT(cli(NULL, "graph changes 2019"), 2);
  EG_CHECK(err_has("a window of transaction time"));
}

/* A bulk line's scope is completed from --tenant/--user: a facts line naming only the
 * tenant is --user's (another user does not see it); the summary's unit is the progress
 * line's. */
static void test_bulk_scope_and_units(void) {
  EG_REQUIRE(started);
  char path[700], args[800];
  write_file(
      path, sizeof path, "scope.jsonl",
      "{\"scope\":{\"tenant\":\"clitest\"},\"facts\":[{\"subject\":{\"name\":\"Scope Person\"},"
      "\"relation\":\"DRIVES\",\"object_literal\":\"a tram\"}]}\n" SESSION("scope-s",
                                                                           "I drive a tram.") "\n");
  snprintf(args, sizeof args, "--user scoped ingest bulk %s --progress on", path);
  EG_CHECK_INT(cli(NULL, args), 0);
  EG_CHECK(out_has("2 lines (0 skipped by resume): 2 ingested"));
  EG_CHECK(out_has(" tokens/s)"));
  EG_CHECK(!out_has("tokens/min"));
  EG_CHECK(err_has(" tokens/s "));
  EG_CHECK_INT(cli(NULL, "--user scoped graph state 'Scope Person' DRIVES"), 0);
  EG_CHECK(out_has("DRIVES = a tram"));
  EG_CHECK_INT(cli(NULL, "--user someone-else graph state 'Scope Person' DRIVES"), 0);
  EG_CHECK(out_has("(no current value)"));
  snprintf(args, sizeof args, "--json --user scoped ingest bulk %s", path);
  EG_CHECK_INT(cli(NULL, args), 0);
  EG_CHECK(out_has("\"tokens_per_second\": "));
}

/* Ctrl-C in a bulk run: no further line is sent, the summary says what was done before
 * it, exit 130; the state file holds the done prefix and --resume goes on after it. */
static void test_bulk_interrupt(void) {
  EG_REQUIRE(started);
  char path[700], args[800], rcfile[700];
  snprintf(path, sizeof path, "%s/many.jsonl", cl.dir);
  FILE *f = fopen(path, "w");
  EG_REQUIRE(f != NULL);
  enum { LINES = 400 };
  for (int i = 0; i < LINES; i++)
    fprintf(f,
            "{\"session_id\":\"int-%d\",\"session_time\":\"2024-05-02T09:00:00Z\",\"messages\":[{"
            "\"role\":\"user\","
            "\"content\":\"On day %d I counted %d swallows over the harbour.\"}]}\n",
            i, i, i * 7);
  fclose(f);
  snprintf(rcfile, sizeof rcfile, "%s/bulk.rc", cl.dir);
  /* SIGINT once the first lines are done (the state file appears every half second) */
  EG_CHECK_INT(
      eg_test_system("%s ingest bulk %s --parallel 2 > %s 2> %s & pid=$!; "
                     "for i in $(seq 1 200); do [ -s %s.progress ] && break; sleep 0.05; done; "
                     "kill -INT $pid; wait $pid; echo $? > %s",
                     base, path, out, err_file, path, rcfile),
      0);
  char *rc = eg_test_slurp(rcfile);
  EG_CHECK_INT(atoi(rc), 130);
  free(rc);
  EG_CHECK(out_has("before the interrupt"));
  EG_CHECK(err_has("interrupted: the first "));
  char *err_text = eg_test_slurp(err_file);
  const char *p = strstr(err_text, "interrupted: the first ");
  unsigned long long done = p ? strtoull(p + strlen("interrupted: the first "), NULL, 10) : 0;
  free(err_text);
  EG_CHECK(done > 0 && done < LINES);
  char want[100];
  snprintf(want, sizeof want, "engram-bulk 1 %llu ", done);
  char state[800];
  snprintf(state, sizeof state, "%s.progress", path);
  char *st = eg_test_slurp(state);
  EG_CHECK(strncmp(st, want, strlen(want)) == 0);
  free(st);
  snprintf(args, sizeof args, "ingest bulk %s --resume --parallel 4", path);
  EG_CHECK_INT(cli(NULL, args), 0);
  snprintf(want, sizeof want, "%llu lines (%llu skipped by resume)",
           (unsigned long long)LINES - done, done);
  EG_CHECK(out_has(want));
}

/* Bad JSON is refused with where it is (file, byte, line, column); a bad date names its
 * field. */
static void test_where_input_is_wrong(void) {
  EG_REQUIRE(started);
  char path[700], args[800];
  write_file(path, sizeof path, "broken.json",
             "{\"edges\": [\n  {\"subject\": {\"name\": \"x\"}, \"relation\": \"DIET\"\n  ]}\n");
  snprintf(args, sizeof args, "graph commit %s", path);
  EG_CHECK_INT(cli(NULL, args), 2);
  char want[800];
  snprintf(want, sizeof want, "%s: not valid JSON (at byte 62: line 3, column 3)", path);
  EG_CHECK(err_has(want));
  EG_CHECK_INT(cli("{\"edges\": [}", "graph commit -"), 2);
  EG_CHECK(err_has("stdin: not valid JSON (at byte 11)"));
  EG_CHECK_INT(cli("{\"edges\":[{\"subject\":{\"name\":\"x\"},\"relation\":\"DIET\",\"object_"
                   "literal\":\"v\","
                   "\"valid_from\":\"2024-13-45\"}]}",
                   "graph commit -"),
               2);
  EG_CHECK(err_has("CommitRequest.edges[0].valid_from: "));
  EG_CHECK(err_has("'2024-13-45'"));
  EG_CHECK_INT(cli("{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"session_time\":\"next "
                   "tuesday\"}",
                   "ingest session -"),
               2);
  EG_CHECK(err_has("IngestSessionRequest.session_time: "));
}

int main(void) {
  EG_RUN(test_start);
  EG_RUN(test_trailing_data_refused);
  EG_RUN(test_k_limit_is_the_servers);
  EG_RUN(test_walk_unknown_edge);
  EG_RUN(test_relations_and_warnings);
  EG_RUN(test_jobs);
  EG_RUN(test_erase);
  EG_RUN(test_retention);
  EG_RUN(test_health_names_daemon);
  EG_RUN(test_changes_transaction_time);
  EG_RUN(test_bulk_scope_and_units);
  EG_RUN(test_bulk_interrupt);
  EG_RUN(test_where_input_is_wrong);
  int rc = eg_test_finish();
  eg_cluster_stop(&cl, rc != 0);
  return rc;
}
