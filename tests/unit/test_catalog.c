/* test_catalog.c — GNU gettext catalogues: the translations of one written here in either byte
 * order, the header entry and plural forms, a truncated or forged file visiting nothing, a
 * missing file, and Debian's GeoNames catalogue (the state extractor's gazetteer) when it is
 * installed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lang/catalog.h"
#include "tests/testlib.h"

#define GEONAMES "/usr/share/locale/en/LC_MESSAGES/geonames.mo"

typedef struct seen {
  char all[512];
  int n, stop_after; /* stop_after 0: never */
} seen;

static bool add(void *ctx, const char *s, size_t n) {
  seen *v = ctx;
  size_t at = strlen(v->all);
  EG_CHECK(strlen(s) == n);
  snprintf(v->all + at, sizeof v->all - at, "|%s", s);
  return ++v->n != v->stop_after;
}

static void put32(unsigned char *p, uint32_t v, bool big) {
  for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (big ? 24 - 8 * i : 8 * i));
}

/* A catalogue of pairs (orig[i], trans[i]; trans may hold a NUL: plural forms, len given) into
 * buf; its length. */
static size_t write_mo(unsigned char *buf, const char *const *orig, const char *const *trans,
                       const size_t *tlen, uint32_t n, bool big) {
  uint32_t otab = 28, ttab = otab + 8 * n, at = ttab + 8 * n;
  memset(buf, 0, at);
  put32(buf, 0x950412deu, big);
  put32(buf + 8, n, big);
  put32(buf + 12, otab, big);
  put32(buf + 16, ttab, big);
  for (uint32_t i = 0; i < n; i++) {
    uint32_t ol = (uint32_t)strlen(orig[i]), tl = (uint32_t)tlen[i];
    put32(buf + otab + 8 * i, ol, big), put32(buf + otab + 8 * i + 4, at, big);
    memcpy(buf + at, orig[i], ol + 1), at += ol + 1;
    put32(buf + ttab + 8 * i, tl, big), put32(buf + ttab + 8 * i + 4, at, big);
    memcpy(buf + at, trans[i], tl), buf[at + tl] = '\0', at += tl + 1;
  }
  return at;
}

static const char *const orig[] = {"", "2643339", "1259229", "5024719", "1"};
static const char *const trans[] = {"Project-Id-Version: x\n", "Norwich", "Pune", "",
                                    "town\0towns"};
static const size_t tlen[] = {22, 7, 4, 0, 10};

static void test_both_byte_orders(void) {
  unsigned char buf[512];
  for (int big = 0; big < 2; big++) {
    size_t len = write_mo(buf, orig, trans, tlen, 5, big);
    seen v = {{0}, 0, 0};
    eg_err e;
    EG_CHECK(eg_catalog_parse(buf, len, add, &v, &e) == EG_OK);
    /* not the header, not an empty translation, the singular of a plural */
    EG_CHECK_STR(v.all, "|Norwich|Pune|town");
    seen first = {{0}, 0, 1}; /* a visitor stops the walk */
    EG_CHECK(eg_catalog_parse(buf, len, add, &first, &e) == EG_OK);
    EG_CHECK_STR(first.all, "|Norwich");
  }
}

static void test_bad_catalogues(void) {
  unsigned char buf[512];
  size_t len = write_mo(buf, orig, trans, tlen, 5, false);
  eg_err e;
  seen v = {{0}, 0, 0};
  /* cut anywhere: a table or a string outside the file, or the header itself */
  for (size_t cut = 0; cut < len; cut++) {
    eg_code rc = eg_catalog_parse(buf, cut, add, &v, &e);
    if (rc != EG_EINVAL) {
      eg_test_fail(__FILE__, __LINE__, "cut at %zu: %d", cut, (int)rc);
      break;
    }
  }
  EG_CHECK_STR(v.all, "");
  unsigned char forged[512];
  memcpy(forged, buf, len);
  put32(forged + 28 + 8 + 4, (uint32_t)len + 100, false); /* a string past the end */
  EG_CHECK(eg_catalog_parse(forged, len, add, &v, &e) == EG_EINVAL);
  memcpy(forged, buf, len);
  put32(forged + 8, 0x20000000u, false); /* more pairs than the file holds */
  EG_CHECK(eg_catalog_parse(forged, len, add, &v, &e) == EG_EINVAL);
  memcpy(forged, buf, len);
  forged[0] ^= 0xff;
  EG_CHECK(eg_catalog_parse(forged, len, add, &v, &e) == EG_EINVAL);
  EG_CHECK(strstr(e.msg, "magic") != NULL);
  memcpy(forged, buf, len);
  put32(forged + 4, 0x00010000u, false); /* a major revision we do not know */
  EG_CHECK(eg_catalog_parse(forged, len, add, &v, &e) == EG_EINVAL);
  memcpy(forged, buf, len);
  forged[len - 1] = 'x'; /* the last string's NUL gone */
  EG_CHECK(eg_catalog_parse(forged, len, add, &v, &e) == EG_EINVAL);
  EG_CHECK_STR(v.all, "");
}

static void test_files(void) {
  eg_err e;
  seen v = {{0}, 0, 0};
  EG_CHECK(eg_catalog_read("/nonexistent/geonames.mo", add, &v, &e) == EG_ENOTFOUND);
  char *dir = eg_test_tempdir("catalog");
  char path[512];
  snprintf(path, sizeof path, "%s/x.mo", dir);
  unsigned char buf[512];
  size_t len = write_mo(buf, orig, trans, tlen, 5, true);
  FILE *f = fopen(path, "wb");
  EG_REQUIRE(f && fwrite(buf, 1, len, f) == len && fclose(f) == 0);
  EG_CHECK(eg_catalog_read(path, add, &v, &e) == EG_OK);
  EG_CHECK_STR(v.all, "|Norwich|Pune|town");
  f = fopen(path, "wb");
  EG_REQUIRE(f && fwrite("not a catalogue at all", 1, 22, f) == 22 && fclose(f) == 0);
  EG_CHECK(eg_catalog_read(path, add, &v, &e) == EG_EINVAL);
  EG_CHECK(strstr(e.msg, path) != NULL); /* the message names the file */
  eg_test_rmtree(dir);
  free(dir);
}

typedef struct count {
  size_t n;
  bool norwich, pune;
} count;

static bool count_town(void *ctx, const char *s, size_t n) {
  count *c = ctx;
  (void)n;
  c->n++;
  c->norwich |= !strcmp(s, "Norwich");
  c->pune |= !strcmp(s, "Pune");
  return true;
}

static void test_geonames(void) {
  if (access(GEONAMES, R_OK) != 0) {
    printf("skip: %s missing (scripts/install-deps.sh)\n", GEONAMES);
    return;
  }
  count c = {0, false, false};
  eg_err e;
  EG_CHECK(eg_catalog_read(GEONAMES, count_town, &c, &e) == EG_OK);
  EG_CHECK(c.n > 20000); /* some 28,000 towns' names */
  EG_CHECK(c.norwich && c.pune);
}

int main(void) {
  EG_RUN(test_both_byte_orders);
  EG_RUN(test_bad_catalogues);
  EG_RUN(test_files);
  EG_RUN(test_geonames);
  return eg_test_finish();
}
