/*
 * test_statefacts_work.c — where the speaker works, in words written for this test (none taken
 * from a benchmark): a teacher's and a nurse's ways of saying it, a past form of teaching, and
 * an offer the speaker takes later in its sentence, dated by the start told with it, and a job
 * of the past told with the years it lasted, one left by a name no dictionary knows, and a new
 * job told before its name, and one read weakly beside "my manager" (a partner beside "date").
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

/* An offer taken later in its sentence ("… and I accepted", "… and I said yes", "… and took
 * it") is the job; one refused or someone else's is not; a start told with it dates it. */
static void test_offer_taken_after(void) {
  static const expect x[] = {
      {"they offered me a permanent role at Arup and I accepted", "WORKS_AT", "Arup"},
      {"they offered me a permanent role at Arup and I said yes", "WORKS_AT", "Arup"},
      {"Arup offered me a job and I took it!", "WORKS_AT", "Arup"},
      {"I got an offer from Arup and accepted.", "WORKS_AT", "Arup"},
      {"they offered me a role at Arup and I said no", EG_STATE_UNCERTAIN, "WORKS_AT"},
      {"Arup offered me a job but I declined.", EG_STATE_UNCERTAIN, "WORKS_AT"},
      {"my friend got an offer from Arup and she accepted", NULL, NULL},
  };
  check_all(x, sizeof x / sizeof *x);
  static const expect_dated d[] = {
      {"they offered me a role at Arup and I accepted, starting in May", "WORKS_AT", "Arup",
       "2026-05-01T00:00:00Z"},
      {"I accepted an offer from Arup, starting in May.", "WORKS_AT", "Arup",
       "2026-05-01T00:00:00Z"},
  };
  check_dated(d, sizeof d / sizeof *d);
}

/* A value of the past told with the years it lasted is the speaker's through them, a current
 * value said beside it or not; not one negated, someone else's or still to come. */
static void test_years_lasted(void) {
  eg_arena *a = eg_arena_new(0, 0);
  eg_enriched out;
  static const char *const told[] = {
      "I worked at Deloitte from 2015 to 2019.",
      "I worked at Deloitte from 2015 to 2019. These days I work at KPMG, in audit.",
      "I worked at Deloitte between 2015 and 2019",
  };
  for (size_t i = 0; i < sizeof told / sizeof *told; i++) {
    const eg_fact *f = fact_read(a, told[i], "WORKS_AT", "Deloitte", &out);
    if (!EG_CHECK(f != NULL)) {
      fprintf(stderr, "  \"%s\": no WORKS_AT Deloitte\n", told[i]);
      continue;
    }
    EG_CHECK(!f->since_first_mention);
    EG_CHECK(f->valid_from == T("2015-01-01T00:00:00Z"));
    EG_CHECK(f->valid_to == T("2020-01-01T00:00:00Z"));
  }
  EG_CHECK(fact_read(a, told[1], "WORKS_AT", "KPMG", &out) != NULL);
  static const char *const not_told[] = {
      "I never worked at Deloitte from 2015 to 2019",
      "my sister worked at Deloitte from 2015 to 2019",
      "I'll be working at Deloitte from 2026 to 2027",
  };
  for (size_t i = 0; i < sizeof not_told / sizeof *not_told; i++)
    EG_CHECK(fact_read(a, not_told[i], "WORKS_AT", "Deloitte", &out) == NULL);
  eg_arena_free(a);
}

/* A name no dictionary knows that the speaker is no longer at is a value left of the relation
 * its words say, where they say one by the margin: a doubt on the employer (it was nothing);
 * a station left or a name lost, nothing. */
static void test_unknown_left(void) {
  static const expect x[] = {
      {"I'm no longer at Brightwell, friday was my last day", EG_STATE_UNCERTAIN, "WORKS_AT"},
      {"I left Paddington at 9 and got to Bath by 11", NULL, NULL},
      {"we lost Pippin on tuesday", NULL, NULL},
  };
  check_all(x, sizeof x / sizeof *x);
  EG_CHECK(says("I'm no longer at Brightwell, friday was my last day", "WORKS_AT", "Brightwell"));
}

