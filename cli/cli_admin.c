/*
 * cli_admin.c — `engram job ID [--wait]` (an async ingest's state, from ingestd's GetJob),
 * `engram relations` (graphd's built-in and declared relations with their cardinality) and
 * `engram erase` (Admin.Erase on ingestd: a user's memory, or a whole tenant's).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/bulk.h"
#include "cli/cli.h"
#include "common/graph_client.h"
#include "common/ingest_client.h"
#include "common/time.h"

/* ---- engram job ---------------------------------------------------------------------- */

#define POLL_US 200000

static const char *job_state_name(Engram__V1__JobState s) {
  const ProtobufCEnumValue *v =
      protobuf_c_enum_descriptor_get_value(&engram__v1__job_state__descriptor, (int)s);
  return v ? v->name + strlen("JOB_STATE_") : "UNSPECIFIED";
}

static bool job_final(const Engram__V1__Job *j) {
  return j->state == ENGRAM__V1__JOB_STATE__JOB_STATE_DONE ||
         j->state == ENGRAM__V1__JOB_STATE__JOB_STATE_FAILED;
}

static void print_job(const Engram__V1__Job *j) {
  printf("job %s %s", j->job_id, job_state_name(j->state));
  if (j->chunks_total) printf(" (%u of %u chunks)", j->chunks_done, j->chunks_total);
  printf("; watermark %s\n", j->watermark && *j->watermark ? j->watermark : "-");
  if (j->state == ENGRAM__V1__JOB_STATE__JOB_STATE_FAILED)
    fprintf(stderr, "engram: job %s failed: %s\n", j->job_id, j->error);
  if (j->state != ENGRAM__V1__JOB_STATE__JOB_STATE_DONE || !j->report) return;
  if (j->report->duplicate)
    printf("already ingested (no change)\n");
  else
    eg_cli_print_ingest_report(j->report, NULL);
}

int eg_cli_job_follow(const eg_cli *cli, const char *job_id, bool wait) {
  eg_rpc_client *c = eg_cli_connect(cli, eg_cli_daemon_addr(cli, "ingestd"));
  if (!c) return 1;
  eg_arena *a = eg_arena_new(0, 0);
  Engram__V1__GetJobRequest req = ENGRAM__V1__GET_JOB_REQUEST__INIT;
  req.scope = eg_cli_scope(cli, a);
  req.job_id = (char *)job_id;
  bool bar = wait && !cli->json && eg_cli_progress(cli);
  int64_t t0 = eg_time_mono_us();
  Engram__V1__Job *j = NULL;
  int rc = 1;
  for (;;) {
    eg_err e;
    eg_code code = eg_ingestd_get_job(c, &req, &j, &e);
    if (code != EG_OK) {
      if (bar) fputc('\n', stderr);
      fprintf(stderr, "engram: GetJob %s: %s: %s\n", job_id, eg_code_name(code), e.msg);
      goto out;
    }
    if (!wait || job_final(j)) break;
    if (bar) {
      char extra[64];
      snprintf(extra, sizeof extra, "job %s", job_state_name(j->state));
      eg_progress_draw(j->chunks_done, j->chunks_total, "chunks",
                       (double)(eg_time_mono_us() - t0) / 1e6, extra);
    }
    protobuf_c_message_free_unpacked(&j->base, NULL);
    j = NULL;
    usleep(POLL_US);
  }
  if (bar) fputs("\r\033[K", stderr);
  if (cli->json)
    eg_cli_print_json(&j->base);
  else
    print_job(j);
  rc = j->state == ENGRAM__V1__JOB_STATE__JOB_STATE_FAILED ? 1 : 0;
  if (cli->json && rc) fprintf(stderr, "engram: job %s failed: %s\n", j->job_id, j->error);
  protobuf_c_message_free_unpacked(&j->base, NULL);
out:
  eg_arena_free(a);
  eg_rpc_client_close(c);
  return rc;
}

