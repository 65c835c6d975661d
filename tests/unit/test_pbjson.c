/*
 * test_pbjson.c — the JSON form of messages where it is easy to get wrong: 64-bit
 * integers beyond 2^53 (strings, never rounded), NaN and infinities, the shortest
 * decimal of a float, times outside ISO-8601's four-digit years, and one value with
 * nothing after it.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/pbjson.h"
#include "proto/engram/v1/graph.pb-c.h"
#include "proto/engram/v1/vector.pb-c.h"
#include "tests/testlib.h"

static char *write_json(const ProtobufCMessage *m, unsigned flags) {
  static char out[4096];
  eg_buf b = EG_BUF_INIT;
  eg_pbjson_write(m, flags, &b);
  eg_buf_append(&b, "", 1);
  snprintf(out, sizeof out, "%s", b.data);
  eg_buf_free(&b);
  return out;
}

static ProtobufCMessage *read_json(const ProtobufCMessageDescriptor *d, const char *text,
                                   eg_arena *a, eg_err *e) {
  cJSON *j = cJSON_Parse(text);
  ProtobufCMessage *m = NULL;
  if (eg_pbjson_read(d, j, a, &m, e)) m = NULL;
  cJSON_Delete(j);
  return m;
}

static void test_big_integers(void) {
  uint64_t ids[] = {1335889203104512273ull, 42, UINT64_MAX};
  Engram__V1__GetChunksRequest r = ENGRAM__V1__GET_CHUNKS_REQUEST__INIT;
  r.ids = ids;
  r.n_ids = 3;
  EG_CHECK_STR(write_json(&r.base, 0),
               "{\"ids\":[\"1335889203104512273\",42,\"18446744073709551615\"]}");
  eg_arena *a = eg_arena_new(0, 0);
  eg_err e;
  Engram__V1__GetChunksRequest *back =
      (void *)read_json(&engram__v1__get_chunks_request__descriptor, write_json(&r.base, 0), a, &e);
  EG_REQUIRE(back != NULL);
  EG_CHECK(back->n_ids == 3 && back->ids[0] == ids[0] && back->ids[2] == UINT64_MAX);
  /* a number that a double cannot hold exactly is refused, not rounded */
  EG_CHECK(read_json(&engram__v1__get_chunks_request__descriptor, "{\"ids\":[1335889203104512273]}",
                     a, &e) == NULL);
  EG_CHECK(strstr(e.msg, "string") != NULL);
  EG_CHECK(read_json(&engram__v1__get_chunks_request__descriptor, "{\"ids\":[\"-1\"]}", a, &e) ==
           NULL);
  EG_CHECK(read_json(&engram__v1__get_chunks_request__descriptor,
                     "{\"ids\":[\"99999999999999999999\"]}", a, &e) == NULL);
  eg_arena_free(a);
}

static void test_reals(void) {
  Engram__V1__SearchWeights w = ENGRAM__V1__SEARCH_WEIGHTS__INIT;
  w.x = 0.3f;
  w.y = NAN;
  w.alpha = -INFINITY;
  const char *j = write_json(&w.base, 0);
  EG_CHECK(strstr(j, "\"x\":0.3,") != NULL); /* the shortest decimal, not 0.300000012 */
  EG_CHECK(strstr(j, "\"y\":\"NaN\"") != NULL);
  EG_CHECK(strstr(j, "\"alpha\":\"-Infinity\"") != NULL);
  eg_arena *a = eg_arena_new(0, 0);
  eg_err e;
  Engram__V1__SearchWeights *back =
      (void *)read_json(&engram__v1__search_weights__descriptor, j, a, &e);
  EG_REQUIRE(back != NULL);
  EG_CHECK(back->x == 0.3f && isnan(back->y) && isinf(back->alpha) && back->alpha < 0);
  eg_arena_free(a);
}

static void test_times_beyond_iso(void) {
  Engram__V1__WalkRequest r = ENGRAM__V1__WALK_REQUEST__INIT;
  r.valid_at = -280215LL * 365 * 86400 * 1000000; /* far before year 0 */
  r.known_at = 1709287200000000LL;
  const char *j = write_json(&r.base, EG_PBJSON_ISO_TIMES);
  EG_CHECK(strstr(j, "\"known_at\":\"2024-03-01T10:00:00Z\"") != NULL);
  EG_CHECK(strstr(j, "\"valid_at\":\"-8") != NULL); /* the integer, as a string */
  eg_arena *a = eg_arena_new(0, 0);
  eg_err e;
  Engram__V1__WalkRequest *back =
      (void *)read_json(&engram__v1__walk_request__descriptor, j, a, &e);
  EG_REQUIRE(back != NULL);
  EG_CHECK(back->valid_at == r.valid_at && back->known_at == r.known_at);
  eg_arena_free(a);
}

