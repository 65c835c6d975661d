/*
 * test_clients.c — the typed clients (common/graph_client.h and the others) against the
 * generated service descriptors: every method of every service has its function, and each
 * function names the method's path, sends the method's request type and reads its
 * response type.
 */
#include <stdio.h>
#include <string.h>

#include "common/graph_client.h"
#include "common/health_client.h"
#include "common/ingest_client.h"
#include "common/recall_client.h"
#include "common/vector_client.h"
#include "tests/testlib.h"

typedef struct entry {
  const ProtobufCServiceDescriptor *service;
  const char *method;  /* its name in the service */
  eg_rpc_request call; /* made by the typed client, with an empty request of the typed kind */
} entry;

/* One row: the service, the method and the typed client's *_call with a request of the type
 * the client's signature takes (the compiler refuses any other). */
/* NOLINTBEGIN(bugprone-macro-parentheses): svc is taken the address of, Req is a type */
#define ROW(svc, Method, fn, Req, INIT) \
  { &svc, #Method, fn##_call(NULL, &(Req)INIT, NULL) }
/* NOLINTEND(bugprone-macro-parentheses) */

static void check_table(const entry *rows, size_t n) {
  const ProtobufCServiceDescriptor *services[] = {
      &engram__v1__graph__descriptor,  &engram__v1__vector__descriptor,
      &engram__v1__ingest__descriptor, &engram__v1__admin__descriptor,
      &engram__v1__recall__descriptor, &grpc__health__v1__health__descriptor};
  size_t methods = 0;
  for (size_t s = 0; s < sizeof services / sizeof *services; s++) {
    const ProtobufCServiceDescriptor *d = services[s];
    methods += d->n_methods;
    for (unsigned m = 0; m < d->n_methods; m++) {
      const ProtobufCMethodDescriptor *md = &d->methods[m];
      const entry *row = NULL;
      for (size_t i = 0; i < n; i++)
        if (rows[i].service == d && !strcmp(rows[i].method, md->name)) row = &rows[i];
      char path[160];
      snprintf(path, sizeof path, "/%s/%s", d->name, md->name);
      if (!EG_CHECK(row != NULL)) {
        fprintf(stderr, "  no typed client for %s\n", path);
        continue;
      }
      EG_CHECK_STR(row->call.method, path);
      EG_CHECK(row->call.req && row->call.req->descriptor == md->input);
      EG_CHECK(row->call.resp_desc == md->output);
    }
  }
  EG_CHECK_INT(n, methods); /* and no row names a method the contract lacks */
}

static void test_every_method(void) {
  const entry rows[] = {
      ROW(engram__v1__graph__descriptor, Commit, eg_graphd_commit, Engram__V1__CommitRequest,
          ENGRAM__V1__COMMIT_REQUEST__INIT),
      ROW(engram__v1__graph__descriptor, ResolveEntities, eg_graphd_resolve_entities,
          Engram__V1__ResolveEntitiesRequest, ENGRAM__V1__RESOLVE_ENTITIES_REQUEST__INIT),
      ROW(engram__v1__graph__descriptor, GetEntities, eg_graphd_get_entities,
          Engram__V1__GetEntitiesRequest, ENGRAM__V1__GET_ENTITIES_REQUEST__INIT),
      ROW(engram__v1__graph__descriptor, MergeEntities, eg_graphd_merge_entities,
          Engram__V1__MergeEntitiesRequest, ENGRAM__V1__MERGE_ENTITIES_REQUEST__INIT),
      ROW(engram__v1__graph__descriptor, UnmergeEntities, eg_graphd_unmerge_entities,
          Engram__V1__UnmergeEntitiesRequest, ENGRAM__V1__UNMERGE_ENTITIES_REQUEST__INIT),
      ROW(engram__v1__graph__descriptor, DeclareRelation, eg_graphd_declare_relation,
          Engram__V1__DeclareRelationRequest, ENGRAM__V1__DECLARE_RELATION_REQUEST__INIT),
      ROW(engram__v1__graph__descriptor, ListRelations, eg_graphd_list_relations,
          Engram__V1__ListRelationsRequest, ENGRAM__V1__LIST_RELATIONS_REQUEST__INIT),
      ROW(engram__v1__graph__descriptor, State, eg_graphd_state, Engram__V1__StateRequest,
          ENGRAM__V1__STATE_REQUEST__INIT),
      ROW(engram__v1__graph__descriptor, History, eg_graphd_history, Engram__V1__HistoryRequest,
          ENGRAM__V1__HISTORY_REQUEST__INIT),
      ROW(engram__v1__graph__descriptor, Changes, eg_graphd_changes, Engram__V1__ChangesRequest,
          ENGRAM__V1__CHANGES_REQUEST__INIT),
      ROW(engram__v1__graph__descriptor, Traverse, eg_graphd_traverse, Engram__V1__TraverseRequest,
          ENGRAM__V1__TRAVERSE_REQUEST__INIT),
      ROW(engram__v1__graph__descriptor, Walk, eg_graphd_walk, Engram__V1__WalkRequest,
          ENGRAM__V1__WALK_REQUEST__INIT),
      ROW(engram__v1__graph__descriptor, ChunkEntities, eg_graphd_chunk_entities,
          Engram__V1__ChunkEntitiesRequest, ENGRAM__V1__CHUNK_ENTITIES_REQUEST__INIT),
      ROW(engram__v1__graph__descriptor, Erase, eg_graphd_erase, Engram__V1__EraseRequest,
          ENGRAM__V1__ERASE_REQUEST__INIT),
      ROW(engram__v1__graph__descriptor, RecordOutcome, eg_graphd_record_outcome,
          Engram__V1__RecordOutcomeRequest, ENGRAM__V1__RECORD_OUTCOME_REQUEST__INIT),
      ROW(engram__v1__graph__descriptor, RecordAccess, eg_graphd_record_access,
          Engram__V1__RecordAccessRequest, ENGRAM__V1__RECORD_ACCESS_REQUEST__INIT),
      ROW(engram__v1__graph__descriptor, GetRetention, eg_graphd_get_retention,
          Engram__V1__GetRetentionRequest, ENGRAM__V1__GET_RETENTION_REQUEST__INIT),
      ROW(engram__v1__graph__descriptor, SetRetentionPolicy, eg_graphd_set_retention_policy,
          Engram__V1__SetRetentionPolicyRequest, ENGRAM__V1__SET_RETENTION_POLICY_REQUEST__INIT),
      ROW(engram__v1__vector__descriptor, Upsert, eg_vectord_upsert, Engram__V1__UpsertRequest,
          ENGRAM__V1__UPSERT_REQUEST__INIT),
      ROW(engram__v1__vector__descriptor, Search, eg_vectord_search, Engram__V1__SearchRequest,
          ENGRAM__V1__SEARCH_REQUEST__INIT),
      ROW(engram__v1__vector__descriptor, GetChunks, eg_vectord_get_chunks,
          Engram__V1__GetChunksRequest, ENGRAM__V1__GET_CHUNKS_REQUEST__INIT),
      ROW(engram__v1__vector__descriptor, Delete, eg_vectord_delete, Engram__V1__DeleteRequest,
          ENGRAM__V1__DELETE_REQUEST__INIT),
      ROW(engram__v1__vector__descriptor, Erase, eg_vectord_erase, Engram__V1__EraseRequest,
          ENGRAM__V1__ERASE_REQUEST__INIT),
      ROW(engram__v1__vector__descriptor, Publish, eg_vectord_publish, Engram__V1__PublishRequest,
          ENGRAM__V1__PUBLISH_REQUEST__INIT),
      ROW(engram__v1__vector__descriptor, RecordAccess, eg_vectord_record_access,
          Engram__V1__RecordAccessRequest, ENGRAM__V1__RECORD_ACCESS_REQUEST__INIT),
      ROW(engram__v1__vector__descriptor, GetRetention, eg_vectord_get_retention,
          Engram__V1__GetRetentionRequest, ENGRAM__V1__GET_RETENTION_REQUEST__INIT),
      ROW(engram__v1__vector__descriptor, SetRetentionPolicy, eg_vectord_set_retention_policy,
          Engram__V1__SetRetentionPolicyRequest, ENGRAM__V1__SET_RETENTION_POLICY_REQUEST__INIT),
      ROW(engram__v1__vector__descriptor, SweepRetention, eg_vectord_sweep_retention,
          Engram__V1__SweepRetentionRequest, ENGRAM__V1__SWEEP_RETENTION_REQUEST__INIT),
      ROW(engram__v1__ingest__descriptor, IngestSession, eg_ingestd_ingest_session,
          Engram__V1__IngestSessionRequest, ENGRAM__V1__INGEST_SESSION_REQUEST__INIT),
      ROW(engram__v1__ingest__descriptor, IngestDocument, eg_ingestd_ingest_document,
          Engram__V1__IngestDocumentRequest, ENGRAM__V1__INGEST_DOCUMENT_REQUEST__INIT),
      ROW(engram__v1__ingest__descriptor, AssertFacts, eg_ingestd_assert_facts,
          Engram__V1__AssertFactsRequest, ENGRAM__V1__ASSERT_FACTS_REQUEST__INIT),
      ROW(engram__v1__ingest__descriptor, GetJob, eg_ingestd_get_job, Engram__V1__GetJobRequest,
          ENGRAM__V1__GET_JOB_REQUEST__INIT),
      ROW(engram__v1__ingest__descriptor, Wait, eg_ingestd_wait, Engram__V1__WaitRequest,
          ENGRAM__V1__WAIT_REQUEST__INIT),
      ROW(engram__v1__admin__descriptor, Erase, eg_ingestd_erase, Engram__V1__EraseRequest,
          ENGRAM__V1__ERASE_REQUEST__INIT),
      ROW(engram__v1__admin__descriptor, GetRetention, eg_ingestd_get_retention,
          Engram__V1__GetRetentionRequest, ENGRAM__V1__GET_RETENTION_REQUEST__INIT),
      ROW(engram__v1__admin__descriptor, SetRetentionPolicy, eg_ingestd_set_retention_policy,
          Engram__V1__SetRetentionPolicyRequest, ENGRAM__V1__SET_RETENTION_POLICY_REQUEST__INIT),
      ROW(engram__v1__admin__descriptor, SweepRetention, eg_ingestd_sweep_retention,
          Engram__V1__SweepRetentionRequest, ENGRAM__V1__SWEEP_RETENTION_REQUEST__INIT),
      ROW(engram__v1__recall__descriptor, Recall, eg_recalld_recall, Engram__V1__RecallRequest,
          ENGRAM__V1__RECALL_REQUEST__INIT),
      ROW(grpc__health__v1__health__descriptor, Check, eg_health_check,
          Grpc__Health__V1__HealthCheckRequest, GRPC__HEALTH__V1__HEALTH_CHECK_REQUEST__INIT),
  };
  check_table(rows, sizeof rows / sizeof *rows);
}

/* Bulk files mix the three ingests: the request's type picks the method. */
static void test_ingest_by_type(void) {
  Engram__V1__IngestSessionRequest s = ENGRAM__V1__INGEST_SESSION_REQUEST__INIT;
  Engram__V1__IngestDocumentRequest d = ENGRAM__V1__INGEST_DOCUMENT_REQUEST__INIT;
  Engram__V1__AssertFactsRequest f = ENGRAM__V1__ASSERT_FACTS_REQUEST__INIT;
  Engram__V1__Scope other = ENGRAM__V1__SCOPE__INIT;
  EG_CHECK_STR(eg_ingestd_ingest_call(NULL, &s.base, NULL).method,
               eg_ingestd_ingest_session_call(NULL, &s, NULL).method);
  EG_CHECK_STR(eg_ingestd_ingest_call(NULL, &d.base, NULL).method,
               eg_ingestd_ingest_document_call(NULL, &d, NULL).method);
  EG_CHECK_STR(eg_ingestd_ingest_call(NULL, &f.base, NULL).method,
               eg_ingestd_assert_facts_call(NULL, &f, NULL).method);
  EG_CHECK(eg_ingestd_ingest_call(NULL, &other.base, NULL).method == NULL);
}

int main(void) {
  EG_RUN(test_every_method);
  EG_RUN(test_ingest_by_type);
  return eg_test_finish();
}