/* A new job told without its name ([+WORKS_AT]: "I got the job") is a doubt on the employer,
 * and a name opening the words right after it, read as an employer below the bar, is the new
 * one (it was the doubt only); not a name after a job left. */
static void test_begun_then_named(void) {
  static const expect x[] = {
      {"I got the job!!! Brightwell Energy, customer team", "WORKS_AT", "Brightwell Energy"},
      {"I accepted the offer. Brightwell Energy, customer team", "WORKS_AT", "Brightwell Energy"},
      /* a noun and nothing else opening the sentence before a name is part of it */
      {"I got the job!!! Octopus Energy, customer team", "WORKS_AT", "Octopus Energy"},
      {"I got the job!", EG_STATE_UNCERTAIN, "WORKS_AT"},
      {"I quit my job. Google was awful", EG_STATE_UNCERTAIN, "WORKS_AT"},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* Notice given is a word on the employer without a name ("giving notice at the council
 * today"; it was nothing: no word of a job's domain); someone else's notice is not. */
static void test_notice_given(void) {
  static const expect x[] = {
      {"giving notice at the council today, feels weird after 6 years", EG_STATE_UNCERTAIN,
       "WORKS_AT"},
      {"handed in my notice today", EG_STATE_UNCERTAIN, "WORKS_AT"},
      {"the landlord gave notice that the rent goes up", NULL, NULL},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* A firm's name before what the user has of it as a customer is no employer ("my Netflix
 * subscription went up" was WORKS_AT Netflix); before what they have of it by working there it
 * is ("my Deloitte colleagues"). */
static void test_customer_of(void) {
  static const expect x[] = {
      {"my Netflix subscription went up", NULL, NULL},
      {"my Amazon order is late", NULL, NULL},
      {"my Deloitte colleagues are going to the pub", "WORKS_AT", "Deloitte"},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* A name read as the job only below the bar is the job beside a noun the speaker has by one
 * in the same sentence ("my manager"); not without it, nor beside someone else's. */
static void test_backed_by_a_noun(void) {
  static const expect x[] = {
      {"Yeah. I'm staying at Brightwater for now, my manager promised me a promotion review in "
       "the spring.",
       "WORKS_AT", "Brightwater"},
      {"I'm staying at Brightwater for now.", NULL, NULL},
      {"I'm staying at Brightwater for now, her manager promised her a review.", NULL, NULL},
      /* … and so is a partner beside a word of that state's own (@domain), not without it */
      {"Anniversary dinner with Keiko tonight, where should we go in Shoreditch?", "PARTNER_OF",
       "Keiko"},
      {"Dinner with Keiko tonight, where should we go in Shoreditch?", NULL, NULL},
      /* … not a companion, a shop or a firm of no job beside such words */
      {"Had lunch with Keiko, my manager wants the report by Friday.", NULL, NULL},
      {"Drinks at The Crown with my team tonight.", NULL, NULL},
      {"Renewed my phone contract with Vodafone today.", NULL, NULL},
      {"Bought dates and figs with Priya at the market.", NULL, NULL},
  };
  check_all(x, sizeof x / sizeof *x);
  EG_CHECK(
      says("Now I meet Marta, she is from Wroclaw like me, and we go to cinema on Friday, "
           "second date.",
           "PARTNER_OF", "Marta"));
}

int main(void) {
  int rc = sf_check_open();
  if (rc) return rc < 0 ? 0 : rc;
  EG_RUN(test_teaching);
  EG_RUN(test_offer_taken_after);
  EG_RUN(test_years_lasted);
  EG_RUN(test_unknown_left);
  EG_RUN(test_begun_then_named);
  EG_RUN(test_notice_given);
  EG_RUN(test_customer_of);
  EG_RUN(test_backed_by_a_noun);
  sf_check_close();
  return eg_test_finish();
}
