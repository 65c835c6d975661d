/*
 * cli_graph.c — `engram graph state|history|changes|traverse|walk|commit|outcome`, and
 * `engram call Service/Method JSON` for any RPC of the contract.
 *
 * Times are ISO-8601 (--at, --known-at, --from, --to); the scope comes from --tenant,
 * --user, --agent. Output is one line per fact, or the full response with --json.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/edge.h"
#include "common/graph_client.h"
#include "common/scope.h"
#include "proto/engram/v1/ingest.pb-c.h"
#include "proto/engram/v1/recall.pb-c.h"
#include "proto/engram/v1/vector.pb-c.h"

static Engram__V1__EntityRef *name_ref(eg_arena *a, const char *name) {
  Engram__V1__EntityRef *r = eg_arena_calloc(a, 1, sizeof *r);
  engram__v1__entity_ref__init(r);
  char *end;
  unsigned long long id = strtoull(name, &end, 10);
  if (name[0] == '#' || (*name && !*end)) { /* "#12" or "12": an entity id */
    r->ref_case = ENGRAM__V1__ENTITY_REF__REF_ID;
    r->id = name[0] == '#' ? strtoull(name + 1, NULL, 10) : id;
  } else {
    r->ref_case = ENGRAM__V1__ENTITY_REF__REF_NAME;
    r->name = (char *)name;
  }
  return r;
}

static const char *value_text(const Engram__V1__Edge *e) {
  const char *v = eg_edge_object(e);
  return *v || !e->object || eg_edge_literal(e) ? v : "(entity)";
}

static void print_edge(const Engram__V1__Edge *e, const char *prefix) {
  char vf[40], vt[40], tc[40];
  eg_cli_format_time(e->valid_from, vf, sizeof vf);
  eg_cli_format_time(e->valid_to, vt, sizeof vt);
  eg_cli_format_time(e->t_commit, tc, sizeof tc);
  printf("%s%s %s%s = %s  [valid from %s%s%s, known %s, #%llu", prefix,
         e->subject_name ? e->subject_name : "?", e->relation,
         e->op == ENGRAM__V1__EDGE_OP__EDGE_OP_RETRACT ? " RETRACT" : "", value_text(e), vf,
         e->valid_to ? " to " : "", e->valid_to ? vt : "", tc, (unsigned long long)e->id);
  if (e->meta && e->meta->reason && *e->meta->reason) printf(", why: %s", e->meta->reason);
  if (e->meta && e->meta->provenance == ENGRAM__V1__PROVENANCE__PROVENANCE_DERIVED) {
    printf(", derived by %s from", e->meta->rule && *e->meta->rule ? e->meta->rule : "a rule");
    for (size_t i = 0; i < e->n_derived_from; i++)
      printf(" #%llu", (unsigned long long)e->derived_from[i]);
  }
  if (e->belief)
    printf(", confidence %.2f from %zu evidence", (double)e->belief->confidence,
           e->belief->n_evidence);
  printf("]\n");
  for (size_t i = 0; i < e->n_outcomes; i++) {
    const Engram__V1__Outcome *o = e->outcomes[i];
    const ProtobufCEnumValue *kv =
        protobuf_c_enum_descriptor_get_value(&engram__v1__outcome_kind__descriptor, (int)o->kind);
    char at[40];
    eg_cli_format_time(o->time, at, sizeof at);
    printf("%*s  outcome %s at %s%s%s\n", (int)strlen(prefix), "",
           kv ? kv->name + strlen("OUTCOME_KIND_") : "?", at, o->note && *o->note ? ": " : "",
           o->note ? o->note : "");
  }
}

static void print_belief(const Engram__V1__Belief *b) {
  printf("confidence %.2f (support %.2f, against %.2f)\n", (double)b->confidence,
         (double)b->support, (double)b->against);
  for (size_t i = 0; i < b->n_evidence; i++) {
    const Engram__V1__Evidence *x = b->evidence[i];
    const ProtobufCEnumValue *kv = x->outcome
                                       ? protobuf_c_enum_descriptor_get_value(
                                             &engram__v1__outcome_kind__descriptor, (int)x->outcome)
                                       : NULL;
    printf("  %s %s #%llu%s%s weight %.2f (%s)\n", x->contrary ? "against" : "for    ", x->relation,
           (unsigned long long)x->edge_id, kv ? " outcome " : "",
           kv ? kv->name + strlen("OUTCOME_KIND_") : "", (double)x->weight, x->source);
  }
}

