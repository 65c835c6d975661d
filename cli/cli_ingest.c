/*
 * cli_ingest.c — `engram ingest session|document|facts FILE|-` (one JSON request) and
 * `engram ingest bulk FILE.jsonl|-` (one request per line, see bulk.h) against ingestd.
 *
 * A document may also be plain text: when the input is not a JSON object it becomes the
 * text of an IngestDocumentRequest with --document-id (default: the file name) and --title.
 */
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/bulk.h"
#include "cli/cli.h"
#include "common/ingest_client.h"
#include "common/scope.h"

void eg_cli_print_ingest_report(const Engram__V1__IngestReport *p, const char *watermark) {
  printf("%u chunks, %u entities, %u facts, %llu tokens%s%s\n", p->chunks, p->entities, p->facts,
         (unsigned long long)p->tokens, watermark && *watermark ? "; watermark " : "",
         watermark ? watermark : "");
  for (size_t i = 0; i < p->n_stages; i++)
    printf("  %-14s %8.1f ms\n", p->stages[i]->stage, (double)p->stages[i]->micros / 1000.0);
  if (p->llm_fallbacks) printf("  LLM answers replaced by the rules: %u\n", p->llm_fallbacks);
  eg_cli_print_warnings(p->warnings, p->n_warnings);
}

static void print_response(const Engram__V1__IngestResponse *r) {
  const Engram__V1__IngestReport *p = r->report;
  if (!p) {
    printf("accepted: job %s, watermark %s\n", r->job_id, r->watermark);
    return;
  }
  if (p->duplicate) {
    printf("already ingested (no change); watermark %s\n", r->watermark);
    return;
  }
  eg_cli_print_ingest_report(p, r->watermark);
  for (size_t i = 0; i < r->n_edge_ids; i++)
    printf("  edge #%llu\n", (unsigned long long)r->edge_ids[i]);
}

/* A document from plain text: the whole input is the text. */
static ProtobufCMessage *plain_document(const eg_cli *cli, const char *file, char *text,
                                        eg_arena *a) {
  Engram__V1__IngestDocumentRequest *d = eg_arena_calloc(a, 1, sizeof *d);
  engram__v1__ingest_document_request__init(d);
  const char *id = eg_cfg_str(cli->cfg, "document_id");
  d->document_id = *id                      ? (char *)id
                   : strcmp(file, "-") == 0 ? "stdin"
                                            : basename(eg_arena_strdup(a, file));
  d->title = (char *)eg_cfg_str(cli->cfg, "title");
  d->text = text;
  return &d->base;
}

static int cmd_one(const eg_cli *cli, int argc, char **argv, eg_arena *a) {
  size_t k = 0;
  while (strcmp(eg_ingest_kinds[k].name, argv[0]) != 0) k++;
  const eg_ingest_kind *kind = &eg_ingest_kinds[k];
  if (argc != 2) {
    fprintf(stderr, "usage: engram ingest %s FILE|-   (JSON %s%s)\n", argv[0],
            kind->desc->short_name,
            k == EG_INGEST_DOCUMENT ? ", or plain text with --document-id and --title" : "");
    return 2;
  }
  char *text = eg_cli_read_file(argv[1], a);
  if (!text) return 2;
  const char *s = text + strspn(text, " \t\r\n");
  ProtobufCMessage *req =
      k == EG_INGEST_DOCUMENT && *s != '{'
          ? plain_document(cli, argv[1], text, a)
          : eg_cli_parse_json(strcmp(argv[1], "-") == 0 ? "stdin" : argv[1], text, kind->desc, a);
  if (!req) return 2;
  eg_scope_default(req, eg_cli_scope(cli, a));
  /* --wait: queued like --async, then followed until the job is done */
  bool wait = eg_cfg_bool(cli->cfg, "wait");
  if (wait || eg_cfg_bool(cli->cfg, "async"))
    eg_ingest_set_mode(req, ENGRAM__V1__INGEST_MODE__INGEST_MODE_ASYNC);
  Engram__V1__IngestResponse *r = NULL;
  eg_cli_call(cli, "ingestd", eg_ingestd_ingest_call(NULL, req, &r));
  if (!r) return 1;
  int rc = 0;
  if (wait && !r->report && r->job_id && *r->job_id) {
    if (!cli->json) printf("accepted: job %s, watermark %s\n", r->job_id, r->watermark);
    rc = eg_cli_job_follow(cli, r->job_id, true);
  } else if (cli->json) {
    eg_cli_print_json(&r->base);
  } else {
    print_response(r);
  }
  protobuf_c_message_free_unpacked(&r->base, NULL);
  return rc;
}

