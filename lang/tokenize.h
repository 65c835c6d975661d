/*
 * tokenize.h — the word tokenizer of BM25 and the word-vector embedder.
 *
 * Text is normalized with utf8proc (NFKC, case-folded, accents stripped). A token is a run
 * of letters and digits; runs joined by '-', '.', '/', ':', '_' or '@' stay one token when
 * the result holds a digit or the joiner is '_' or '@' — numbers and identifiers are kept
 * whole ("3.14", "gpt-4", "2024-03-01", "user_id"), while "state-of-the-art" splits into
 * words. A trailing possessive "'s" is dropped. With EG_TOK_STEM, English stop words are
 * removed and alphabetic words stemmed (Snowball English); numbers and identifiers never are.
 */
#ifndef EG_LANG_TOKENIZE_H
#define EG_LANG_TOKENIZE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/err.h"

#define EG_TOKEN_MAX 64

typedef struct eg_tokenizer eg_tokenizer;

#define EG_TOK_STEM 1u      /* stop words out, stems */
#define EG_TOK_STOPWORDS 2u /* stop words out, words kept as they are */

/* Not thread-safe: one per thread (the Snowball stemmer keeps state). */
eg_tokenizer *eg_tokenizer_new(unsigned flags);
void eg_tokenizer_free(eg_tokenizer *t); /* accepts NULL */

/* Called once per token, in order; tok is NUL-terminated and valid during the call. */
typedef void (*eg_token_fn)(void *ctx, const char *tok, size_t len);

/* Tokenize text[0..n). EG_EINVAL when it is not valid UTF-8. */
eg_code eg_tokenize(eg_tokenizer *t, const char *text, size_t n, eg_token_fn fn, void *ctx);

/* True for an English stop word (lower case). */
bool eg_is_stopword(const char *w, size_t n);

#endif
