/*
 * test_bench_split.c — the tune and confirm halves of engram-bench (bench/split.h): the
 * hash is XXH64 with seed 0 (its published test vectors), known keys keep their half, the
 * halves are about even over many keys, disjoint and together all of them; and a loaded
 * LongMemEval or LoCoMo set split in two gives back every question exactly once, with the
 * LoCoMo conversations whole.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/dataset.h"
#include "bench/split.h"
#include "tests/testlib.h"

static char *dir;

static void test_parse(void) {
  eg_bsplit s = EG_BSPLIT_ALL;
  EG_CHECK(eg_bsplit_parse("tune", &s) && s == EG_BSPLIT_TUNE);
  EG_CHECK(eg_bsplit_parse("confirm", &s) && s == EG_BSPLIT_CONFIRM);
  static const char *const bad[] = {"Tune", "", "all", "even", "odd", "tune ", "confirmed"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    s = EG_BSPLIT_TUNE;
    EG_CHECK(!eg_bsplit_parse(bad[i], &s) && s == EG_BSPLIT_TUNE); /* untouched */
  }
  EG_CHECK(!eg_bsplit_parse(NULL, &s));
  EG_CHECK_STR(eg_bsplit_name(EG_BSPLIT_ALL), "all");
  EG_CHECK_STR(eg_bsplit_name(EG_BSPLIT_TUNE), "tune");
  EG_CHECK_STR(eg_bsplit_name(EG_BSPLIT_CONFIRM), "confirm");
}

/* Halves that must never change: they decide which questions published figures were
 * tuned on. The values beside them are the keys' XXH64 (seed 0). */
static void test_known_keys(void) {
  EG_CHECK(eg_bsplit_of("") == EG_BSPLIT_CONFIRM);      /* 0xef46db3751d8e999, the spec's vector */
  EG_CHECK(eg_bsplit_of(NULL) == EG_BSPLIT_CONFIRM);    /* as "" */
  EG_CHECK(eg_bsplit_of("abc") == EG_BSPLIT_CONFIRM);   /* 0x44bc2cf5ad770999, the spec's vector */
  EG_CHECK(eg_bsplit_of("tiny_dog") == EG_BSPLIT_TUNE); /* 0x847f6ba5b02acd76 */
  EG_CHECK(eg_bsplit_of("tiny_bicycles") == EG_BSPLIT_CONFIRM); /* 0x4a545d339bbf47a3 */
  EG_CHECK(eg_bsplit_of("e47becba") == EG_BSPLIT_TUNE);         /* 0x7399a518dae7951a */
  EG_CHECK(eg_bsplit_of("gpt4_2655b836") == EG_BSPLIT_CONFIRM); /* 0x80293ad3646a4183 */
  EG_CHECK(eg_bsplit_of("dev-00-city") == EG_BSPLIT_TUNE);      /* 0x6ccd35666fe252f6 */
  EG_CHECK(eg_bsplit_of("sushi-trivial") == EG_BSPLIT_CONFIRM); /* 0xe6d9ab3251ed0145 */
  /* past 32 bytes XXH64 takes its four-lane path */
  EG_CHECK(eg_bsplit_of("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa") ==
           EG_BSPLIT_CONFIRM); /* 0x569ea6843111ef03 */
  /* LoCoMo: the conversation and the question text joined by a newline */
  const char *q = "When did Caroline go to the LGBTQ support group?";
  EG_CHECK(eg_bsplit_of_locomo("conv-26", q) == EG_BSPLIT_CONFIRM); /* 0x1fa14da830d028cb */
  EG_CHECK(eg_bsplit_of_locomo("conv-26", q) ==
           eg_bsplit_of("conv-26\nWhen did Caroline go to the LGBTQ support group?"));
  EG_CHECK(eg_bsplit_of_locomo("tiny-conv", "What did Maya buy?") == EG_BSPLIT_TUNE);
}

