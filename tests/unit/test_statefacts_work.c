/*
 * test_statefacts_work.c — where the speaker works, in words written for this test (none taken
 * from a benchmark): a teacher's and a nurse's ways of saying it, a past form of teaching.
 *
 * Needs the USE-lite model (scripts/install-deps.sh) and WordNet; skips without the model.
 */
#include "tests/unit/statefacts_check.h"

/* Teaching at a school is working there, in the present; taught, a value of the past (a word on
 * the state); someone else's teaching is not the speaker's. */
static void test_teaching(void) {
  static const expect x[] = {
      {"I teach chemistry at Ashgrove College now.", "WORKS_AT", "Ashgrove College"},
      {"i lecture at Kingsford University", "WORKS_AT", "Kingsford University"},
      {"I have taught at Ashgrove College since 2015.", "WORKS_AT", "Ashgrove College"},
      {"I taught at Ashgrove College.", EG_STATE_UNCERTAIN, "WORKS_AT"},
      {"I taught English at Ashgrove College for ten years before retiring.", EG_STATE_UNCERTAIN,
       "WORKS_AT"},
      {"She teaches at Ashgrove College.", NULL, NULL},
  };
  check_all(x, sizeof x / sizeof *x);
}

int main(void) {
  int rc = sf_check_open();
  if (rc) return rc < 0 ? 0 : rc;
  EG_RUN(test_teaching);
  sf_check_close();
  return eg_test_finish();
}
