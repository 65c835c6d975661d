/*
 * cli_token.c — `engram token new|hash`: make bearer tokens and the lines that grant them.
 *
 * The daemons keep only digests (common/auth.h). `new` prints a fresh random token once
 * (give it to the caller) and its line for the tokens file; `hash` prints the line of a
 * token read from stdin.
 */
#include <openssl/rand.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "common/auth.h"
#include "common/scope.h"

/* The tenant checked as a request's would be, then the line; 2 when the tenant cannot be one. */
static int print_line(const eg_cli *cli, const char *token, bool show_token) {
  const char *tenant = eg_cfg_str(cli->cfg, "tenant"), *role = eg_cfg_str(cli->cfg, "role");
  bool service = !strcmp(role, "service");
  Engram__V1__Scope s = ENGRAM__V1__SCOPE__INIT;
  s.tenant = (char *)tenant;
  eg_err err;
  char field[3 * EG_SCOPE_FIELD_MAX + 1], line[sizeof field + 100], digest[72];
  if (!service && eg_scope_fields_check(&s, &err)) {
    fprintf(stderr, "engram: --tenant: %s\n", err.msg);
    return 2;
  }
  eg_auth_tenant_field(service ? "" : tenant, field,
                       sizeof field); /* fits: at most 3 bytes a byte */
  eg_auth_digest_line(token, digest);
  snprintf(line, sizeof line, "%s %s %s", service ? "*" : field, digest, role);
  if (cli->json)
    printf("{\"token\": \"%s\", \"line\": \"%s\"}\n", show_token ? token : "", line);
  else if (show_token)
    printf("token: %s\nline:  %s\n", token, line);
  else
    printf("%s\n", line);
  return 0;
}

static bool role_ok(const eg_cli *cli) {
  const char *role = eg_cfg_str(cli->cfg, "role");
  if (!strcmp(role, "user") || !strcmp(role, "admin") || !strcmp(role, "service")) return true;
  fprintf(stderr, "engram: --role must be user, admin or service\n");
  return false;
}

static int token_new(const eg_cli *cli, int argc, char **argv, eg_arena *a) {
  (void)argc, (void)argv, (void)a;
  if (!role_ok(cli)) return 2;
  unsigned char raw[32];
  if (RAND_bytes(raw, sizeof raw) != 1) {
    fprintf(stderr, "engram: no randomness available\n");
    return 1;
  }
  char token[3 + 2 * sizeof raw + 1] = "eg_";
  for (size_t i = 0; i < sizeof raw; i++) snprintf(token + 3 + 2 * i, 3, "%02x", raw[i]);
  return print_line(cli, token, true);
}

static int token_hash(const eg_cli *cli, int argc, char **argv, eg_arena *a) {
  (void)argc, (void)argv, (void)a;
  if (!role_ok(cli)) return 2;
  char token[1024];
  if (!fgets(token, sizeof token, stdin)) {
    fprintf(stderr, "engram: token hash reads the token from stdin\n");
    return 2;
  }
  token[strcspn(token, "\r\n")] = 0;
  if (!*token) {
    fprintf(stderr, "engram: empty token\n");
    return 2;
  }
  return print_line(cli, token, false);
}

int eg_cli_token(const eg_cli *cli, int argc, char **argv) {
  static const eg_cli_sub subs[] = {{"new", token_new}, {"hash", token_hash}};
  return eg_cli_dispatch(cli, argc, argv, subs, 2,
                         "usage: engram token new|hash [--tenant T] [--role user|admin|service]\n"
                         "  new   a random token and its line for the tokens file\n"
                         "  hash  the line of a token read from stdin\n");
}
