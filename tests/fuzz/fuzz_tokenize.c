/*
 * fuzz_tokenize.c — the tokenizer (BM25, word vectors) in its three modes, the text
 * normalization used to match names, and the state reader's words (lang/statefacts_words.c).
 * Properties: invalid UTF-8 is refused, never tokenized; every token is non-empty, at most
 * EG_TOKEN_MAX bytes, valid UTF-8 and free of spaces; normalization is idempotent and yields
 * valid UTF-8; the state reader's words lie in order within the text, each non-empty, and the
 * last ends a clause; its pictographs read as punctuation leave shorter valid UTF-8, once.
 */
#include <string.h>

#include "common/arena.h"
#include "common/text.h"
#include "lang/statefacts_int.h"
#include "lang/tokenize.h"
#include "tests/fuzz/fuzz.h"

static eg_tokenizer *tok[3];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  tok[0] = eg_tokenizer_new(0);
  tok[1] = eg_tokenizer_new(EG_TOK_STEM);
  tok[2] = eg_tokenizer_new(EG_TOK_STOPWORDS);
  return 0;
}

static void on_token(void *ctx, const char *t, size_t len) {
  (*(size_t *)ctx)++;
  eg_fuzz_check(len > 0 && len <= EG_TOKEN_MAX && strlen(t) == len, "token length");
  eg_fuzz_check(eg_utf8_valid(t, len), "token is UTF-8");
  eg_fuzz_check(!memchr(t, ' ', len), "token has no space");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *s = (const char *)data;
  bool valid = eg_utf8_valid(s, size);
  for (int i = 0; i < 3; i++) {
    size_t n = 0;
    eg_code rc = eg_tokenize(tok[i], s, size, on_token, &n);
    eg_fuzz_check(valid ? rc == EG_OK : rc == EG_EINVAL, "UTF-8 decides");
  }
  eg_arena *a = eg_arena_new(4096, 64u << 20);
  char *norm = eg_text_normalize(a, s, size);
  eg_fuzz_check(valid || norm == NULL, "invalid UTF-8 is not normalized");
  if (norm) {
    eg_fuzz_check(eg_utf8_valid(norm, strlen(norm)), "normalized text is UTF-8");
    char *again = eg_text_normalize(a, norm, strlen(norm));
    eg_fuzz_check(again && strcmp(norm, again) == 0, "normalization is idempotent");
  }
  char *z = eg_arena_alloc(a, size + 1);
  memcpy(z, data, size);
  z[size] = 0;
  static token words[MAX_TOKENS];
  size_t nw = eg_sf_tokenize(z, words, MAX_TOKENS), end = 0;
  for (size_t i = 0; i < nw; i++) {
    eg_fuzz_check(words[i].s >= end && words[i].s < words[i].e && words[i].e <= size,
                  "words in order within the text");
    eg_fuzz_check(words[i].w[0] != '\0', "a word is non-empty");
    end = words[i].e;
  }
  eg_fuzz_check(!nw || words[nw - 1].cut, "the last word ends a clause");
  /* pictographs as punctuation, arrows as "to": never longer, still UTF-8, and a second pass
   * changes nothing */
  char *p = eg_arena_strndup(a, z, size);
  if (p && valid && !memchr(s, 0, size)) {
    eg_sf_plain_marks(p);
    eg_fuzz_check(strlen(p) <= size && eg_utf8_valid(p, strlen(p)), "marks taken out");
    char *q = eg_arena_strndup(a, p, strlen(p));
    eg_fuzz_check(q && !strcmp(eg_sf_plain_marks(q), p), "taking them out is idempotent");
  }
  (void)eg_text_words(z);
  eg_arena_free(a);
  return 0;
}