static volatile sig_atomic_t bulk_interrupt;
static void on_interrupt(int sig) { bulk_interrupt = sig; }

/* The summary of a bulk run, in the unit of its progress line (tokens/s). */
static void print_bulk_summary(const eg_cli *cli, const eg_bulk_stats *st, bool stopped) {
  double tps = st->seconds > 0 ? (double)st->tokens / st->seconds : 0;
  if (cli->json) {
    printf(
        "{\"lines\": %llu, \"skipped\": %llu, \"ok\": %llu, \"duplicates\": %llu, \"failed\": "
        "%llu, "
        "\"retries\": %llu, \"chunks\": %llu, \"entities\": %llu, \"facts\": %llu, \"tokens\": "
        "%llu, "
        "\"seconds\": %.3f, \"tokens_per_second\": %.0f, \"tokens_per_minute\": %.0f, "
        "\"done_lines\": %llu, "
        "\"interrupted\": %s}\n",
        (unsigned long long)st->lines, (unsigned long long)st->skipped, (unsigned long long)st->ok,
        (unsigned long long)st->duplicates, (unsigned long long)st->failed,
        (unsigned long long)st->retries, (unsigned long long)st->chunks,
        (unsigned long long)st->entities, (unsigned long long)st->facts,
        (unsigned long long)st->tokens, st->seconds, tps, tps * 60,
        (unsigned long long)st->done_lines, stopped ? "true" : "false");
    return;
  }
  printf(
      "%llu lines (%llu skipped by resume): %llu ingested, %llu already there, %llu failed, %llu "
      "retries%s\n",
      (unsigned long long)st->lines, (unsigned long long)st->skipped, (unsigned long long)st->ok,
      (unsigned long long)st->duplicates, (unsigned long long)st->failed,
      (unsigned long long)st->retries, stopped ? " before the interrupt" : "");
  printf("%llu chunks, %llu entities, %llu facts, %llu tokens in %.1f s (%.0f tokens/s)\n",
         (unsigned long long)st->chunks, (unsigned long long)st->entities,
         (unsigned long long)st->facts, (unsigned long long)st->tokens, st->seconds, tps);
  for (size_t i = 0; i < st->n_stages; i++)
    printf("  %-14s %10.1f ms summed\n", st->stages[i].name, (double)st->stages[i].micros / 1000.0);
}

static int cmd_bulk(const eg_cli *cli, int argc, char **argv, eg_arena *a) {
  (void)a;
  if (argc != 2) {
    fprintf(stderr,
            "usage: engram ingest bulk FILE.jsonl|- [--parallel N] [--resume] [--state-file F] "
            "[--progress]\n");
    return 2;
  }
  eg_rpc_client *c = eg_cli_connect(cli, eg_cli_daemon_addr(cli, "ingestd"));
  if (!c) return 1;
  const char *state = eg_cfg_str(cli->cfg, "state_file");
  eg_bulk_opts o = {.path = argv[1],
                    .state_path = *state ? state : NULL,
                    .client = c,
                    .tenant = eg_cfg_str(cli->cfg, "tenant"),
                    .user = eg_cfg_str(cli->cfg, "user"),
                    .agent = eg_cfg_str(cli->cfg, "agent"),
                    .parallel = (int)eg_cfg_int(cli->cfg, "parallel"),
                    .resume = eg_cfg_bool(cli->cfg, "resume"),
                    .progress = eg_cli_progress(cli),
                    .interrupt = &bulk_interrupt};
  /* Ctrl-C (or SIGTERM): finish the lines in flight, record the done prefix, say what was
   * done; a second one ends the process at once. */
  struct sigaction sa = {.sa_handler = on_interrupt, .sa_flags = SA_RESETHAND}, old_int, old_term;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  eg_bulk_stats st;
  eg_err e;
  eg_code rc = eg_bulk_run(&o, &st, &e);
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGTERM, &old_term, NULL);
  eg_rpc_client_close(c);
  if (rc) fprintf(stderr, "engram: %s\n", e.msg);
  print_bulk_summary(cli, &st, rc == EG_ECANCELLED);
  if (rc == EG_ECANCELLED) return 128 + (int)bulk_interrupt;
  return rc ? 1 : st.failed ? 3 : 0;
}

int eg_cli_ingest(const eg_cli *cli, int argc, char **argv) {
  static const eg_cli_sub sub[] = {
      {"session", cmd_one}, {"document", cmd_one}, {"facts", cmd_one}, {"bulk", cmd_bulk}};
  return eg_cli_dispatch(
      cli, argc, argv, sub, sizeof sub / sizeof *sub,
      "engram ingest session|document|facts FILE|-  or  engram ingest bulk FILE.jsonl|-");
}