int eg_cli_job(const eg_cli *cli, int argc, char **argv) {
  if (argc != 2 || !*argv[1]) {
    fprintf(stderr, "usage: engram job JOB_ID [--wait]   (the job id an --async ingest printed)\n");
    return 2;
  }
  return eg_cli_job_follow(cli, argv[1], eg_cfg_bool(cli->cfg, "wait"));
}

/* ---- engram relations ---------------------------------------------------------------- */

int eg_cli_relations(const eg_cli *cli, int argc, char **argv) {
  (void)argv;
  if (argc != 1) {
    fprintf(stderr,
            "usage: engram relations   (built-in and --tenant's declared relations, with "
            "cardinality)\n");
    return 2;
  }
  eg_arena *a = eg_arena_new(0, 0);
  Engram__V1__ListRelationsRequest req = ENGRAM__V1__LIST_RELATIONS_REQUEST__INIT;
  req.scope = eg_cli_scope(cli, a);
  Engram__V1__ListRelationsResponse *r = NULL;
  eg_cli_call(cli, "graphd", eg_graphd_list_relations_call(NULL, &req, &r));
  eg_arena_free(a);
  if (!r) return 1;
  if (cli->json) {
    eg_cli_print_json(&r->base);
  } else {
    printf("%-20s %-12s %-9s %s\n", "RELATION", "CARDINALITY", "", "DESCRIPTION");
    for (size_t i = 0; i < r->n_relations; i++) {
      const Engram__V1__RelationInfo *ri = r->relations[i];
      const ProtobufCEnumValue *v = protobuf_c_enum_descriptor_get_value(
          &engram__v1__cardinality__descriptor, (int)ri->cardinality);
      printf("%-20s %-12s %-9s %s\n", ri->relation, v ? v->name + strlen("CARDINALITY_") : "?",
             ri->builtin ? "built-in" : "declared", ri->description);
    }
    printf("(a relation not listed is MANY: its values coexist until retracted)\n");
  }
  protobuf_c_message_free_unpacked(&r->base, NULL);
  return 0;
}

/* ---- engram erase -------------------------------------------------------------------- */

int eg_cli_erase(const eg_cli *cli, int argc, char **argv) {
  (void)argv;
  const char *user = eg_cfg_str(cli->cfg, "user"),
             *confirm = eg_cfg_str(cli->cfg, "confirm_tenant");
  if (argc != 1 || (!*user && !*confirm)) {
    fprintf(
        stderr,
        "usage: engram --tenant T --user U erase          (one user's memory)\n"
        "       engram --tenant T erase --confirm-tenant T (the whole tenant)\n"
        "  needs an admin token of the tenant; removes the data from every store and from disk\n");
    return 2;
  }
  eg_arena *a = eg_arena_new(0, 0);
  Engram__V1__EraseRequest req = ENGRAM__V1__ERASE_REQUEST__INIT;
  req.scope = eg_cli_scope(cli, a);
  req.confirm_tenant = (char *)confirm;
  Engram__V1__EraseResponse *r = NULL;
  eg_cli_call(cli, "ingestd", eg_ingestd_erase_call(NULL, &req, &r));
  eg_arena_free(a);
  if (!r) return 1;
  if (cli->json) {
    eg_cli_print_json(&r->base);
  } else {
    char at[40];
    eg_cli_format_time(r->erased_at, at, sizeof at);
    if (*user)
      printf("erased user %s of tenant %s at %s\n", user, eg_cfg_str(cli->cfg, "tenant"), at);
    else
      printf("erased tenant %s at %s\n", eg_cfg_str(cli->cfg, "tenant"), at);
    for (size_t i = 0; i < r->n_counts; i++)
      printf("  %-8s %-15s %llu\n", r->counts[i]->store, r->counts[i]->kind,
             (unsigned long long)r->counts[i]->count);
  }
  protobuf_c_message_free_unpacked(&r->base, NULL);
  return 0;
}