static int cmd_state(const eg_cli *cli, int argc, char **argv, eg_arena *a) {
  if (argc < 2) {
    fprintf(stderr, "usage: engram graph state SUBJECT [RELATION] [--at T] [--known-at T]\n");
    return 2;
  }
  Engram__V1__StateQuery q = ENGRAM__V1__STATE_QUERY__INIT, *qs[1] = {&q};
  q.subject = name_ref(a, argv[1]);
  q.relation = argc > 2 ? argv[2] : "";
  Engram__V1__StateRequest req = ENGRAM__V1__STATE_REQUEST__INIT;
  req.scope = eg_cli_scope(cli, a);
  req.queries = qs;
  req.n_queries = 1;
  if (eg_cli_time(cli, "at", &req.valid_at) || eg_cli_time(cli, "known_at", &req.known_at))
    return 2;
  Engram__V1__StateResponse *r = NULL;
  eg_cli_call(cli, "graphd", eg_graphd_state_call(NULL, &req, &r));
  if (!r) return 1;
  if (cli->json) {
    eg_cli_print_json(&r->base);
  } else {
    size_t shown = 0;
    for (size_t i = 0; i < r->n_results; i++)
      for (size_t j = 0; j < r->results[i]->n_values; j++, shown++)
        print_edge(r->results[i]->values[j], "");
    if (!shown) printf("(no current value)\n");
  }
  protobuf_c_message_free_unpacked(&r->base, NULL);
  return 0;
}

static int cmd_history(const eg_cli *cli, int argc, char **argv, eg_arena *a) {
  if (argc < 2) {
    fprintf(stderr, "usage: engram graph history SUBJECT [RELATION] [--known-at T] [--limit N]\n");
    return 2;
  }
  Engram__V1__HistoryRequest req = ENGRAM__V1__HISTORY_REQUEST__INIT;
  req.scope = eg_cli_scope(cli, a);
  req.subject = name_ref(a, argv[1]);
  req.relation = argc > 2 ? argv[2] : "";
  req.limit = (uint32_t)eg_cfg_int(cli->cfg, "limit");
  if (eg_cli_time(cli, "known_at", &req.known_at)) return 2;
  Engram__V1__HistoryResponse *r = NULL;
  eg_cli_call(cli, "graphd", eg_graphd_history_call(NULL, &req, &r));
  if (!r) return 1;
  if (cli->json) {
    eg_cli_print_json(&r->base);
  } else {
    for (size_t i = 0; i < r->n_entries; i++) {
      print_edge(r->entries[i]->edge,
                 r->entries[i]->superseded ? "  superseded  " : "  current     ");
      if (r->entries[i]->superseded_by)
        printf("              replaced by #%llu\n",
               (unsigned long long)r->entries[i]->superseded_by);
    }
    if (!r->n_entries) printf("(no history)\n");
  }
  protobuf_c_message_free_unpacked(&r->base, NULL);
  return 0;
}

/* Changes is a window of transaction time: what Engram learned (t_commit) between --from
 * and --to, whatever the valid times of those facts. */
static int cmd_changes(const eg_cli *cli, int argc, char **argv, eg_arena *a) {
  (void)argv;
  if (argc > 1) {
    fprintf(stderr,
            "usage: engram graph changes [--from T] [--to T] [--session S] [--limit N]\n"
            "  the commits Engram recorded in [--from, --to): a window of transaction time (when a "
            "fact\n"
            "  was learned), not of valid time (when it is true in the world)\n");
    return 2;
  }
  Engram__V1__TimeRange w = ENGRAM__V1__TIME_RANGE__INIT;
  if (eg_cli_time(cli, "from", &w.from) || eg_cli_time(cli, "to", &w.to)) return 2;
  Engram__V1__ChangesRequest req = ENGRAM__V1__CHANGES_REQUEST__INIT;
  req.scope = eg_cli_scope(cli, a);
  req.window = &w;
  req.session_id = (char *)eg_cfg_str(cli->cfg, "session");
  req.limit = (uint32_t)eg_cfg_int(cli->cfg, "limit");
  Engram__V1__ChangesResponse *r = NULL;
  eg_cli_call(cli, "graphd", eg_graphd_changes_call(NULL, &req, &r));
  if (!r) return 1;
  if (cli->json)
    eg_cli_print_json(&r->base);
  else
    for (size_t i = 0; i < r->n_edges; i++) print_edge(r->edges[i], "");
  if (!cli->json && !r->n_edges) printf("(nothing committed in this window of transaction time)\n");
  if (!cli->json && r->next_page_token && *r->next_page_token)
    printf("(more: narrow --from/--to or raise --limit)\n");
  protobuf_c_message_free_unpacked(&r->base, NULL);
  return 0;
}

