/*
 * cli_util.c — pieces every subcommand uses: scope from the options, times, JSON input
 * and output, one RPC call with error reporting.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/scope.h"
#include "common/time.h"

Engram__V1__Scope *eg_cli_scope(const eg_cli *cli, eg_arena *a) {
  Engram__V1__Scope *s = eg_arena_calloc(a, 1, sizeof *s);
  engram__v1__scope__init(s);
  s->tenant = (char *)eg_cfg_str(cli->cfg, "tenant");
  s->user = (char *)eg_cfg_str(cli->cfg, "user");
  s->agent = (char *)eg_cfg_str(cli->cfg, "agent");
  return s;
}

int eg_cli_time(const eg_cli *cli, const char *option, int64_t *out) {
  const char *v = eg_cfg_str(cli->cfg, option);
  *out = 0;
  if (!*v) return 0;
  eg_err e;
  if (eg_time_parse(v, out, &e)) {
    fprintf(stderr, "engram: --%s: %s\n", option, e.msg);
    return -1;
  }
  return 0;
}

void eg_cli_format_time(int64_t us, char *buf, size_t len) {
  if (!us)
    snprintf(buf, len, "-");
  else
    eg_time_format_auto(us, buf, len);
}

char *eg_cli_read_input(const char *arg, eg_arena *a) {
  if (arg[0] != '@' && strcmp(arg, "-") != 0) return eg_arena_strdup(a, arg);
  FILE *f = strcmp(arg, "-") == 0 ? stdin : fopen(arg + 1, "r");
  if (!f) {
    fprintf(stderr, "engram: cannot open %s\n", arg + 1);
    return NULL;
  }
  eg_buf b = EG_BUF_INIT;
  b.max = (size_t)1 << 30;
  char chunk[65536];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) eg_buf_append(&b, chunk, n);
  if (f != stdin) fclose(f);
  char *s = eg_arena_strndup(a, b.data ? b.data : "", b.len);
  eg_buf_free(&b);
  return s;
}

char *eg_cli_read_file(const char *path, eg_arena *a) {
  return eg_cli_read_input(strcmp(path, "-") == 0 ? "-" : eg_arena_sprintf(a, "@%s", path), a);
}

ProtobufCMessage *eg_cli_read_request(const eg_cli *cli, const char *path,
                                      const ProtobufCMessageDescriptor *desc, eg_arena *a) {
  char *text = eg_cli_read_file(path, a);
  ProtobufCMessage *m =
      text ? eg_cli_parse_json(strcmp(path, "-") == 0 ? "stdin" : path, text, desc, a) : NULL;
  if (m) eg_scope_default(m, eg_cli_scope(cli, a));
  return m;
}

void eg_cli_call(const eg_cli *cli, const char *daemon, eg_rpc_request call) {
  if (call.out) memset(call.out, 0, sizeof(ProtobufCMessage *)); /* NULL until it answers */
  call.client = eg_cli_connect(cli, eg_cli_daemon_addr(cli, daemon));
  if (!call.client) return;
  eg_err e;
  if (eg_rpc_run(&call, 0, &e) != EG_OK)
    fprintf(stderr, "engram: %s: %s: %s\n", call.method, eg_code_name(e.code), e.msg);
  eg_rpc_client_close(call.client);
}

void eg_cli_print_warnings(char *const *warnings, size_t n) {
  for (size_t i = 0; i < n; i++) fprintf(stderr, "engram: warning: %s\n", warnings[i]);
}

bool eg_cli_progress(const eg_cli *cli) {
  const char *bar = eg_cfg_str(cli->cfg, "progress");
  return strcmp(bar, "on") == 0 || (strcmp(bar, "auto") == 0 && isatty(2));
}

void eg_cli_print_json(const ProtobufCMessage *m) {
  eg_buf b = EG_BUF_INIT;
  eg_pbjson_write(m, EG_PBJSON_ISO_TIMES | EG_PBJSON_PRETTY, &b);
  printf("%s\n", b.data ? b.data : "{}");
  eg_buf_free(&b);
}

ProtobufCMessage *eg_cli_parse_json(const char *source, const char *text,
                                    const ProtobufCMessageDescriptor *desc, eg_arena *a) {
  cJSON *j = NULL;
  eg_err e;
  if (eg_pbjson_parse(text, &j, &e)) {
    fprintf(stderr,
            "engram: %s: %s (one JSON %s; several requests, one per line, go to `engram ingest "
            "bulk`)\n",
            source, e.msg, desc->short_name);
    return NULL;
  }
  ProtobufCMessage *m = NULL;
  if (eg_pbjson_read(desc, j, a, &m, &e)) {
    fprintf(stderr, "engram: %s: %s\n", source, e.msg);
    m = NULL;
  }
  cJSON_Delete(j);
  return m;
}

int eg_cli_dispatch(const eg_cli *cli, int argc, char **argv, const eg_cli_sub *sub, size_t n,
                    const char *usage) {
  for (size_t i = 0; argc >= 2 && i < n; i++) {
    if (strcmp(argv[1], sub[i].name) != 0) continue;
    eg_arena *a = eg_arena_new(0, 0);
    int rc = sub[i].fn(cli, argc - 1, argv + 1, a);
    eg_arena_free(a);
    return rc;
  }
  if (argc >= 2) fprintf(stderr, "engram %s: unknown subcommand '%s'\n", argv[0], argv[1]);
  fprintf(stderr, "usage: %s\n", usage);
  return 2;
}
