/*
 * test_cli.c — the `engram` CLI against the four real daemons, where it used to report
 * success for something it had not done: a JSON request with more after it (a JSONL file
 * where one request is expected), a k above the server's limit, and a premise walk of an
 * edge that does not exist.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int main(void) {
  EG_RUN(test_start);
  EG_RUN(test_trailing_data_refused);
  EG_RUN(test_k_limit_is_the_servers);
  EG_RUN(test_walk_unknown_edge);
  int rc = eg_test_finish();
  eg_cluster_stop(&cl, rc != 0);
  return rc;
}