static int cmd_traverse(const eg_cli *cli, int argc, char **argv, eg_arena *a) {
  if (argc < 2) {
    fprintf(stderr,
            "usage: engram graph traverse SEED... [--depth N] [--relations A,B] [--at T]\n");
    return 2;
  }
  Engram__V1__TraverseRequest req = ENGRAM__V1__TRAVERSE_REQUEST__INIT;
  req.scope = eg_cli_scope(cli, a);
  req.n_seeds = (size_t)argc - 1;
  req.seeds = eg_arena_alloc(a, req.n_seeds * sizeof *req.seeds);
  for (size_t i = 0; i < req.n_seeds; i++) req.seeds[i] = name_ref(a, argv[i + 1]);
  req.max_depth = (uint32_t)eg_cfg_int(cli->cfg, "depth");
  char *rels = eg_arena_strdup(a, eg_cfg_str(cli->cfg, "relations"));
  req.relations = eg_arena_alloc(a, 64 * sizeof *req.relations);
  char *save = NULL;
  for (char *t = strtok_r(rels, ",", &save); t && req.n_relations < 64;
       t = strtok_r(NULL, ",", &save))
    req.relations[req.n_relations++] = t;
  if (eg_cli_time(cli, "at", &req.valid_at) || eg_cli_time(cli, "known_at", &req.known_at))
    return 2;
  Engram__V1__TraverseResponse *r = NULL;
  eg_cli_call(cli, "graphd", eg_graphd_traverse_call(NULL, &req, &r));
  if (!r) return 1;
  if (cli->json) {
    eg_cli_print_json(&r->base);
  } else {
    for (size_t i = 0; i < r->n_paths; i++) {
      Engram__V1__Path *p = r->paths[i];
      printf("%s", p->n_edges ? p->edges[0]->subject_name : "");
      for (size_t j = 0; j < p->n_edges; j++)
        printf(" -%s-> %s", p->edges[j]->relation, value_text(p->edges[j]));
      printf("\n");
    }
    if (r->truncated || r->skipped_by_fanout)
      printf("(truncated: %u edges skipped by the fan-out cap)\n", r->skipped_by_fanout);
  }
  protobuf_c_message_free_unpacked(&r->base, NULL);
  return 0;
}

