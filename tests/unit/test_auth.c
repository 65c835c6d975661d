/*
 * test_auth.c — the token table: lines that parse and lines that must not, the header
 * forms, tenant and role rules, the service token, and reload keeping the old table
 * when the new one is broken.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/auth.h"
#include "tests/testlib.h"

static char da[72], db[72], dadm[72];

static void digests(void) {
  eg_auth_digest_line("tok-a", da);
  eg_auth_digest_line("tok-b", db);
  eg_auth_digest_line("tok-admin", dadm);
}

static eg_auth *open_inline(const char *lines, const char *service, eg_err *e) {
  eg_auth_opts o = {"", lines, service};
  eg_auth *a = NULL;
  return eg_auth_open(&o, &a, e) == EG_OK ? a : NULL;
}

static void test_digest(void) {
  /* sha256("abc"), the FIPS 180-2 example */
  char d[72];
  eg_auth_digest_line("abc", d);
  EG_CHECK_STR(d, "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

static void test_check(void) {
  char lines[600];
  snprintf(lines, sizeof lines, "acme %s\n# comment\n\nacme %s admin ; globex %s user", da, dadm,
           db);
  eg_err e;
  eg_auth *a = open_inline(lines, "svc", &e);
  EG_REQUIRE(a != NULL);
  EG_CHECK_INT(eg_auth_count(a), 4);
  eg_role role = EG_ROLE_USER;
  EG_CHECK_INT(eg_auth_check(a, "Bearer tok-a", "engram.v1.Graph/State", "acme", &role, &e), EG_OK);
  EG_CHECK_INT(role, EG_ROLE_USER);
  EG_CHECK_INT(eg_auth_check(a, "bearer tok-a", "engram.v1.Graph/State", "acme", NULL, &e), EG_OK);
  EG_CHECK_INT(eg_auth_check(a, "Bearer tok-a", "engram.v1.Graph/State", "globex", NULL, &e),
               EG_EPERM);
  EG_CHECK(strstr(e.msg, "globex") != NULL);
  EG_CHECK_INT(eg_auth_check(a, "Bearer tok-a", "engram.v1.Admin/Erase", "acme", NULL, &e),
               EG_EPERM);
  EG_CHECK(strstr(e.msg, "admin") != NULL);
  EG_CHECK_INT(eg_auth_check(a, "Bearer tok-admin", "engram.v1.Admin/Erase", "acme", &role, &e),
               EG_OK);
  EG_CHECK_INT(role, EG_ROLE_ADMIN);
  EG_CHECK_INT(eg_auth_check(a, "Bearer tok-admin", "engram.v1.Vector/Erase", "globex", NULL, &e),
               EG_EPERM);
  EG_CHECK_INT(eg_auth_check(a, "Bearer svc", "engram.v1.Graph/Erase", "globex", &role, &e), EG_OK);
  EG_CHECK_INT(role, EG_ROLE_SERVICE);
  /* retention: Admin's methods and the stores' policy changes are admin's; reads are not */
  EG_CHECK_INT(eg_auth_check(a, "Bearer tok-a", "engram.v1.Admin/GetRetention", "acme", NULL, &e),
               EG_EPERM);
  EG_CHECK_INT(
      eg_auth_check(a, "Bearer tok-a", "engram.v1.Graph/SetRetentionPolicy", "acme", NULL, &e),
      EG_EPERM);
  EG_CHECK_INT(
      eg_auth_check(a, "Bearer tok-a", "engram.v1.Vector/SweepRetention", "acme", NULL, &e),
      EG_EPERM);
  EG_CHECK_INT(eg_auth_check(a, "Bearer tok-a", "engram.v1.Graph/GetRetention", "acme", NULL, &e),
               EG_OK);
  EG_CHECK_INT(
      eg_auth_check(a, "Bearer tok-admin", "engram.v1.Admin/SetRetentionPolicy", "acme", NULL, &e),
      EG_OK);
  /* an unset tenant passes to the handler, which refuses it */
  EG_CHECK_INT(eg_auth_check(a, "Bearer tok-b", "engram.v1.Graph/State", "", NULL, &e), EG_OK);
  /* header forms */
  EG_CHECK_INT(eg_auth_check(a, NULL, "engram.v1.Graph/State", "acme", NULL, &e), EG_EUNAUTH);
  EG_CHECK_INT(eg_auth_check(a, "", "engram.v1.Graph/State", "acme", NULL, &e), EG_EUNAUTH);
  EG_CHECK_INT(eg_auth_check(a, "tok-a", "engram.v1.Graph/State", "acme", NULL, &e), EG_EUNAUTH);
  EG_CHECK_INT(eg_auth_check(a, "Basic tok-a", "engram.v1.Graph/State", "acme", NULL, &e),
               EG_EUNAUTH);
  EG_CHECK_INT(eg_auth_check(a, "Bearer ", "engram.v1.Graph/State", "acme", NULL, &e), EG_EUNAUTH);
  EG_CHECK_INT(eg_auth_check(a, "Bearer tok-a ", "engram.v1.Graph/State", "acme", NULL, &e),
               EG_EUNAUTH);
  EG_CHECK_INT(eg_auth_check(a, "Bearer tok-", "engram.v1.Graph/State", "acme", NULL, &e),
               EG_EUNAUTH);
  EG_CHECK(strstr(e.msg, "tok-") == NULL); /* never echoes the token */
  eg_auth_free(a);
}

static void test_bad_lines(void) {
  char l[300];
  eg_err e;
  EG_CHECK(open_inline("acme tok-a", "", &e) == NULL); /* in clear */
  EG_CHECK(strstr(e.msg, "sha256") != NULL && strstr(e.msg, "line 1") != NULL);
  snprintf(l, sizeof l, "acme %s\nacme %.60s", da, db); /* short digest on line 2 */
  EG_CHECK(open_inline(l, "", &e) == NULL);
  EG_CHECK(strstr(e.msg, "line 2") != NULL);
  snprintf(l, sizeof l, "acme %s owner", da);
  EG_CHECK(open_inline(l, "", &e) == NULL);
  snprintf(l, sizeof l, "* %s", da); /* '*' only as service */
  EG_CHECK(open_inline(l, "", &e) == NULL);
  snprintf(l, sizeof l, "acme %s service", da);
  EG_CHECK(open_inline(l, "", &e) == NULL);
  snprintf(l, sizeof l, "acme %s user extra", da);
  EG_CHECK(open_inline(l, "", &e) == NULL);
  snprintf(l, sizeof l, "ac\x01me %s", da);
  EG_CHECK(open_inline(l, "", &e) == NULL);
  memcpy(l, "acme sha256:", 12);
  memset(l + 12, 'g', 64);
  l[76] = 0;
  EG_CHECK(open_inline(l, "", &e) == NULL);
  EG_CHECK(open_inline("# nothing\n", "", &e) == NULL);
  EG_CHECK_INT(e.code, EG_EPRECOND);
  snprintf(l, sizeof l, "* %s service", da);
  eg_auth *a = open_inline(l, "", &e);
  EG_CHECK(a != NULL);
  EG_CHECK_INT(eg_auth_check(a, "Bearer tok-a", "engram.v1.Graph/Erase", "any", NULL, &e), EG_OK);
  eg_auth_free(a);
}

static void test_reload(void) {
  char *dir = eg_test_tempdir("engram-auth-unit");
  char path[600];
  snprintf(path, sizeof path, "%s/tokens", dir);
  FILE *f = fopen(path, "w");
  fprintf(f, "acme %s\n", da);
  fclose(f);
  eg_auth_opts o = {path, "", ""};
  eg_auth *a = NULL;
  eg_err e;
  EG_REQUIRE(eg_auth_open(&o, &a, &e) == EG_OK);
  EG_CHECK_INT(eg_auth_check(a, "Bearer tok-a", "x/State", "acme", NULL, &e), EG_OK);
  f = fopen(path, "w");
  fprintf(f, "acme %s\n", db);
  fclose(f);
  EG_CHECK_INT(eg_auth_reload(a, &e), EG_OK);
  EG_CHECK_INT(eg_auth_check(a, "Bearer tok-a", "x/State", "acme", NULL, &e), EG_EUNAUTH);
  EG_CHECK_INT(eg_auth_check(a, "Bearer tok-b", "x/State", "acme", NULL, &e), EG_OK);
  f = fopen(path, "w");
  fprintf(f, "acme tok-c\n");
  fclose(f);
  EG_CHECK_INT(eg_auth_reload(a, &e), EG_EINVAL);
  EG_CHECK_INT(eg_auth_check(a, "Bearer tok-b", "x/State", "acme", NULL, &e), EG_OK);
  unlink(path);
  EG_CHECK_INT(eg_auth_reload(a, &e), EG_EINVAL);
  EG_CHECK_INT(eg_auth_check(a, "Bearer tok-b", "x/State", "acme", NULL, &e), EG_OK);
  eg_auth_free(a);
  eg_test_rmtree(dir);
  free(dir);
}

/* A tenant with bytes that would end the field is written with %XX escapes, and the
 * line grants exactly that tenant. */
static void test_tenant_escapes(void) {
  const char *odd = "acme corp#1;x%*\"\\é";
  char field[128], small[10], l[300];
  EG_CHECK(!eg_auth_tenant_field(odd, small, sizeof small));
  EG_REQUIRE(eg_auth_tenant_field(odd, field, sizeof field));
  EG_CHECK_STR(field, "acme%20corp%231%3Bx%25%2A%22%5Cé");
  snprintf(l, sizeof l, "%s %s", field, da);
  eg_err e;
  eg_auth *a = open_inline(l, "", &e);
  EG_REQUIRE(a != NULL);
  EG_CHECK_INT(eg_auth_check(a, "Bearer tok-a", "engram.v1.Graph/State", odd, NULL, &e), EG_OK);
  EG_CHECK_INT(eg_auth_check(a, "Bearer tok-a", "engram.v1.Graph/State", "acme", NULL, &e),
               EG_EPERM);
  EG_CHECK_INT(eg_auth_check(a, "Bearer tok-a", "engram.v1.Graph/State", field, NULL, &e),
               EG_EPERM);
  eg_auth_free(a);
  /* "%2A" is a tenant named "*", for a user token, not every tenant */
  snprintf(l, sizeof l, "%%2A %s", da);
  EG_REQUIRE((a = open_inline(l, "", &e)) != NULL);
  EG_CHECK_INT(eg_auth_check(a, "Bearer tok-a", "engram.v1.Graph/State", "*", NULL, &e), EG_OK);
  EG_CHECK_INT(eg_auth_check(a, "Bearer tok-a", "engram.v1.Graph/State", "globex", NULL, &e),
               EG_EPERM);
  eg_auth_free(a);
  /* a '%' that starts no escape, an escaped NUL, an escaped control byte */
  const char *bad[] = {"ac%2", "ac%zzme", "ac%00me", "ac%09me", "acme%"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    snprintf(l, sizeof l, "%s %s", bad[i], da);
    EG_CHECK(open_inline(l, "", &e) == NULL);
    EG_CHECK(strstr(e.msg, "line 1") != NULL);
  }
}

int main(void) {
  digests();
  EG_RUN(test_digest);
  EG_RUN(test_check);
  EG_RUN(test_bad_lines);
  EG_RUN(test_reload);
  EG_RUN(test_tenant_escapes);
  return eg_test_finish();
}