static void test_halves(void) {
  int tune = 0, conv_tune = 0, n = 10000;
  for (int i = 0; i < n; i++) {
    char key[32], question[48];
    snprintf(key, sizeof key, "q%05d", i);
    eg_bsplit s = eg_bsplit_of(key);
    EG_CHECK(s == EG_BSPLIT_TUNE || s == EG_BSPLIT_CONFIRM);
    EG_CHECK(eg_bsplit_of(key) == s); /* the same every time */
    /* disjoint, and together every key; ALL takes each */
    EG_CHECK(eg_bsplit_takes(EG_BSPLIT_TUNE, s) != eg_bsplit_takes(EG_BSPLIT_CONFIRM, s));
    EG_CHECK(eg_bsplit_takes(EG_BSPLIT_ALL, s));
    tune += s == EG_BSPLIT_TUNE;
    snprintf(key, sizeof key, "conv-%d", i % 10);
    snprintf(question, sizeof question, "question %d?", i);
    conv_tune += eg_bsplit_of_locomo(key, question) == EG_BSPLIT_TUNE;
  }
  EG_CHECK_INT(tune, 5072); /* known; about half (binomial sd 50) */
  EG_CHECK(tune > n / 2 - 200 && tune < n / 2 + 200);
  EG_CHECK_INT(conv_tune, 5083);
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  EG_REQUIRE(f != NULL);
  fputs(text, f);
  fclose(f);
}

/* The question ids of d, "|"-joined, and the count of those in half want. */
static size_t ids_of(const eg_bdata *d, char *out, size_t len, eg_bsplit want) {
  size_t n = 0, in_half = 0;
  out[0] = 0;
  for (size_t g = 0; g < d->n; g++)
    for (size_t k = 0; k < d->g[g].nq; k++) {
      n += (size_t)snprintf(out + n, n < len ? len - n : 0, "|%s", d->g[g].q[k].id);
      in_half += d->g[g].q[k].split == want;
    }
  return in_half;
}

/* Six LongMemEval questions, one a _abs: each is its own group; tiny-lme-2_abs, -4, -5 confirm. */
static void test_lme_set(void) {
  char path[600], line[600];
  snprintf(path, sizeof path, "%s/lme.jsonl", dir);
  FILE *f = fopen(path, "w");
  EG_REQUIRE(f != NULL);
  for (int i = 0; i < 6; i++) {
    snprintf(line, sizeof line,
             "{\"question_id\":\"tiny-lme-%d%s\",\"question_type\":\"single-session-user\","
             "\"question\":\"q%d?\","
             "\"answer\":\"a\",\"question_date\":\"2023/06/01 (Thu) "
             "10:00\",\"haystack_session_ids\":[\"s%d\"],"
             "\"haystack_dates\":[\"2023/05/01 (Mon) "
             "09:00\"],\"haystack_sessions\":[[{\"role\":\"user\","
             "\"content\":\"hello %d\",\"has_answer\":true}]],\"answer_session_ids\":[\"s%d\"]}\n",
             i, i == 2 ? "_abs" : "", i, i, i, i);
    fputs(line, f);
  }
  fclose(f);
  eg_bdata all, tune, confirm;
  EG_REQUIRE(eg_bdata_load_lme(path, 0, NULL, &all) == 0 &&
             eg_bdata_load_lme(path, 0, NULL, &tune) == 0 &&
             eg_bdata_load_lme(path, 0, NULL, &confirm) == 0);
  eg_bsplit_count ca, ct, cc;
  eg_bdata_split(&all, EG_BSPLIT_ALL, &ca);
  eg_bdata_split(&tune, EG_BSPLIT_TUNE, &ct);
  eg_bdata_split(&confirm, EG_BSPLIT_CONFIRM, &cc);
  EG_CHECK_INT(all.n, 6);
  EG_CHECK(ca.kept == 6 && ca.total == 6 && ca.kept_scored == 5 && ca.total_scored == 5);
  EG_CHECK(ct.kept == 3 && ct.total == 6 && ct.kept_scored == 3 && ct.total_scored == 5);
  EG_CHECK(cc.kept == 3 && cc.kept_scored == 2 &&
           cc.total_scored == 5); /* tiny-lme-2_abs is not scored */
  EG_CHECK_INT(tune.n, 3);        /* a question's haystack goes with it */
  EG_CHECK_INT(confirm.n, 3);
  char ids[3][256];
  EG_CHECK_INT(ids_of(&tune, ids[0], sizeof ids[0], EG_BSPLIT_TUNE), 3);
  EG_CHECK_INT(ids_of(&confirm, ids[1], sizeof ids[1], EG_BSPLIT_CONFIRM), 3);
  ids_of(&all, ids[2], sizeof ids[2], EG_BSPLIT_TUNE);
  EG_CHECK_STR(ids[0], "|tiny-lme-0|tiny-lme-1|tiny-lme-3");
  EG_CHECK_STR(ids[1], "|tiny-lme-2_abs|tiny-lme-4|tiny-lme-5");
  EG_CHECK_STR(ids[2], "|tiny-lme-0|tiny-lme-1|tiny-lme-2_abs|tiny-lme-3|tiny-lme-4|tiny-lme-5");
  eg_bdata_free(&all), eg_bdata_free(&tune), eg_bdata_free(&confirm);
}

