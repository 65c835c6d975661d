/* test_cfg.c — precedence defaults < file < env < flags, typing, errors. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/cfg.h"
#include "tests/testlib.h"

static const eg_cfg_opt opts[] = {
    {"grpc_addr", EG_CFG_STR, "127.0.0.1:7102", "addr", 0, 0, 0},
    {"workers", EG_CFG_INT, "4", "workers", 0, 1, 64},
    {"max_message_bytes", EG_CFG_INT, "4m", "size", 0, 0, 0},
    {"verbose", EG_CFG_BOOL, "false", "bool", 0, 0, 0},
    {"ratio", EG_CFG_DOUBLE, "0.5", "double", 0, 0, 0},
    {"token", EG_CFG_STR, "", "secret", EG_CFG_SECRET, 0, 0},
    {"id", EG_CFG_STR, "", "list", EG_CFG_LIST, 0, 0},
};

static eg_code load(int argc, char **argv, char **envp, eg_cfg **out, eg_err *err) {
  const eg_cfg_opt *t[1] = {opts};
  size_t n[1] = {sizeof opts / sizeof *opts};
  return eg_cfg_load(t, n, 1, argc, argv, envp, out, err);
}

static char *write_file(const char *text) {
  char *path = strdup("/tmp/engram-cfg-XXXXXX");
  int fd = mkstemp(path);
  FILE *f = fdopen(fd, "w");
  fputs(text, f);
  fclose(f);
  return path;
}

static void test_defaults(void) {
  char *argv[] = {"d", NULL};
  char *env[] = {NULL};
  eg_cfg *c;
  eg_err e;
  EG_REQUIRE(load(1, argv, env, &c, &e) == EG_OK);
  EG_CHECK_STR(eg_cfg_str(c, "grpc_addr"), "127.0.0.1:7102");
  EG_CHECK_INT(eg_cfg_int(c, "workers"), 4);
  EG_CHECK_INT(eg_cfg_int(c, "max_message_bytes"), 4 * 1024 * 1024);
  EG_CHECK(!eg_cfg_bool(c, "verbose"));
  EG_CHECK(eg_cfg_double(c, "ratio") == 0.5);
  EG_CHECK_INT(eg_cfg_source_of(c, "workers"), EG_CFG_FROM_DEFAULT);
  eg_cfg_free(c);
}

/* A list flag keeps every value given on the command line, replacing the env's. */
static void test_list_flag(void) {
  char *env[] = {"ENGRAM_ID=9", NULL};
  char *argv[] = {"d", "--id", "1", "--id=2,3", "--workers", "2", "--workers", "3", NULL};
  eg_cfg *c;
  eg_err e;
  EG_REQUIRE(load(8, argv, env, &c, &e) == EG_OK);
  EG_CHECK_STR(eg_cfg_str(c, "id"), "1,2,3");
  EG_CHECK_INT(eg_cfg_int(c, "workers"), 3); /* other flags: the last wins */
  eg_cfg_free(c);
  char *argv1[] = {"d", NULL};
  EG_REQUIRE(load(1, argv1, env, &c, &e) == EG_OK);
  EG_CHECK_STR(eg_cfg_str(c, "id"), "9");
  eg_cfg_free(c);
}

static void test_precedence(void) {
  char *file = write_file(
      "# comment\nworkers = 8\ngrpc_addr = \"0.0.0.0:1\"\nratio = 2 # x\n"
      "verbose = yes\n");
  char cfgenv[300];
  snprintf(cfgenv, sizeof cfgenv, "ENGRAM_CONFIG=%s", file);
  char *env[] = {cfgenv, "ENGRAM_WORKERS=16", "OTHER=1", NULL};
  char *argv[] = {"d", "--ratio=3.5", "pos1", "--no-verbose", "pos2", NULL};
  eg_cfg *c;
  eg_err e;
  EG_REQUIRE(load(5, argv, env, &c, &e) == EG_OK);
  EG_CHECK_STR(eg_cfg_str(c, "grpc_addr"), "0.0.0.0:1"); /* file */
  EG_CHECK_INT(eg_cfg_source_of(c, "grpc_addr"), EG_CFG_FROM_FILE);
  EG_CHECK_INT(eg_cfg_int(c, "workers"), 16); /* env beats file */
  EG_CHECK_INT(eg_cfg_source_of(c, "workers"), EG_CFG_FROM_ENV);
  EG_CHECK(eg_cfg_double(c, "ratio") == 3.5); /* flag beats file */
  EG_CHECK(!eg_cfg_bool(c, "verbose"));       /* --no-verbose beats file */
  char **args;
  EG_CHECK_INT(eg_cfg_args(c, &args), 2);
  EG_CHECK_STR(args[0], "pos1");
  EG_CHECK_STR(args[1], "pos2");
  eg_cfg_free(c);
  /* flag beats env, with --config on the command line */
  char flagcfg[300];
  snprintf(flagcfg, sizeof flagcfg, "--config=%s", file);
  char *env2[] = {"ENGRAM_WORKERS=16", NULL};
  char *argv2[] = {"d", flagcfg, "--workers", "32", "--verbose", NULL};
  EG_REQUIRE(load(5, argv2, env2, &c, &e) == EG_OK);
  EG_CHECK_INT(eg_cfg_int(c, "workers"), 32);
  EG_CHECK(eg_cfg_bool(c, "verbose"));
  EG_CHECK_STR(eg_cfg_str(c, "grpc_addr"), "0.0.0.0:1");
  eg_cfg_free(c);
  remove(file);
  free(file);
}

