/* test_dates.c — the date grammar against a session date, across month and year bounds. */
#include <stdio.h>

#include "common/time.h"
#include "lang/dates.h"
#include "tests/testlib.h"

/* The label of the only date found in text, said at ref; "" when none, "?" when more. */
static const char *one(const char *text, const char *ref) {
  static char out[64];
  int64_t r;
  eg_time_parse(ref, &r, NULL);
  eg_date d[4];
  size_t n = eg_dates_find(text, r, d, 4);
  snprintf(out, sizeof out, "%s", n == 1 ? d[0].label : n ? "?" : "");
  return out;
}

static void test_relative_days(void) {
  /* Saturday 2023-05-20 */
  EG_CHECK_STR(one("I went yesterday", "2023-05-20T10:00:00Z"), "2023-05-19");
  EG_CHECK_STR(one("today is fine", "2023-05-20T23:59:00Z"), "2023-05-20");
  EG_CHECK_STR(one("see you tomorrow", "2023-05-31"), "2023-06-01");   /* month bound */
  EG_CHECK_STR(one("Yesterday was cold", "2024-01-01"), "2023-12-31"); /* year bound */
  EG_CHECK_STR(one("the day before yesterday", "2024-03-01"), "2024-02-28");
  EG_CHECK_STR(one("two weeks ago", "2023-05-20"), "2023-05-06");
  EG_CHECK_STR(one("3 days ago", "2023-03-02"), "2023-02-27");
  EG_CHECK_STR(one("a couple of days ago", "2023-05-20"), "2023-05-18");
  EG_CHECK_STR(one("a month ago", "2023-03-31"), "2023-02-28"); /* clamped */
  EG_CHECK_STR(one("two years ago", "2024-02-29"), "2022-02-28");
  EG_CHECK_STR(one("last night", "2023-05-20"), "2023-05-19");
}

static void test_weeks_and_weekends(void) {
  EG_CHECK_STR(one("last weekend", "2023-05-22T09:00:00Z"), "weekend of 2023-05-20"); /* Monday */
  EG_CHECK_STR(one("last weekend", "2023-05-20"), "weekend of 2023-05-13");           /* Saturday */
  EG_CHECK_STR(one("this weekend", "2023-05-17"), "weekend of 2023-05-20");
  EG_CHECK_STR(one("next week", "2023-12-28"), "week of 2024-01-01"); /* year bound */
  EG_CHECK_STR(one("last week", "2023-05-20"), "week of 2023-05-08");
  EG_CHECK_STR(one("last Monday", "2023-05-22"), "2023-05-15"); /* said on a Monday */
  EG_CHECK_STR(one("on Friday", "2023-05-22"), "2023-05-19");
  EG_CHECK_STR(one("booked for Friday", "2023-05-22"), "2023-05-19"); /* read forward by users */
}

