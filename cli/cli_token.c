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

static void print_line(const eg_cli *cli, const char *token, bool show_token) {
  const char *tenant = eg_cfg_str(cli->cfg, "tenant"), *role = eg_cfg_str(cli->cfg, "role");
  char digest[72];
  eg_auth_digest_line(token, digest);
  bool service = !strcmp(role, "service");
  char line[400];
  snprintf(line, sizeof line, "%s %s %s", service ? "*" : tenant, digest, role);
  if (cli->json)
    printf("{\"token\": \"%s\", \"line\": \"%s\"}\n", show_token ? token : "", line);
  else if (show_token)
    printf("token: %s\nline:  %s\n", token, line);
  else
    printf("%s\n", line);
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
  print_line(cli, token, true);
  return 0;
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
  print_line(cli, token, false);
  return 0;
}

int eg_cli_token(const eg_cli *cli, int argc, char **argv) {
  static const eg_cli_sub subs[] = {{"new", token_new}, {"hash", token_hash}};
  return eg_cli_dispatch(cli, argc, argv, subs, 2,
                         "usage: engram token new|hash [--tenant T] [--role user|admin|service]\n"
                         "  new   a random token and its line for the tokens file\n"
                         "  hash  the line of a token read from stdin\n");
}
