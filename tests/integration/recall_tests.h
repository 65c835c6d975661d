/*
 * recall_tests.h — what the two files of integration_recall share: the cluster and its
 * clients, the helpers that ingest and ask, and the tests of the user's states
 * (test_recall_states.c) that test_recall.c's main runs in its order.
 */
#ifndef EG_TESTS_RECALL_TESTS_H
#define EG_TESTS_RECALL_TESTS_H

#include <stddef.h>
#include <stdint.h>

#include "common/rpc.h"
#include "proto/engram/v1/recall.pb-c.h"
#include "tests/harness.h"

extern eg_cluster cl;
extern eg_rpc_client *ing, *rec, *gra;

/* Recall q for tenant's user u1 asked at `at`, as of valid_at (0 = at). */
Engram__V1__RecallResponse *recall_as_of(const char *tenant, const char *q, int64_t at,
                                         int64_t valid_at, const char *watermark, eg_code *code);
Engram__V1__RecallResponse *recall_at(const char *tenant, const char *q, int64_t at,
                                      const char *watermark, eg_code *code);
/* Index of the first item of kind whose text holds needle, -1 when none. */
int find_item(const Engram__V1__RecallResponse *r, Engram__V1__ItemKind kind, const char *needle);
/* One session of tenant's user u1, said at `when` (ISO 8601): n rounds, role and text pairs. */
void ingest(const char *tenant, const char *sid, const char *when, const char *const *msgs,
            size_t n);

/* test_recall_states.c */
void test_current_first(void);
void test_kind_is_no_name(void);
void test_kind_of_named(void);
void test_unrecorded_change(void);
void test_small_talk_no_doubt(void);
void test_value_read(void);
void test_state_doubt(void);
void test_value_given_up(void);
void test_held_value_gone(void);
void test_prospect_won(void);
void test_value_named_later(void);
void test_latest_statement_first_of_all(void);
void test_latest_statement(void);
void test_newest_value(void);
void test_fact_source_is_statement(void);
void test_known_value(void);
void test_plan_not_state(void);
void test_arranged_move(void);
void test_other_word_for_held(void);
void test_short_name_restates(void);
void test_state_at_asked_time(void);
void test_later_same_day(void);
void test_first_disagrees(void);
void test_value_of_kind(void);

#endif
