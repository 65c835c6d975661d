/*
 * fuzz_config.c — the configuration readers: the `name = value` file (with every option
 * type, ranges, size suffixes, quotes and comments), command-line flags, and the token
 * lines of the auth file. The input is split at its first NUL byte: before it the config
 * file, after it flags (one per line); the whole input is also read as token lines.
 * Properties: no crash; a loaded configuration answers every getter within its ranges.
 */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/auth.h"
#include "common/cfg.h"
#include "tests/fuzz/fuzz.h"

static const eg_cfg_opt opts[] = {
    {"grpc_addr", EG_CFG_STR, "127.0.0.1:7101", "address", 0, 0, 0},
    {"workers", EG_CFG_INT, "4", "threads", 0, 1, 256},
    {"max_message_bytes", EG_CFG_INT, "4m", "size", 0, 1024, 1 << 30},
    {"insecure_no_auth", EG_CFG_BOOL, "false", "flag", 0, 0, 0},
    {"bm25_k1", EG_CFG_DOUBLE, "1.2", "double", 0, 0, 0},
    {"service_token", EG_CFG_STR, "", "secret", EG_CFG_SECRET, 0, 0},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const uint8_t *nul = memchr(data, 0, size);
  size_t flen = nul ? (size_t)(nul - data) : size;
  int fd = memfd_create("engram-config", 0);
  if (fd < 0) return 0;
  if (write(fd, data, flen) != (ssize_t)flen) {
    close(fd);
    return 0;
  }
  char config[64];
  snprintf(config, sizeof config, "--config=/proc/self/fd/%d", fd);
  char *rest = NULL;
  char *argv[34] = {"fuzz", config};
  int argc = 2;
  if (nul) {
    rest = strndup((const char *)nul + 1, size - flen - 1);
    for (char *save = NULL, *l = strtok_r(rest, "\n", &save); l && argc < 33;
         l = strtok_r(NULL, "\n", &save))
      argv[argc++] = l;
  }
  argv[argc] = NULL;
  const eg_cfg_opt *tables[1] = {opts};
  size_t sizes[1] = {sizeof opts / sizeof *opts};
  char *envp[] = {NULL};
  eg_cfg *cfg = NULL;
  eg_err e;
  if (eg_cfg_load(tables, sizes, 1, argc, argv, envp, &cfg, &e) == EG_OK) {
    int64_t w = eg_cfg_int(cfg, "workers"), m = eg_cfg_int(cfg, "max_message_bytes");
    eg_fuzz_check(w >= 1 && w <= 256 && m >= 1024 && m <= (1 << 30), "ints within their ranges");
    (void)eg_cfg_bool(cfg, "insecure_no_auth");
    (void)eg_cfg_double(cfg, "bm25_k1");
    eg_fuzz_check(eg_cfg_str(cfg, "grpc_addr") != NULL, "strings set");
    eg_cfg_free(cfg);
  }
  close(fd);
  free(rest);

  char *lines = strndup((const char *)data, size);
  eg_auth_opts ao = {"", lines, ""};
  eg_auth *a = NULL;
  if (eg_auth_open(&ao, &a, &e) == EG_OK) {
    eg_fuzz_check(eg_auth_count(a) > 0, "an opened table has tokens");
    (void)eg_auth_check(a, lines, "engram.v1.Admin/Erase", "t", NULL, &e);
    eg_auth_free(a);
  }
  free(lines);
  return 0;
}