static void test_months_and_years(void) {
  EG_CHECK_STR(one("I moved to London last October", "2024-03-10"), "2023-10");
  EG_CHECK_STR(one("last October", "2023-11-01"), "2023-10");
  EG_CHECK_STR(one("last month", "2024-01-15"), "2023-12");
  EG_CHECK_STR(one("in March", "2024-02-01"), "2023-03"); /* the most recent past March */
  EG_CHECK_STR(one("in March", "2024-04-01"), "2024-03");
  /* a month or day said without its year is marked as guessed; with its year it is not */
  const char *const guessed[] = {"in March", "March 3rd", "the 3rd of March"};
  const char *const given[] = {"in March 2023", "March 3rd, 2023", "in 2023", "last month"};
  int64_t ref;
  eg_time_parse("2024-02-01", &ref, NULL);
  eg_date d;
  for (size_t i = 0; i < sizeof guessed / sizeof *guessed; i++)
    EG_CHECK(eg_dates_find(guessed[i], ref, &d, 1) == 1 && d.year_guessed);
  for (size_t i = 0; i < sizeof given / sizeof *given; i++)
    EG_CHECK(eg_dates_find(given[i], ref, &d, 1) == 1 && !d.year_guessed);
  /* read ahead: a guessed one that is over is next year's, this month stays, others stay */
  int64_t jan, nov, y2025;
  eg_time_parse("2019-11-30", &ref, NULL);
  eg_time_parse("2020-01-01", &jan, NULL);
  eg_time_parse("2019-11-01", &nov, NULL);
  eg_time_parse("2025-01-01", &y2025, NULL);
  EG_CHECK(eg_dates_find("in January", ref, &d, 1) == 1 && eg_date_ahead(&d, ref) == jan);
  EG_CHECK(eg_dates_find("in November", ref, &d, 1) == 1 && eg_date_ahead(&d, ref) == nov);
  EG_CHECK(eg_dates_find("in 2025", ref, &d, 1) == 1 && eg_date_ahead(&d, ref) == y2025);
  EG_CHECK(eg_dates_find("since January", ref, &d, 1) == 1 && eg_date_ahead(&d, ref) == d.from);
  /* a weekday said alone is the next one read ahead; one said with its week stays */
  int64_t wed, next_mon, last_mon;
  eg_time_parse("2019-11-27", &wed, NULL);
  eg_time_parse("2019-12-02", &next_mon, NULL);
  eg_time_parse("2019-11-25", &last_mon, NULL);
  EG_CHECK(eg_dates_find("on Monday", wed, &d, 1) == 1 && d.from == last_mon &&
           eg_date_ahead(&d, wed) == next_mon);
  EG_CHECK(eg_dates_find("last Monday", wed, &d, 1) == 1 && eg_date_ahead(&d, wed) == last_mon);
  /* … and so is a day of the month said alone; one said with its month stays */
  int64_t third_nov, third_dec;
  eg_time_parse("2019-11-03", &third_nov, NULL);
  eg_time_parse("2019-12-03", &third_dec, NULL);
  EG_CHECK(eg_dates_find("on the 3rd", wed, &d, 1) == 1 && d.from == third_nov &&
           eg_date_ahead(&d, wed) == third_dec);
  EG_CHECK(eg_dates_find("on the 3rd of November", wed, &d, 1) == 1 &&
           eg_date_ahead(&d, wed) == third_nov + 365 * EG_US_PER_DAY + EG_US_PER_DAY);
  EG_CHECK_STR(one("in 2019", "2024-04-01"), "2019");
  EG_CHECK_STR(one("March 2021", "2024-04-01"), "2021-03");
  EG_CHECK_STR(one("last year", "2024-01-01"), "2023");
  EG_CHECK_STR(one("next month", "2023-12-15"), "2024-01");
  /* a season or a third of a year */
  EG_CHECK_STR(one("Where did I live in early 2020?", "2024-04-01"), "early 2020");
  EG_CHECK_STR(one("What was I driving in mid-2021?", "2024-04-01"), "mid 2021");
  EG_CHECK_STR(one("in the summer of 2019", "2024-04-01"), "summer 2019");
  EG_CHECK_STR(one("spring 2022 was wet", "2024-04-01"), "spring 2022");
  EG_CHECK_STR(one("by the end of 2018", "2024-04-01"), "end 2018");
  EG_CHECK_STR(one("the summer was hot", "2024-04-01"), ""); /* no year: not read */
  /* a season told from the day it is said: the latest one over, this one, the next to begin */
  EG_CHECK_STR(one("we met last summer", "2024-04-01"), "summer 2023");
  EG_CHECK_STR(one("we met last summer", "2024-09-01"), "summer 2024"); /* just over */
  EG_CHECK_STR(one("we met last summer", "2024-07-10"), "summer 2023"); /* in this one */
  EG_CHECK_STR(one("moving there next spring", "2025-06-10"), "spring 2026");
  EG_CHECK_STR(one("moving there next spring", "2025-01-10"), "spring 2025");
  EG_CHECK_STR(one("this winter", "2025-01-10"), "winter 2024"); /* December to February */
  EG_CHECK_STR(one("this winter", "2025-10-10"), "winter 2025");
  EG_CHECK_STR(one("last fall", "2025-01-10"), "fall 2024");
  /* winter: its months that bear the year's number; a half */
  EG_CHECK_STR(one("Where was I living in the winter of 2021?", "2024-04-01"), "winter 2021");
  EG_CHECK_STR(one("during the second half of 2020", "2024-04-01"), "second half 2020");
  EG_CHECK_STR(one("in the first half of 2019", "2024-04-01"), "first half 2019");
  {
    int64_t r, from, to;
    eg_time_parse("2024-04-01", &r, NULL);
    eg_time_parse("2021-01-01", &from, NULL);
    eg_time_parse("2021-03-01", &to, NULL);
    eg_date d[2];
    EG_REQUIRE(eg_dates_find("the winter of 2021", r, d, 2) == 1);
    EG_CHECK(d[0].from == from && d[0].to == to);
    /* … one named by both its years is from its December */
    eg_time_parse("2019-12-01", &from, NULL);
    eg_time_parse("2020-03-01", &to, NULL);
    EG_REQUIRE(eg_dates_find("Where was I living in the winter of 2019-2020?", r, d, 2) == 1);
    EG_CHECK(d[0].from == from && d[0].to == to);
  }
  EG_CHECK_STR(one("what did I drive in winter 2019/20", "2024-04-01"), "winter 2019/2020");
  EG_CHECK_STR(one("winter 2021\xe2\x80\x93"
                   "22 was cold",
                   "2024-04-01"),
               "winter 2021/2022");
  EG_CHECK_STR(one("winter 2019-2021", "2024-04-01"), "winter 2019"); /* not the next year */
  EG_CHECK_STR(one("winter 2019-20th", "2024-04-01"), "winter 2019"); /* no year */
  EG_CHECK_STR(one("the winter of 2019 20 of us went", "2024-04-01"), "winter 2019");
}

