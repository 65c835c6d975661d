/*
 * fuzz_dates.c — the date grammar (relative and absolute expressions resolved against a
 * reference time: ingestd's enrichment, recalld's temporal concretization) and the
 * ISO-8601 parser. Properties: spans lie inside the text, in order, without overlap;
 * ranges are ordered (to = 0 only for "since"); labels are terminated; a parsed ISO
 * time formats and parses back to itself.
 */
#include <string.h>

#include "common/time.h"
#include "lang/dates.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 8) return 0;
  /* the first 8 bytes: the reference time, within ±300 years of 1970 */
  int64_t ref = 0;
  memcpy(&ref, data, 8);
  ref %= 300LL * 366 * 86400 * 1000000;
  char *text = malloc(size - 8 + 1);
  memcpy(text, data + 8, size - 8);
  text[size - 8] = 0;
  eg_date d[16];
  size_t n = eg_dates_find(text, ref, d, 16);
  eg_fuzz_check(n <= 16, "count within max");
  size_t len = strlen(text);
  for (size_t i = 0; i < n; i++) {
    eg_fuzz_check(d[i].start < d[i].end && d[i].end <= len, "span inside the text");
    eg_fuzz_check(i == 0 || d[i].start >= d[i - 1].end, "spans in order, apart");
    eg_fuzz_check(d[i].kind == EG_DATE_SINCE ? d[i].to == 0 : d[i].from <= d[i].to,
                  "range ordered");
    eg_fuzz_check(memchr(d[i].label, 0, sizeof d[i].label) != NULL, "label terminated");
  }
  int64_t us;
  eg_err e;
  if (eg_time_parse(text, &us, &e) == EG_OK) {
    char buf[64];
    eg_time_format(us, buf, sizeof buf);
    int64_t again;
    eg_fuzz_check(eg_time_parse(buf, &again, &e) == EG_OK && again == us, "ISO time round trip");
  }
  free(text);
  return 0;
}
