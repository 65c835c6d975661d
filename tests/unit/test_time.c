/* test_time.c — civil arithmetic and ISO-8601 against hand-computed values. */
#include "common/time.h"
#include "tests/testlib.h"

static int64_t parse(const char *s) {
  int64_t v = -1;
  eg_err e;
  if (eg_time_parse(s, &v, &e) != EG_OK) return INT64_MIN;
  return v;
}

static void test_days(void) {
  EG_CHECK_INT(eg_days_from_civil(1970, 1, 1), 0);
  EG_CHECK_INT(eg_days_from_civil(2000, 3, 1), 11017);
  EG_CHECK_INT(eg_days_from_civil(1969, 12, 31), -1);
  EG_CHECK_INT(eg_days_from_civil(2024, 2, 29), 19782);
  int y, m, d, w;
  eg_civil_from_days(19782, &y, &m, &d, &w);
  EG_CHECK_INT(y, 2024);
  EG_CHECK_INT(m, 2);
  EG_CHECK_INT(d, 29);
  EG_CHECK_INT(w, 4); /* Thursday */
  for (int64_t days = -800000; days < 800000; days += 997) {
    eg_civil_from_days(days, &y, &m, &d, NULL);
    EG_CHECK_INT(eg_days_from_civil(y, m, d), days);
  }
  EG_CHECK_INT(eg_days_in_month(2024, 2), 29);
  EG_CHECK_INT(eg_days_in_month(2023, 2), 28);
  EG_CHECK_INT(eg_days_in_month(1900, 2), 28);
  EG_CHECK_INT(eg_days_in_month(2000, 2), 29);
}

static void test_parse(void) {
  EG_CHECK_INT(parse("1970-01-01T00:00:00Z"), 0);
  EG_CHECK_INT(parse("2024-03-01T12:30:00Z"), INT64_C(1709296200000000));
  EG_CHECK_INT(parse("2024-03-01"), INT64_C(1709251200000000));
  EG_CHECK_INT(parse("2024-03"), INT64_C(1709251200000000));
  EG_CHECK_INT(parse("2024"), INT64_C(1704067200000000));
  EG_CHECK_INT(parse("2024-03-01 12:30"), INT64_C(1709296200000000));
  EG_CHECK_INT(parse("2024-03-01T12:30:00.5Z"), INT64_C(1709296200500000));
  EG_CHECK_INT(parse("2024-03-01T12:30:00.123456789Z"), INT64_C(1709296200123456));
  EG_CHECK_INT(parse("2024-03-01T14:30:00+02:00"), INT64_C(1709296200000000));
  EG_CHECK_INT(parse("2024-03-01T07:30:00-0500"), INT64_C(1709296200000000));
  EG_CHECK_INT(parse("@42"), 42);
  /* refused */
  EG_CHECK_INT(parse("2023-02-29"), INT64_MIN);
  EG_CHECK_INT(parse("2024-13-01"), INT64_MIN);
  EG_CHECK_INT(parse("2024-03-01T25:00"), INT64_MIN);
  EG_CHECK_INT(parse("2024-03-01T12:30:00Zjunk"), INT64_MIN);
  EG_CHECK_INT(parse(""), INT64_MIN);
  EG_CHECK_INT(parse("yesterday"), INT64_MIN);
  EG_CHECK_INT(parse("@"), INT64_MIN);
}

static void test_format(void) {
  char buf[EG_TIME_ISO_MAX];
  eg_time_format(0, buf, sizeof buf);
  EG_CHECK_STR(buf, "1970-01-01T00:00:00Z");
  eg_time_format(INT64_C(1709296200500000), buf, sizeof buf);
  EG_CHECK_STR(buf, "2024-03-01T12:30:00.500000Z");
  eg_time_format(-1, buf, sizeof buf);
  EG_CHECK_STR(buf, "1969-12-31T23:59:59.999999Z");
  eg_time_format_date(INT64_C(1709296200000000), buf, sizeof buf);
  EG_CHECK_STR(buf, "2024-03-01");
  /* round trip */
  for (int64_t t = -INT64_C(5000000000000000); t < INT64_C(5000000000000000);
       t += INT64_C(123456789012345)) {
    eg_time_format(t, buf, sizeof buf);
    EG_CHECK_INT(parse(buf), t);
  }
  /* beyond four-digit years, "@µs", which reads back (found by fuzz_dates: "0000+2305" is
   * the last hours of year -1) */
  int64_t far[] = {parse("0000+2305"), INT64_MIN, INT64_MAX,
                   parse("9999-12-31T23:59:59.999999Z") + 1};
  EG_CHECK(far[0] < parse("0000-01-01"));
  for (int i = 0; i < 4; i++) {
    eg_time_format(far[i], buf, sizeof buf);
    EG_CHECK(buf[0] == '@');
    EG_CHECK_INT(parse(buf), far[i]);
  }
  eg_time_format_date(INT64_MIN, buf, sizeof buf);
  EG_CHECK(buf[0] == '@');
}

static void test_clocks(void) {
  int64_t a = eg_time_mono_us(), b = eg_time_mono_us();
  EG_CHECK(b >= a);
  EG_CHECK(eg_time_now_us() > INT64_C(1700000000000000));
}

int main(void) {
  EG_RUN(test_days);
  EG_RUN(test_parse);
  EG_RUN(test_format);
  EG_RUN(test_clocks);
  return eg_test_finish();
}