static void test_absolute_days(void) {
  EG_CHECK_STR(one("on the 15th", "2023-05-20"), "2023-05-15");
  EG_CHECK_STR(one("on the 25th", "2023-05-20"), "2023-04-25"); /* previous month */
  EG_CHECK_STR(one("on the 31st", "2023-03-10"), "2023-02-28"); /* clamped */
  EG_CHECK_STR(one("May 3rd", "2023-05-20"), "2023-05-03");
  EG_CHECK_STR(one("December 24", "2024-01-05"), "2023-12-24"); /* past year */
  EG_CHECK_STR(one("20 May 2021", "2024-01-05"), "2021-05-20");
  EG_CHECK_STR(one("the 4th of July", "2024-01-05"), "2023-07-04");
  EG_CHECK_STR(one("on 2023-02-28 we met", "2024-01-05"), "2023-02-28");
  EG_CHECK_STR(one("5/20/2021", "2024-01-05"), "2021-05-20");
  EG_CHECK_STR(one("2023-02-30", "2024-01-05"), ""); /* not a date */
}

/* A holiday of a fixed day said as a time: its latest past occurrence, the one of a year
 * given, or the next one after "next"; not a holiday's name before a noun. */
static void test_holidays(void) {
  EG_CHECK_STR(one("keto since Christmas", "2025-06-10"), "since 2024-12-25");
  EG_CHECK_STR(one("we moved over the new year", "2025-06-10"), "2025-01-01");
  EG_CHECK_STR(one("last Halloween we adopted a cat", "2025-06-10"), "2024-10-31");
  EG_CHECK_STR(one("we met on Valentine's Day 2019", "2025-06-10"), "2019-02-14");
  EG_CHECK_STR(one("since New Year's Eve", "2025-06-10"), "since 2024-12-31");
  EG_CHECK_STR(one("moving next Christmas", "2025-06-10"), "2025-12-25");
  EG_CHECK_STR(one("at Christmas", "2025-12-28"), "2025-12-25");
  EG_CHECK_STR(one("we got a Christmas tree", "2025-06-10"), "");
  EG_CHECK_STR(one("a new year of school", "2025-06-10"), "");
}