static int cmd_walk(const eg_cli *cli, int argc, char **argv, eg_arena *a) {
  if (argc < 2) {
    fprintf(stderr, "usage: engram graph walk EDGE_ID... [--at T] [--known-at T]\n");
    return 2;
  }
  Engram__V1__WalkRequest req = ENGRAM__V1__WALK_REQUEST__INIT;
  req.scope = eg_cli_scope(cli, a);
  req.n_claims = (size_t)argc - 1;
  req.claims = eg_arena_alloc(a, req.n_claims * sizeof *req.claims);
  for (size_t i = 0; i < req.n_claims; i++) {
    const char *id = argv[i + 1][0] == '#' ? argv[i + 1] + 1 : argv[i + 1];
    char *end = NULL;
    req.claims[i] = strtoull(id, &end, 10);
    if (!*id || *end || !req.claims[i]) {
      fprintf(stderr, "engram graph walk: '%s' is not an edge id\n", argv[i + 1]);
      return 2;
    }
  }
  req.max_depth = (uint32_t)eg_cfg_int(cli->cfg, "depth");
  if (eg_cli_time(cli, "at", &req.valid_at) || eg_cli_time(cli, "known_at", &req.known_at))
    return 2;
  Engram__V1__WalkResponse *r = NULL;
  eg_cli_call(cli, "graphd", eg_graphd_walk_call(NULL, &req, &r));
  if (!r) return 1;
  /* A claim graphd could not evaluate (an unknown edge id: NOT_FOUND from graphd, or an
   * UNSPECIFIED status from one that answers so) is an error, never a status to show. */
  int rc = 0;
  for (size_t i = 0; i < r->n_statuses; i++) {
    if (r->statuses[i]->status != ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_UNSPECIFIED)
      continue;
    fprintf(stderr, "engram graph walk: no such claim #%llu\n",
            (unsigned long long)r->statuses[i]->claim);
    rc = 1;
  }
  if (cli->json) {
    eg_cli_print_json(&r->base);
  } else {
    for (size_t i = 0; i < r->n_statuses; i++) {
      Engram__V1__ClaimStatus *s = r->statuses[i];
      if (s->status == ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_UNSPECIFIED) continue;
      const ProtobufCEnumValue *ev = protobuf_c_enum_descriptor_get_value(
          &engram__v1__epistemic_status__descriptor, (int)s->status);
      printf("#%llu %s (premises checked %u, links skipped %u)\n", (unsigned long long)s->claim,
             ev ? ev->name + strlen("EPISTEMIC_STATUS_") : "?", s->premises_checked,
             s->skipped_links);
      if (s->superseding) print_edge(s->superseding, "  because: ");
      if (s->n_chain) {
        printf("  chain:");
        for (size_t j = 0; j < s->n_chain; j++) printf(" #%llu", (unsigned long long)s->chain[j]);
        printf("\n");
      }
    }
  }
  protobuf_c_message_free_unpacked(&r->base, NULL);
  return rc;
}

static int cmd_commit(const eg_cli *cli, int argc, char **argv, eg_arena *a) {
  if (argc != 2) {
    fprintf(stderr,
            "usage: engram graph commit FILE|-   (JSON CommitRequest; scope from --tenant)\n");
    return 2;
  }
  Engram__V1__CommitRequest *req =
      (void *)eg_cli_read_request(cli, argv[1], &engram__v1__commit_request__descriptor, a);
  if (!req) return 2;
  Engram__V1__CommitResponse *r = NULL;
  eg_cli_call(cli, "graphd", eg_graphd_commit_call(NULL, req, &r));
  if (!r) return 1;
  if (cli->json) {
    eg_cli_print_json(&r->base);
  } else {
    char tc[40];
    eg_cli_format_time(r->t_commit, tc, sizeof tc);
    printf("committed %zu edges at %s:", r->n_edge_ids, tc);
    for (size_t i = 0; i < r->n_edge_ids; i++) printf(" #%llu", (unsigned long long)r->edge_ids[i]);
    printf("\n");
  }
  eg_cli_print_warnings(r->warnings, r->n_warnings);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  return 0;
}

/* What came of an edge: ACTED_ON, IGNORED, SUCCEEDED, FAILED or REVERSED (any case). */
static int cmd_outcome(const eg_cli *cli, int argc, char **argv, eg_arena *a) {
  if (argc != 3) {
    fprintf(stderr,
            "usage: engram graph outcome EDGE_ID ACTED_ON|IGNORED|SUCCEEDED|FAILED|REVERSED "
            "[--note TEXT] [--source S] [--at T]\n");
    return 2;
  }
  Engram__V1__RecordOutcomeRequest req = ENGRAM__V1__RECORD_OUTCOME_REQUEST__INIT;
  req.scope = eg_cli_scope(cli, a);
  const char *id = argv[1][0] == '#' ? argv[1] + 1 : argv[1];
  char *end = NULL;
  req.edge_id = strtoull(id, &end, 10);
  if (!*id || *end || !req.edge_id) {
    fprintf(stderr, "engram graph outcome: '%s' is not an edge id\n", argv[1]);
    return 2;
  }
  char name[64];
  snprintf(name, sizeof name, "OUTCOME_KIND_%s", argv[2]);
  for (char *c = name; *c; c++) *c = (char)toupper((unsigned char)*c);
  const ProtobufCEnumValue *kv =
      protobuf_c_enum_descriptor_get_value_by_name(&engram__v1__outcome_kind__descriptor, name);
  if (!kv || !kv->value) {
    fprintf(
        stderr,
        "engram graph outcome: '%s' is not one of ACTED_ON, IGNORED, SUCCEEDED, FAILED, REVERSED\n",
        argv[2]);
    return 2;
  }
  req.kind = (Engram__V1__OutcomeKind)kv->value;
  req.note = (char *)eg_cfg_str(cli->cfg, "note");
  req.source = (char *)eg_cfg_str(cli->cfg, "source");
  if (eg_cli_time(cli, "at", &req.time)) return 2;
  Engram__V1__RecordOutcomeResponse *r = NULL;
  eg_cli_call(cli, "graphd", eg_graphd_record_outcome_call(NULL, &req, &r));
  if (!r) return 1;
  if (cli->json) {
    eg_cli_print_json(&r->base);
  } else {
    char at[40];
    eg_cli_format_time(r->outcome ? r->outcome->recorded_at : 0, at, sizeof at);
    printf("recorded %s on #%llu at %s\n", kv->name + strlen("OUTCOME_KIND_"),
           (unsigned long long)req.edge_id, at);
    if (r->belief) print_belief(r->belief);
  }
  protobuf_c_message_free_unpacked(&r->base, NULL);
  return 0;
}

