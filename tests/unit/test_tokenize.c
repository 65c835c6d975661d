/* test_tokenize.c — token rules, stop words, stemming, identifiers, Unicode. */
#include <stdio.h>

#include "common/text.h"
#include "lang/tokenize.h"
#include "tests/testlib.h"

static void join(void *ctx, const char *tok, size_t len) {
  char *out = ctx;
  size_t n = strlen(out);
  snprintf(out + n, 1024 - n, "%s%.*s", n ? "|" : "", (int)len, tok);
}

static const char *tok(unsigned flags, const char *text) {
  static char out[1024];
  out[0] = '\0';
  eg_tokenizer *t = eg_tokenizer_new(flags);
  if (eg_tokenize(t, text, strlen(text), join, out) != EG_OK) snprintf(out, sizeof out, "ERROR");
  eg_tokenizer_free(t);
  return out;
}

static void test_plain(void) {
  EG_CHECK_STR(tok(0, "Hello, World!"), "hello|world");
  EG_CHECK_STR(tok(0, "  José's café  "), "jose|cafe"); /* accents stripped, possessive dropped */
  EG_CHECK_STR(tok(0, "state-of-the-art e.g. X"), "state|of|the|art|e|g|x");
  EG_CHECK_STR(tok(0, ""), "");
  EG_CHECK_STR(tok(0, "ＡＢＣ１２３"), "abc123"); /* NFKC full-width */
}

static void test_identifiers_and_numbers(void) {
  EG_CHECK_STR(tok(EG_TOK_STEM, "gpt-4 costs $3.14 since 2024-03-01"),
               "gpt-4|cost|3.14|sinc|2024-03-01");
  EG_CHECK_STR(tok(EG_TOK_STEM, "user_id john@example.com v1.2.3 10:30"),
               "user_id|john@example|com|v1.2.3|10:30");
  EG_CHECK_STR(tok(EG_TOK_STEM, "iPhone15 running"), "iphone15|run");
}

static void test_stem_and_stop(void) {
  EG_CHECK_STR(tok(EG_TOK_STEM, "The runners were running quickly to the stations"),
               "runner|run|quick|station");
  EG_CHECK_STR(tok(EG_TOK_STOPWORDS, "The runners were running"), "runners|running");
  EG_CHECK(eg_is_stopword("the", 3));
  EG_CHECK(!eg_is_stopword("theory", 6));
}

static void test_invalid(void) {
  eg_tokenizer *t = eg_tokenizer_new(0);
  char out[1024] = "";
  EG_CHECK_INT(eg_tokenize(t, "\xff\xfe", 2, join, out), EG_EINVAL);
  char lng[300];
  memset(lng, 'a', sizeof lng - 1);
  lng[sizeof lng - 1] = '\0';
  out[0] = '\0';
  EG_CHECK_INT(eg_tokenize(t, lng, strlen(lng), join, out), EG_OK);
  EG_CHECK_STR(out, ""); /* a 299-letter run is noise, not a token */
  eg_tokenizer_free(t);
}

/* The word count every "tokens" figure uses. */
static void test_words(void) {
  EG_CHECK_INT(eg_text_words(NULL), 0);
  EG_CHECK_INT(eg_text_words(""), 0);
  EG_CHECK_INT(eg_text_words("  \t\r\n "), 0);
  EG_CHECK_INT(eg_text_words("I moved to London."), 4);
  EG_CHECK_INT(eg_text_words("line one\r\nline\ttwo  "), 4);
  EG_CHECK_INT(eg_text_words("Zürich’s café"), 2);
}

int main(void) {
  EG_RUN(test_words);
  EG_RUN(test_plain);
  EG_RUN(test_identifiers_and_numbers);
  EG_RUN(test_stem_and_stop);
  EG_RUN(test_invalid);
  return eg_test_finish();
}