static void test_since_and_spans(void) {
  EG_CHECK_STR(one("vegan since March", "2024-05-01"), "since 2024-03");
  EG_CHECK_STR(one("since last year", "2024-05-01"), "since 2023");
  EG_CHECK_STR(one("I've lived here for 3 years", "2024-05-01"), "3 years up to now");
  /* a year alone after "since"; a duration with "now" or "in" at a sub-clause's end says the
   * same as "for" ("3 years now", "like 3 weeks in.") */
  EG_CHECK_STR(one("vegetarian since 2015", "2024-05-01"), "since 2015");
  /* the years from one through another */
  EG_CHECK_STR(one("I worked at Deloitte from 2015 to 2019", "2024-05-01"), "2015 to 2019");
  EG_CHECK_STR(one("we lived there between 2010 and 2014", "2024-05-01"), "2010 to 2014");
  EG_CHECK_STR(one("from 2019 to 2015", "2024-05-01"), "");
  EG_CHECK_STR(one("I've lived in Osaka 3 years now", "2024-05-01"), "3 years up to now");
  EG_CHECK_STR(one("gone vegan, like 3 weeks in.", "2024-05-01"), "3 weeks up to now");
  /* "since" with a count, as learners of English say "for" */
  EG_CHECK_STR(one("I am working here since three years", "2024-05-01"), "since 3 years up to now");
  /* a count said about, and with a half */
  EG_CHECK_STR(one("I've been at Tidepool for about a year and a half", "2024-05-01"),
               "1.5 year up to now");
  EG_CHECK_STR(one("vegan for almost two and a half years", "2024-05-01"), "2.5 years up to now");
  EG_CHECK_STR(one("together for more than 3 years", "2024-05-01"), "3 years up to now");
  EG_CHECK_STR(one("we moved about 3 years ago", "2024-05-01"), "2021-05-01");
  EG_CHECK_STR(one("we moved a year and a half ago", "2024-05-01"), "2022-11-01");
  EG_CHECK_STR(one("six and a half weeks ago", "2024-05-01"), "2024-03-17");
  EG_CHECK_STR(one("about the same", "2024-05-01"), "");
  int64_t r;
  eg_time_parse("2024-05-01", &r, NULL);
  eg_date d[2];
  EG_REQUIRE(eg_dates_find("for about a year and a half", r, d, 2) == 1);
  EG_CHECK_INT(d[0].kind, EG_DATE_SPAN);
  char from[16];
  eg_time_format_date(d[0].from, from, sizeof from);
  EG_CHECK_STR(from, "2022-11-01");
  EG_REQUIRE(eg_dates_find("since March", r, d, 2) == 1);
  EG_CHECK_INT(d[0].kind, EG_DATE_SINCE);
  EG_CHECK_INT(d[0].to, 0);
  EG_REQUIRE(eg_dates_find("for two weeks", r, d, 2) == 1);
  EG_CHECK_INT(d[0].kind, EG_DATE_SPAN);
  EG_CHECK_INT((d[0].to - d[0].from) / EG_US_PER_DAY, 15);
}

static void test_no_false_dates(void) {
  EG_CHECK_STR(one("You may want to try it", "2024-05-01"), "");
  EG_CHECK_STR(one("I have 3 dogs and 2 cats", "2024-05-01"), "");
  EG_CHECK_STR(one("", "2024-05-01"), "");
  EG_CHECK_STR(one("I spent 3 weeks in Paris", "2024-05-01"), "");
  EG_CHECK_STR(one("It cost 2015 dollars", "2024-05-01"), "");
  int64_t r;
  eg_time_parse("2024-05-01", &r, NULL);
  eg_date d[4];
  EG_CHECK_INT(eg_dates_find("yesterday and two weeks ago, then last Monday", r, d, 4), 3);
  EG_CHECK_INT(d[0].start, 0);
  EG_CHECK_INT(d[0].end, 9);
}

int main(void) {
  EG_RUN(test_relative_days);
  EG_RUN(test_weeks_and_weekends);
  EG_RUN(test_months_and_years);
  EG_RUN(test_absolute_days);
  EG_RUN(test_since_and_spans);
  EG_RUN(test_holidays);
  EG_RUN(test_no_false_dates);
  return eg_test_finish();
}