/* One LoCoMo conversation of eight questions (3, 6 and 7 confirm; 5 without evidence): both
 * halves keep the whole conversation. */
static void test_locomo_set(void) {
  char path[600], qa[4096] = "";
  size_t n = 0;
  for (int i = 0; i < 8; i++)
    n += (size_t)snprintf(
        qa + n, sizeof qa - n,
        "%s{\"question\":\"Question number %d?\",\"answer\":\"x\",\"evidence\":[%s],"
        "\"category\":4}",
        i ? "," : "", i, i == 5 ? "" : "\"D1:1\"");
  char text[6000];
  snprintf(
      text, sizeof text,
      "[{\"sample_id\":\"c1\",\"conversation\":{\"speaker_a\":\"A\",\"speaker_b\":\"B\","
      "\"session_1_date_time\":\"1:56 pm on 8 May, "
      "2023\",\"session_1\":[{\"speaker\":\"A\",\"dia_id\":\"D1:1\","
      "\"text\":\"hi\"},{\"speaker\":\"B\",\"dia_id\":\"D1:2\",\"text\":\"hello\"}]},\"qa\":[%s]}]",
      qa);
  snprintf(path, sizeof path, "%s/locomo.json", dir);
  write_file(path, text);
  eg_bdata tune, confirm;
  EG_REQUIRE(eg_bdata_load_locomo(path, 0, &tune) == 0 &&
             eg_bdata_load_locomo(path, 0, &confirm) == 0);
  eg_bsplit_count ct, cc;
  eg_bdata_split(&tune, EG_BSPLIT_TUNE, &ct);
  eg_bdata_split(&confirm, EG_BSPLIT_CONFIRM, &cc);
  EG_CHECK(ct.kept == 5 && ct.total == 8 && ct.kept_scored == 4 && ct.total_scored == 7);
  EG_CHECK(cc.kept == 3 && cc.total == 8 && cc.kept_scored == 3 && cc.total_scored == 7);
  EG_CHECK(ct.kept + cc.kept == ct.total && ct.kept_scored + cc.kept_scored == ct.total_scored);
  EG_REQUIRE(tune.n == 1 && confirm.n == 1);
  EG_CHECK(tune.g[0].ns == 1 && tune.g[0].s[0].n == 2 && confirm.g[0].ns == 1 &&
           confirm.g[0].s[0].n == 2);
  char ids[2][256];
  EG_CHECK_INT(ids_of(&tune, ids[0], sizeof ids[0], EG_BSPLIT_TUNE), 5);
  EG_CHECK_INT(ids_of(&confirm, ids[1], sizeof ids[1], EG_BSPLIT_CONFIRM), 3);
  EG_CHECK_STR(ids[0],
               "|c1#0|c1#1|c1#2|c1#4|c1#5"); /* the ids keep the question's place in the file */
  EG_CHECK_STR(ids[1], "|c1#3|c1#6|c1#7");
  eg_bdata_free(&tune), eg_bdata_free(&confirm);
}

int main(void) {
  dir = eg_test_tempdir("bench-split");
  EG_RUN(test_parse);
  EG_RUN(test_known_keys);
  EG_RUN(test_halves);
  EG_RUN(test_lme_set);
  EG_RUN(test_locomo_set);
  eg_test_rmtree(dir);
  free(dir);
  return eg_test_finish();
}
