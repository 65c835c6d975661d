/*
 * cli_recall.c — `engram recall "question" [--at T] [--known-at T] [--k N]
 * [--budget N] [--session S]`: the context block an agent would get, then its items'
 * kinds, scores and statuses and the time per stage (or everything as JSON with --json).
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "common/recall_client.h"

int eg_cli_recall(const eg_cli *cli, int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr,
            "usage: engram recall \"QUESTION\" [--at T] [--known-at T] [--k N] [--budget N] "
            "[--session S]\n");
    return 2;
  }
  eg_arena *a = eg_arena_new(0, 0);
  Engram__V1__RecallRequest req = ENGRAM__V1__RECALL_REQUEST__INIT;
  req.scope = eg_cli_scope(cli, a);
  req.query = argv[1];
  req.k = (uint32_t)eg_cfg_int(cli->cfg, "k");
  req.token_budget = (uint32_t)eg_cfg_int(cli->cfg, "budget");
  char *session = (char *)eg_cfg_str(cli->cfg, "session");
  if (*session) {
    req.session_ids = &session;
    req.n_session_ids = 1;
  }
  int rc = 2;
  if (eg_cli_time(cli, "at", &req.query_time) || eg_cli_time(cli, "known_at", &req.known_at))
    goto out;
  Engram__V1__RecallResponse *r = NULL;
  eg_cli_call(cli, "recalld", eg_recalld_recall_call(NULL, &req, &r));
  rc = 1;
  if (!r) goto out;
  rc = 0;
  if (cli->json) {
    eg_cli_print_json(&r->base);
  } else {
    printf("%s\n", r->context);
    static const char *kinds[] = {"?", "chunk", "fact", "path"};
    static const char *status[] = {"-", "unverified", "corroborated", "POTENTIALLY_STALE"};
    for (size_t i = 0; i < r->n_items; i++) {
      const Engram__V1__RecallItem *it = r->items[i];
      printf("%2zu. %-5s %.3f %-17s %.100s\n", i + 1, kinds[it->kind <= 3 ? it->kind : 0],
             it->score, status[it->status <= 3 ? it->status : 0], it->text);
    }
    printf("%u context tokens%s;", r->context_tokens,
           r->nothing_relevant ? ", nothing relevant" : "");
    for (size_t i = 0; i < r->n_timings; i++)
      printf(" %s %.1f ms", r->timings[i]->stage, (double)r->timings[i]->micros / 1000.0);
    printf("\n");
  }
  protobuf_c_message_free_unpacked(&r->base, NULL);
out:
  eg_arena_free(a);
  return rc;
}
