/*
 * tokenize.c — normalization (utf8proc), token rules, stop words, Snowball stemming.
 */
#include "lang/tokenize.h"

#include <libstemmer.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "common/text.h"

struct eg_tokenizer {
  unsigned flags;
  struct sb_stemmer *stemmer;
};

static const char *const stopwords[] = {
    "a",      "about",  "above", "after",  "again",    "against",    "all",  "am",
    "an",     "and",    "any",   "are",    "as",       "at",         "be",   "because",
    "been",   "before", "being", "below",  "between",  "both",       "but",  "by",
    "can",    "could",  "did",   "do",     "does",     "doing",      "down", "during",
    "each",   "few",    "for",   "from",   "further",  "had",        "has",  "have",
    "having", "he",     "her",   "here",   "hers",     "herself",    "him",  "himself",
    "his",    "how",    "i",     "if",     "in",       "into",       "is",   "it",
    "its",    "itself", "just",  "me",     "more",     "most",       "my",   "myself",
    "no",     "nor",    "not",   "now",    "of",       "off",        "on",   "once",
    "only",   "or",     "other", "our",    "ours",     "ourselves",  "out",  "over",
    "own",    "same",   "she",   "should", "so",       "some",       "such", "than",
    "that",   "the",    "their", "theirs", "them",     "themselves", "then", "there",
    "these",  "they",   "this",  "those",  "through",  "to",         "too",  "under",
    "until",  "up",     "very",  "was",    "we",       "were",       "what", "when",
    "where",  "which",  "while", "who",    "whom",     "why",        "will", "with",
    "would",  "you",    "your",  "yours",  "yourself", "yourselves", "s",    "t",
    "don",    "ll",     "re",    "ve",     "d",        "m"};

bool eg_is_stopword(const char *w, size_t n) {
  /* Linear over ~130 short words: cheap next to stemming. */
  for (size_t i = 0; i < sizeof stopwords / sizeof *stopwords; i++)
    if (strlen(stopwords[i]) == n && memcmp(stopwords[i], w, n) == 0) return true;
  return false;
}

eg_tokenizer *eg_tokenizer_new(unsigned flags) {
  eg_tokenizer *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->flags = flags;
  if (flags & EG_TOK_STEM) {
    t->stemmer = sb_stemmer_new("english", "UTF_8");
    if (!t->stemmer) {
      free(t);
      return NULL;
    }
  }
  return t;
}

void eg_tokenizer_free(eg_tokenizer *t) {
  if (!t) return;
  if (t->stemmer) sb_stemmer_delete(t->stemmer);
  free(t);
}

static bool is_word(utf8proc_int32_t cp) {
  if (cp < 0x80)
    return (cp >= 'a' && cp <= 'z') || (cp >= '0' && cp <= '9') || (cp >= 'A' && cp <= 'Z');
  utf8proc_category_t c = utf8proc_category(cp);
  return (c >= UTF8PROC_CATEGORY_LU && c <= UTF8PROC_CATEGORY_LO) || c == UTF8PROC_CATEGORY_ND ||
         c == UTF8PROC_CATEGORY_NL || c == UTF8PROC_CATEGORY_NO;
}

static bool is_joiner(utf8proc_int32_t cp) {
  return cp == '-' || cp == '.' || cp == '/' || cp == ':' || cp == '_' || cp == '@';
}

static void emit(eg_tokenizer *t, char *tok, size_t len, bool has_digit, bool has_joiner,
                 eg_token_fn fn, void *ctx) {
  if (!len) return;
  if (len > EG_TOKEN_MAX) return; /* noise: base64, URLs without spaces */
  tok[len] = '\0';
  bool plain = !has_digit && !has_joiner;
  if ((t->flags & (EG_TOK_STEM | EG_TOK_STOPWORDS)) && plain && eg_is_stopword(tok, len)) return;
  if ((t->flags & EG_TOK_STEM) && plain) {
    const sb_symbol *s = sb_stemmer_stem(t->stemmer, (const sb_symbol *)tok, (int)len);
    if (s) {
      int sl = sb_stemmer_length(t->stemmer);
      if (sl > 0 && (size_t)sl <= EG_TOKEN_MAX) {
        char st[EG_TOKEN_MAX + 1];
        memcpy(st, s, (size_t)sl);
        st[sl] = '\0';
        fn(ctx, st, (size_t)sl);
        return;
      }
    }
  }
  fn(ctx, tok, len);
}

eg_code eg_tokenize(eg_tokenizer *t, const char *text, size_t n, eg_token_fn fn, void *ctx) {
  if (!eg_utf8_valid(text, n)) return EG_EINVAL;
  utf8proc_uint8_t *m = NULL;
  utf8proc_ssize_t len =
      utf8proc_map((const utf8proc_uint8_t *)text, (utf8proc_ssize_t)n, &m,
                   UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT | UTF8PROC_CASEFOLD |
                       UTF8PROC_STRIPMARK | UTF8PROC_LUMP | UTF8PROC_IGNORE | UTF8PROC_STRIPCC);
  if (len < 0) return EG_EINVAL;
  char tok[4 * EG_TOKEN_MAX + 8];
  size_t tl = 0, word_start = 0;
  bool has_digit = false, has_joiner = false, overflow = false;
  utf8proc_int32_t prev = 0;
  for (utf8proc_ssize_t i = 0; i <= len;) {
    utf8proc_int32_t cp = 0;
    utf8proc_ssize_t k = 1;
    if (i < len) {
      k = utf8proc_iterate(m + i, len - i, &cp);
      if (k <= 0) break;
    }
    if (i < len && is_word(cp)) {
      if (tl + (size_t)k < sizeof tok - 1) {
        memcpy(tok + tl, m + i, (size_t)k);
        tl += (size_t)k;
      } else {
        overflow = true;
      }
      if (cp >= '0' && cp <= '9') has_digit = true;
      prev = cp;
      i += k;
      continue;
    }
    /* A joiner between two word characters may continue the token. */
    if (i < len && tl && is_joiner(cp) && i + k < len) {
      utf8proc_int32_t next;
      utf8proc_ssize_t k2 = utf8proc_iterate(m + i + k, len - i - k, &next);
      if (k2 > 0 && is_word(next)) {
        bool digit_side = has_digit || (next >= '0' && next <= '9') || (prev >= '0' && prev <= '9');
        if (cp == '_' || cp == '@' || digit_side) {
          if (tl + 1 < sizeof tok - 1) tok[tl++] = (char)cp;
          has_joiner = true;
          i += k;
          continue;
        }
        /* Not an identifier: if earlier joins made one, keep going only for digits. */
      }
    }
    /* Possessive 's: "maya's" → "maya". */
    if (i < len && tl && cp == '\'' && i + 1 < len && m[i + 1] == 's' &&
        (i + 2 >= len || !is_word(m[i + 2]))) {
      if (!overflow) emit(t, tok, tl, has_digit, has_joiner, fn, ctx);
      tl = 0;
      has_digit = has_joiner = overflow = false;
      i += 2;
      continue;
    }
    if (tl && !overflow) emit(t, tok, tl, has_digit, has_joiner, fn, ctx);
    tl = 0;
    has_digit = has_joiner = overflow = false;
    (void)word_start;
    prev = cp;
    i += k;
  }
  free(m);
  return EG_OK;
}