static void test_errors(void) {
  eg_cfg *c = NULL;
  eg_err e;
  char *env[] = {NULL};
  char *a1[] = {"d", "--nope", "1", NULL};
  EG_CHECK_INT(load(3, a1, env, &c, &e), EG_EINVAL);
  EG_CHECK(strstr(e.msg, "unknown flag") != NULL);
  char *a2[] = {"d", "--workers", "many", NULL};
  EG_CHECK_INT(load(3, a2, env, &c, &e), EG_EINVAL);
  EG_CHECK(strstr(e.msg, "integer") != NULL);
  char *a3[] = {"d", "--workers", "65", NULL};
  EG_CHECK_INT(load(3, a3, env, &c, &e), EG_EINVAL);
  EG_CHECK(strstr(e.msg, "[1, 64]") != NULL);
  char *a4[] = {"d", "--grpc-addr", NULL};
  EG_CHECK_INT(load(2, a4, env, &c, &e), EG_EINVAL);
  char *env2[] = {"ENGRAM_VERBOSE=maybe", NULL};
  char *a5[] = {"d", NULL};
  EG_CHECK_INT(load(1, a5, env2, &c, &e), EG_EINVAL);
  EG_CHECK(strstr(e.msg, "ENGRAM_VERBOSE") != NULL);
  char *file = write_file("workers = 2\ntypo_option = 1\n");
  char flag[300];
  snprintf(flag, sizeof flag, "--config=%s", file);
  char *a6[] = {"d", flag, NULL};
  EG_CHECK_INT(load(2, a6, env, &c, &e), EG_EINVAL);
  EG_CHECK(strstr(e.msg, "line 2") != NULL && strstr(e.msg, "typo_option") != NULL);
  remove(file);
  free(file);
  char *a7[] = {"d", "--config=/nonexistent/engram.conf", NULL};
  EG_CHECK_INT(load(2, a7, env, &c, &e), EG_EINVAL);
}

/* eg_cfg_int_in: an int option's syntax, within bounds, nothing else. */
static void test_int_in(void) {
  int64_t v = -1;
  EG_CHECK(eg_cfg_int_in("42", 1, 100, &v) && v == 42);
  EG_CHECK(eg_cfg_int_in("2k", 1, 4096, &v) && v == 2048);
  EG_CHECK(eg_cfg_int_in("1", 1, 1, &v) && v == 1);
  v = 7;
  EG_CHECK(!eg_cfg_int_in("0", 1, 100, &v));
  EG_CHECK(!eg_cfg_int_in("101", 1, 100, &v));
  EG_CHECK(!eg_cfg_int_in("1O", 1, 100, &v));
  EG_CHECK(!eg_cfg_int_in("--help", 1, 100, &v));
  EG_CHECK(!eg_cfg_int_in("", 1, 100, &v));
  EG_CHECK(!eg_cfg_int_in(NULL, 1, 100, &v));
  EG_CHECK(!eg_cfg_int_in("99999999999999999999", 1, 100, &v));
  EG_CHECK_INT(v, 7); /* untouched on failure */
}

static void test_help_and_secret(void) {
  char *env[] = {"ENGRAM_TOKEN=s3cret", NULL};
  char *argv[] = {"d", "--help", NULL};
  eg_cfg *c;
  eg_err e;
  EG_REQUIRE(load(2, argv, env, &c, &e) == EG_OK);
  EG_CHECK(eg_cfg_help_requested(c));
  EG_CHECK_STR(eg_cfg_str(c, "token"), "s3cret");
  /* The logged config must not contain the secret. */
  char path[] = "/tmp/engram-cfglog-XXXXXX";
  int fd = mkstemp(path);
  fflush(stderr);
  int saved = dup(2);
  dup2(fd, 2);
  eg_cfg_log(c, "config");
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  FILE *f = fdopen(fd, "r");
  fseek(f, 0, SEEK_SET);
  char text[8192] = {0};
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  remove(path);
  EG_CHECK(n > 0);
  EG_CHECK(strstr(text, "s3cret") == NULL);
  EG_CHECK(strstr(text, "name=token value=\"***\" source=env") != NULL);
  EG_CHECK(strstr(text, "name=workers value=\"4\" source=default") != NULL);
  eg_cfg_free(c);
}

int main(void) {
  EG_RUN(test_defaults);
  EG_RUN(test_list_flag);
  EG_RUN(test_precedence);
  EG_RUN(test_errors);
  EG_RUN(test_help_and_secret);
  EG_RUN(test_int_in);
  return eg_test_finish();
}