/* null: a field's default; inside a list, refused (a message list with a hole once
 * reached the encoder — found by fuzz_ingest_json). */
static void test_nulls(void) {
  eg_arena *a = eg_arena_new(0, 0);
  eg_err e;
  EG_CHECK(read_json(&engram__v1__traverse_request__descriptor, "{\"seeds\":[null]}", a, &e) ==
           NULL);
  EG_CHECK(strstr(e.msg, "null in a list") != NULL);
  EG_CHECK(read_json(&engram__v1__get_chunks_request__descriptor, "{\"ids\":[1,null]}", a, &e) ==
           NULL);
  Engram__V1__TraverseRequest *t = (void *)read_json(&engram__v1__traverse_request__descriptor,
                                                     "{\"scope\":null,\"max_depth\":null}", a, &e);
  EG_REQUIRE(t != NULL);
  EG_CHECK(t->scope == NULL && t->max_depth == 0);
  Engram__V1__EntityRef *r =
      (void *)read_json(&engram__v1__entity_ref__descriptor, "{\"name\":null}", a, &e);
  EG_REQUIRE(r != NULL);
  EG_CHECK_INT(r->ref_case,
               ENGRAM__V1__ENTITY_REF__REF__NOT_SET); /* a null oneof member sets no case */
  eg_arena_free(a);
}

/* One JSON value and only whitespace after it: a second value or any other trailing text
 * is refused (a JSONL file given where one request is expected), with where it starts. */
static void test_parse_one_value(void) {
  const char *ok[] = {"{}", "  {\"a\":1}\n", "{\"a\":1}\r\n\t \n", "[1,2]", "3"};
  for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
    cJSON *j = NULL;
    eg_err e;
    EG_CHECK_INT(eg_pbjson_parse(ok[i], &j, &e), EG_OK);
    EG_CHECK(j != NULL);
    cJSON_Delete(j);
  }
  const char *trailing[] = {"{\"a\":1}\n{\"a\":2}\n", "{} {}", "{}x", "{}\n\n]", "1 2"};
  for (size_t i = 0; i < sizeof trailing / sizeof *trailing; i++) {
    cJSON *j = (cJSON *)1;
    eg_err e;
    EG_CHECK_INT(eg_pbjson_parse(trailing[i], &j, &e), EG_EINVAL);
    EG_CHECK(j == NULL);
    EG_CHECK(strstr(e.msg, "more after the JSON value") != NULL);
  }
  cJSON *j = NULL;
  eg_err e;
  EG_CHECK_INT(eg_pbjson_parse("{\"a\":1}  {\"a\":2}", &j, &e), EG_EINVAL);
  EG_CHECK(strstr(e.msg, "at byte 7") != NULL);
  EG_CHECK_INT(eg_pbjson_parse("{\"a\":", &j, &e), EG_EINVAL);
  EG_CHECK(strstr(e.msg, "not valid JSON") != NULL);
  EG_CHECK_INT(eg_pbjson_parse("", &j, &e), EG_EINVAL);
}

/* Where a syntax error is: the byte offset, and its line and column when the text has
 * several lines; a time that does not parse names its field. */
static void test_where_errors_are(void) {
  cJSON *j = NULL;
  eg_err e;
  EG_CHECK_INT(eg_pbjson_parse("{\"a\": tru}", &j, &e), EG_EINVAL);
  EG_CHECK_STR(e.msg, "not valid JSON (at byte 6)");
  EG_CHECK_INT(eg_pbjson_parse("{\n  \"a\": 1,\n  \"b\": ]\n}", &j, &e), EG_EINVAL);
  EG_CHECK_STR(e.msg, "not valid JSON (at byte 19: line 3, column 8)");
  eg_arena *a = eg_arena_new(0, 0);
  EG_CHECK(
      read_json(
          &engram__v1__commit_request__descriptor,
          "{\"edges\":[{\"relation\":\"A\"},{\"relation\":\"B\",\"valid_to\":\"2024-02-30\"}]}", a,
          &e) == NULL);
  EG_CHECK(strncmp(e.msg, "CommitRequest.edges[1].valid_to: ",
                   strlen("CommitRequest.edges[1].valid_to: ")) == 0);
  EG_CHECK(strstr(e.msg, "'2024-02-30'") != NULL);
  eg_arena_free(a);
}

int main(void) {
  EG_RUN(test_parse_one_value);
  EG_RUN(test_where_errors_are);
  EG_RUN(test_big_integers);
  EG_RUN(test_reals);
  EG_RUN(test_times_beyond_iso);
  EG_RUN(test_nulls);
  return eg_test_finish();
}