int eg_cli_graph(const eg_cli *cli, int argc, char **argv) {
  static const eg_cli_sub sub[] = {{"state", cmd_state},     {"history", cmd_history},
                                   {"changes", cmd_changes}, {"traverse", cmd_traverse},
                                   {"walk", cmd_walk},       {"commit", cmd_commit},
                                   {"outcome", cmd_outcome}};
  return eg_cli_dispatch(cli, argc, argv, sub, sizeof sub / sizeof *sub,
                         "engram graph state|history|changes|traverse|walk|commit|outcome …");
}

/* ---- engram call Service/Method JSON ------------------------------------------------- */

int eg_cli_call_any(const eg_cli *cli, int argc, char **argv) {
  static const struct {
    const ProtobufCServiceDescriptor *desc;
    const char *daemon;
  } services[] = {{&engram__v1__graph__descriptor, "graphd"},
                  {&engram__v1__vector__descriptor, "vectord"},
                  {&engram__v1__ingest__descriptor, "ingestd"},
                  {&engram__v1__admin__descriptor, "ingestd"},
                  {&engram__v1__recall__descriptor, "recalld"}};
  if (argc != 3) {
    fprintf(stderr, "usage: engram call Service/Method JSON|@FILE|-   (e.g. Graph/State '{…}')\n");
    return 2;
  }
  const char *slash = strchr(argv[1], '/');
  if (!slash) {
    fprintf(stderr, "engram call: name the method as Service/Method\n");
    return 2;
  }
  size_t sl = (size_t)(slash - argv[1]);
  for (size_t i = 0; i < sizeof services / sizeof *services; i++) {
    const ProtobufCServiceDescriptor *d = services[i].desc;
    if (strlen(d->short_name) != sl || strncmp(d->short_name, argv[1], sl) != 0) continue;
    const ProtobufCMethodDescriptor *m =
        protobuf_c_service_descriptor_get_method_by_name(d, slash + 1);
    if (!m) break;
    eg_arena *a = eg_arena_new(0, 0);
    int rc = 2;
    char *text = eg_cli_read_input(argv[2], a);
    const char *source = argv[2][0] == '@'           ? argv[2] + 1
                         : strcmp(argv[2], "-") == 0 ? "stdin"
                                                     : "argument";
    ProtobufCMessage *req = text ? eg_cli_parse_json(source, text, m->input, a) : NULL;
    if (req) {
      eg_scope_default(
          req,
          eg_cli_scope(cli, a)); /* a scope, or its empty fields, from --tenant/--user/--agent */
      char path[160];            /* the method named by the contract's descriptor */
      snprintf(path, sizeof path, "/%s/%s", d->name, m->name);
      ProtobufCMessage *r = NULL;
      eg_cli_call(cli, services[i].daemon,
                  (eg_rpc_request){.method = path, .req = req, .resp_desc = m->output, .out = &r});
      rc = 1;
      if (r) {
        eg_cli_print_json(r);
        protobuf_c_message_free_unpacked(r, NULL);
        rc = 0;
      }
    }
    eg_arena_free(a);
    return rc;
  }
  fprintf(stderr, "engram call: unknown method '%s'\n", argv[1]);
  return 2;
}
