/*
 * cli_vector.c — `engram vector upsert FILE|-`, `engram vector search TEXT…`,
 * `engram vector delete ID…` against vectord.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/vector_client.h"

static int cmd_upsert(const eg_cli *cli, int argc, char **argv, eg_arena *a) {
  if (argc != 2) {
    fprintf(stderr,
            "usage: engram vector upsert FILE|-   (JSON UpsertRequest; scope from --tenant)\n");
    return 2;
  }
  Engram__V1__UpsertRequest *req =
      (void *)eg_cli_read_request(cli, argv[1], &engram__v1__upsert_request__descriptor, a);
  if (!req) return 2;
  Engram__V1__UpsertResponse *r = NULL;
  eg_cli_call(cli, "vectord", eg_vectord_upsert_call(NULL, req, &r));
  if (!r) return 1;
  if (cli->json)
    eg_cli_print_json(&r->base);
  else
    printf("upserted %zu chunks (%s, %u dims)\n", r->n_ids, r->model_id, r->dim);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  return 0;
}

static int cmd_search(const eg_cli *cli, int argc, char **argv, eg_arena *a) {
  if (argc < 2) {
    fprintf(stderr,
            "usage: engram vector search TEXT… [--k N] [--session S] [--from T] [--to T]\n");
    return 2;
  }
  Engram__V1__SearchRequest req = ENGRAM__V1__SEARCH_REQUEST__INIT;
  req.scope = eg_cli_scope(cli, a);
  req.n_queries = (size_t)argc - 1;
  req.queries = eg_arena_alloc(a, req.n_queries * sizeof *req.queries);
  for (size_t i = 0; i < req.n_queries; i++) {
    req.queries[i] = eg_arena_calloc(a, 1, sizeof **req.queries);
    engram__v1__search_query__init(req.queries[i]);
    req.queries[i]->text = argv[i + 1];
  }
  req.k = (uint32_t)eg_cfg_int(cli->cfg, "k");
  req.include_content = true;
  Engram__V1__SearchFilter f = ENGRAM__V1__SEARCH_FILTER__INIT;
  Engram__V1__TimeRange tr = ENGRAM__V1__TIME_RANGE__INIT;
  if (eg_cli_time(cli, "from", &tr.from) || eg_cli_time(cli, "to", &tr.to)) return 2;
  if (tr.from || tr.to) f.time = &tr;
  char *session = (char *)eg_cfg_str(cli->cfg, "session");
  if (*session) {
    f.session_ids = &session;
    f.n_session_ids = 1;
  }
  req.filter = &f;
  Engram__V1__SearchResponse *r = NULL;
  eg_cli_call(cli, "vectord", eg_vectord_search_call(NULL, &req, &r));
  if (!r) return 1;
  if (cli->json) {
    eg_cli_print_json(&r->base);
  } else {
    for (size_t q = 0; q < r->n_results; q++) {
      if (r->n_results > 1) printf("== %s\n", argv[q + 1]);
      if (!r->results[q]->n_hits) printf("(no hits)\n");
      for (size_t i = 0; i < r->results[q]->n_hits; i++) {
        Engram__V1__SearchHit *h = r->results[q]->hits[i];
        char t[40];
        eg_cli_format_time(h->chunk->time, t, sizeof t);
        printf("#%llu %.3f (content %.2f latent %.2f bm25 %.2f) [%s %s %s] %s\n",
               (unsigned long long)h->chunk->id, h->score, h->content_sim, h->latent_sim,
               h->bm25_norm, t,
               h->chunk->session_id && *h->chunk->session_id ? h->chunk->session_id
                                                             : h->chunk->document_id,
               h->chunk->role, h->chunk->content);
      }
    }
  }
  protobuf_c_message_free_unpacked(&r->base, NULL);
  return 0;
}

static int cmd_delete(const eg_cli *cli, int argc, char **argv, eg_arena *a) {
  if (argc < 2) {
    fprintf(stderr, "usage: engram vector delete ID…\n");
    return 2;
  }
  Engram__V1__DeleteRequest req = ENGRAM__V1__DELETE_REQUEST__INIT;
  req.scope = eg_cli_scope(cli, a);
  req.n_ids = (size_t)argc - 1;
  req.ids = eg_arena_alloc(a, req.n_ids * sizeof *req.ids);
  for (size_t i = 0; i < req.n_ids; i++)
    req.ids[i] = strtoull(argv[i + 1][0] == '#' ? argv[i + 1] + 1 : argv[i + 1], NULL, 10);
  Engram__V1__DeleteResponse *r = NULL;
  eg_cli_call(cli, "vectord", eg_vectord_delete_call(NULL, &req, &r));
  if (!r) return 1;
  if (cli->json)
    eg_cli_print_json(&r->base);
  else
    printf("deleted %u\n", r->deleted);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  return 0;
}

int eg_cli_vector(const eg_cli *cli, int argc, char **argv) {
  static const eg_cli_sub sub[] = {
      {"upsert", cmd_upsert}, {"search", cmd_search}, {"delete", cmd_delete}};
  return eg_cli_dispatch(cli, argc, argv, sub, sizeof sub / sizeof *sub,
                         "engram vector upsert|search|delete …");
}
