/*
 * auth.c — the token table (see auth.h).
 *
 * The table is an array of (digest, tenant, role), replaced whole on reload under a
 * write lock; checks take the read lock. A check hashes the presented token once and
 * compares it with every digest using CRYPTO_memcmp, remembering the match without
 * leaving the loop.
 */
#include "common/auth.h"

#include <ctype.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/scope.h"

typedef struct entry {
  unsigned char digest[32];
  char tenant[EG_SCOPE_FIELD_MAX + 1]; /* "*" for service tokens */
  eg_role role;
} entry;

typedef struct table {
  entry *e;
  int n;
} table;

struct eg_auth {
  pthread_rwlock_t lock;
  table t;
  char *tokens_file, *tokens, *service_token;
};

static void sha256(const char *s, size_t n, unsigned char out[32]) {
  unsigned int len = 32;
  EVP_Digest(s, n, out, &len, EVP_sha256(), NULL);
}

void eg_auth_digest_line(const char *token, char out[72]) {
  unsigned char d[32];
  sha256(token, strlen(token), d);
  memcpy(out, "sha256:", 7);
  for (int i = 0; i < 32; i++) snprintf(out + 7 + 2 * i, 3, "%02x", d[i]);
}

static int hexval(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = tolower(c);
  return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static bool escaped_in_field(unsigned char c) {
  return c <= 0x20 || c == 0x7f || strchr("#;%*\"\\", c);
}

bool eg_auth_tenant_field(const char *tenant, char *out, size_t len) {
  size_t o = 0;
  for (const unsigned char *p = (const unsigned char *)tenant; *p; p++) {
    if (o + 4 > len) return false;
    if (escaped_in_field(*p))
      o += (size_t)snprintf(out + o, 4, "%%%02X", *p);
    else
      out[o++] = (char)*p;
  }
  if (o + 1 > len) return false;
  out[o] = 0;
  return true;
}

/* %XX escapes of the tenant field decoded in place; false on a '%' without two hex digits. */
static bool unescape_field(char *s) {
  char *o = s;
  for (char *p = s; *p; p++) {
    if (*p != '%') {
      *o++ = *p;
      continue;
    }
    int hi = hexval(p[1]), lo = hi < 0 ? -1 : hexval(p[2]);
    if (lo < 0 || (hi == 0 && lo == 0)) return false;
    *o++ = (char)(hi << 4 | lo);
    p += 2;
  }
  *o = 0;
  return true;
}

static eg_code add(table *t, const entry *e, eg_err *err) {
  entry *ne = realloc(t->e, (size_t)(t->n + 1) * sizeof *ne);
  if (!ne) return eg_err_set(err, EG_ENOMEM, "out of memory");
  t->e = ne;
  t->e[t->n++] = *e;
  return EG_OK;
}

/* One line: "<tenant> sha256:<hex> [role]" (the tenant with %XX escapes, see
 * eg_auth_tenant_field). Blank and comment lines add nothing. */
static eg_code parse_line(table *t, char *line, const char *where, int lineno, eg_err *err) {
  char *hash = strchr(line, '#');
  if (hash) *hash = 0;
  char *f[4] = {0};
  int nf = 0;
  for (char *save = NULL, *tok = strtok_r(line, " \t\r\n", &save); tok;
       tok = strtok_r(NULL, " \t\r\n", &save)) {
    if (nf == 3)
      return eg_err_set(err, EG_EINVAL, "%s line %d: more than three fields", where, lineno);
    f[nf++] = tok;
  }
  if (nf == 0) return EG_OK;
  if (nf < 2)
    return eg_err_set(err, EG_EINVAL, "%s line %d: want '<tenant> sha256:<hex> [role]'", where,
                      lineno);
  entry e = {{0}, "", EG_ROLE_USER};
  if (strncmp(f[1], "sha256:", 7) != 0 || strlen(f[1]) != 7 + 64)
    return eg_err_set(
        err, EG_EINVAL,
        "%s line %d: the token must be stored as sha256:<64 hex digits> (never in clear; "
        "`engram token new` prints one)",
        where, lineno);
  for (int i = 0; i < 32; i++) {
    int hi = hexval(f[1][7 + 2 * i]), lo = hexval(f[1][8 + 2 * i]);
    if (hi < 0 || lo < 0)
      return eg_err_set(err, EG_EINVAL, "%s line %d: bad hex digit in the digest", where, lineno);
    e.digest[i] = (unsigned char)(hi << 4 | lo);
  }
  if (nf == 3) {
    if (!strcmp(f[2], "user"))
      e.role = EG_ROLE_USER;
    else if (!strcmp(f[2], "admin"))
      e.role = EG_ROLE_ADMIN;
    else if (!strcmp(f[2], "service"))
      e.role = EG_ROLE_SERVICE;
    else
      return eg_err_set(err, EG_EINVAL, "%s line %d: role must be user, admin or service", where,
                        lineno);
  }
  bool any = !strcmp(f[0], "*"); /* "%2A" is a tenant named "*" */
  if (any != (e.role == EG_ROLE_SERVICE))
    return eg_err_set(err, EG_EINVAL, "%s line %d: tenant '*' goes with role service, and only it",
                      where, lineno);
  if (!unescape_field(f[0]))
    return eg_err_set(err, EG_EINVAL,
                      "%s line %d: '%%' in the tenant must start an escape like %%20", where,
                      lineno);
  Engram__V1__Scope s = ENGRAM__V1__SCOPE__INIT;
  s.tenant = f[0];
  eg_err serr;
  if (!any && eg_scope_fields_check(&s, &serr))
    return eg_err_set(err, EG_EINVAL, "%s line %d: %s", where, lineno, serr.msg);
  snprintf(e.tenant, sizeof e.tenant, "%s", f[0]);
  return add(t, &e, err);
}

static eg_code parse_text(table *t, char *text, const char *where, eg_err *err) {
  int lineno = 0;
  for (char *save = NULL, *line = strtok_r(text, "\n;", &save); line;
       line = strtok_r(NULL, "\n;", &save)) {
    lineno++;
    eg_code rc = parse_line(t, line, where, lineno, err);
    if (rc) return rc;
  }
  return EG_OK;
}

static eg_code load(const eg_auth *a, table *t, eg_err *err) {
  eg_code rc = EG_OK;
  eg_buf b = EG_BUF_INIT;
  if (*a->tokens_file) {
    rc = eg_buf_read_file(&b, a->tokens_file, err);
    if (rc) {
      eg_err_prefix(err, "auth_tokens_file: ");
      rc = err->code = EG_EINVAL;
    }
    if (!rc) rc = eg_buf_append(&b, "", 1);
    if (!rc) rc = parse_text(t, b.data, a->tokens_file, err);
  }
  if (!rc && *a->tokens) {
    eg_buf_reset(&b);
    rc = eg_buf_puts(&b, a->tokens);
    if (!rc) rc = eg_buf_append(&b, "", 1);
    if (!rc) rc = parse_text(t, b.data, "auth_tokens", err);
  }
  if (!rc && *a->service_token) {
    entry e = {{0}, "*", EG_ROLE_SERVICE};
    sha256(a->service_token, strlen(a->service_token), e.digest);
    rc = add(t, &e, err);
  }
  eg_buf_free(&b);
  if (!rc && t->n == 0)
    rc = eg_err_set(err, EG_EPRECOND,
                    "no tokens configured: set auth_tokens_file, auth_tokens or service_token, "
                    "or pass --insecure-no-auth for local development");
  return rc;
}

eg_code eg_auth_open(const eg_auth_opts *o, eg_auth **out, eg_err *err) {
  eg_auth *a = calloc(1, sizeof *a);
  if (!a) return eg_err_set(err, EG_ENOMEM, "out of memory");
  a->tokens_file = strdup(o->tokens_file ? o->tokens_file : "");
  a->tokens = strdup(o->tokens ? o->tokens : "");
  a->service_token = strdup(o->service_token ? o->service_token : "");
  pthread_rwlock_init(&a->lock, NULL);
  eg_code rc = !a->tokens_file || !a->tokens || !a->service_token
                   ? eg_err_set(err, EG_ENOMEM, "out of memory")
                   : load(a, &a->t, err);
  if (rc) {
    eg_auth_free(a);
    return rc;
  }
  *out = a;
  return EG_OK;
}

eg_code eg_auth_reload(eg_auth *a, eg_err *err) {
  table t = {0};
  eg_code rc = load(a, &t, err);
  if (rc) {
    free(t.e);
    return rc;
  }
  pthread_rwlock_wrlock(&a->lock);
  table old = a->t;
  a->t = t;
  pthread_rwlock_unlock(&a->lock);
  OPENSSL_cleanse(old.e, (size_t)old.n * sizeof *old.e);
  free(old.e);
  return EG_OK;
}

void eg_auth_free(eg_auth *a) {
  if (!a) return;
  free(a->t.e);
  if (a->service_token) OPENSSL_cleanse(a->service_token, strlen(a->service_token));
  free(a->tokens_file);
  free(a->tokens);
  free(a->service_token);
  pthread_rwlock_destroy(&a->lock);
  free(a);
}

int eg_auth_count(eg_auth *a) {
  pthread_rwlock_rdlock(&a->lock);
  int n = a->t.n;
  pthread_rwlock_unlock(&a->lock);
  return n;
}

bool eg_auth_admin_method(const char *method) {
  const char *slash = method ? strrchr(method, '/') : NULL;
  if (!slash) return false;
  /* every Admin method; on the stores, the erasures and the retention policy's changes */
  static const char admin[] = "engram.v1.Admin/";
  const char *m = method[0] == '/' ? method + 1 : method;
  return !strncmp(m, admin, sizeof admin - 1) || !strcmp(slash, "/Erase") ||
         !strcmp(slash, "/SetRetentionPolicy") || !strcmp(slash, "/SweepRetention");
}

eg_code eg_auth_check(eg_auth *a, const char *authorization, const char *method, const char *tenant,
                      eg_role *role, eg_err *err) {
  if (!authorization || !*authorization)
    return eg_err_set(err, EG_EUNAUTH, "missing 'authorization: Bearer <token>' metadata");
  if (strncasecmp(authorization, "Bearer ", 7) != 0 || !authorization[7])
    return eg_err_set(err, EG_EUNAUTH, "the authorization metadata must be 'Bearer <token>'");
  const char *tok = authorization + 7;
  unsigned char d[32];
  sha256(tok, strlen(tok), d);
  pthread_rwlock_rdlock(&a->lock);
  int found = -1;
  for (int i = 0; i < a->t.n; i++) {
    int same = CRYPTO_memcmp(d, a->t.e[i].digest, 32) == 0;
    found = same && found < 0 ? i : found;
  }
  eg_code rc = EG_OK;
  if (found < 0) {
    rc = eg_err_set(err, EG_EUNAUTH, "unknown token");
  } else {
    const entry *e = &a->t.e[found];
    if (role) *role = e->role;
    if (e->role != EG_ROLE_SERVICE) {
      if (tenant && *tenant && strcmp(tenant, e->tenant) != 0)
        rc = eg_err_set(err, EG_EPERM, "this token is not valid for tenant \"%.64s\"", tenant);
      else if (e->role != EG_ROLE_ADMIN && eg_auth_admin_method(method))
        rc = eg_err_set(err, EG_EPERM, "%s needs an admin token", method);
    }
  }
  pthread_rwlock_unlock(&a->lock);
  return rc;
}
