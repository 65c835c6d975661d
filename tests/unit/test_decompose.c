/* test_decompose.c — the parts of a question about two events, and their places near the top
 * of the fused chunks (the quota). */
#include <stdio.h>
#include <string.h>

#include "common/arena.h"
#include "services/recalld/recall_int.h"
#include "tests/testlib.h"

static eg_arena *a;

/* The parts of q joined by '|' ("" for none). */
static const char *parts(const char *q) {
  static char buf[512];
  char *out[RC_MAX_SUB];
  size_t n = rc_decompose(q, a, out, RC_MAX_SUB);
  buf[0] = '\0';
  for (size_t i = 0; i < n; i++)
    snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", i ? "|" : "", out[i]);
  return buf;
}

static void test_parts(void) {
  EG_CHECK(!strcmp(parts("How many days passed between my dentist appointment and the concert?"),
                   "my dentist appointment|the concert"));
  EG_CHECK(!strcmp(parts("Which did I do first, go to the gym or visit my parents?"),
                   "go to the gym|visit my parents"));
  EG_CHECK(!strcmp(parts("How many charity events did I join before the 'Run for the Cure' event?"),
                   "How many charity events did I join|the 'Run for the Cure' event"));
  /* a part that says nothing but what is asked is no event */
  EG_CHECK(!strcmp(parts("How many years will I be when my friend Rachel gets married?"),
                   "my friend Rachel gets married"));
  /* one event placed by another: one answer, not cut */
  EG_CHECK(!strcmp(parts("How did Melanie feel after the accident?"), ""));
  EG_CHECK(!strcmp(parts("What did Nate do while Joanna was on her road trip?"), ""));
  EG_CHECK(!strcmp(parts("What kind of classes or groups has Audrey joined?"), ""));
  /* one event */
  EG_CHECK(!strcmp(parts("When did I buy my car?"), ""));
  EG_CHECK(!strcmp(parts("Where do I live?"), ""));
  EG_CHECK(!strcmp(parts("What did I order for dinner?"), ""));
  /* no lone word: verbs joined, not events */
  EG_CHECK(!strcmp(parts("Which kitchen items did I replace or fix?"),
                   "Which kitchen items did I replace"));
  /* two joins of a kind: not cut */
  EG_CHECK(!strcmp(parts("Which did I pick, tea or coffee or juice?"), ""));
}

static void test_quota(void) {
  Engram__V1__Chunk ch[8];
  rc_chunk cs[8];
  for (int i = 0; i < 8; i++) {
    engram__v1__chunk__init(&ch[i]);
    ch[i].id = (uint64_t)i + 1;
    cs[i] = (rc_chunk){.chunk = &ch[i], .score = 1.0f - 0.1f * (float)i};
  }
  rc_ctx c = {.chunks = cs, .n_chunks = 8, .n_sub = 2};
  c.sub_best[0] = 7; /* rank 6 */
  c.sub_best[1] = 2; /* rank 1: already in the window */
  rc_sub_quota(&c, 5);
  EG_CHECK_INT(c.chunks[1].chunk->id, 2); /* in the window: stays */
  EG_CHECK_INT(c.chunks[3].chunk->id, 7); /* rises into the window's last places */
  EG_CHECK_INT(c.chunks[4].chunk->id, 4); /* the rest shifts down */
  EG_CHECK_INT(c.chunks[5].chunk->id, 5);
  c.sub_best[1] = 8; /* one in the window, one far out: neither leaves it */
  rc_sub_quota(&c, 5);
  EG_CHECK_INT(c.chunks[3].chunk->id, 7);
  EG_CHECK_INT(c.chunks[4].chunk->id, 8);
  c.sub_best[0] = 1, c.sub_best[1] = 3; /* both in the window: nothing moves */
  rc_sub_quota(&c, 5);
  EG_CHECK_INT(c.chunks[4].chunk->id, 8);
}

int main(void) {
  a = eg_arena_new(4096, 0);
  EG_RUN(test_parts);
  EG_RUN(test_quota);
  eg_arena_free(a);
  return eg_test_finish();
}
