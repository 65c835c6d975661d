/*
 * text.h — Unicode text helpers (utf8proc): validation and the normalization used to
 * match names and words.
 */
#ifndef EG_TEXT_H
#define EG_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "common/arena.h"

/* True when s[0..n) is well-formed UTF-8 (no overlongs, no surrogates). */
bool eg_utf8_valid(const char *s, size_t n);

/* The length of the longest prefix of valid UTF-8 s[0..len) that is at most max bytes and
 * ends on a character boundary (len when it fits): where to cut without splitting one. */
size_t eg_utf8_cut(const char *s, size_t len, size_t max);

/* Drops, in place, every byte of s (NUL-terminated) that is not part of a well-formed
 * character, such as what is left of one cut in half by "%.64s" or a full buffer; returns
 * the new length. For text that must be UTF-8 on the wire (JSON) but quotes a cut name. */
size_t eg_utf8_drop_invalid(char *s);

/* True when s (NUL-terminated UTF-8, NULL = "") holds nothing but white space, line and
 * paragraph separators, control and format characters: no text worth storing. */
bool eg_text_blank(const char *s);

/*
 * Normalize a name or phrase for matching: NFKC, case-folded, marks stripped
 * ("José" → "jose"), look-alike punctuation lumped, and every run of characters that
 * are neither letters nor digits folded into one space, trimmed. "  Maya-Patel! " and
 * "maya patel" both give "maya patel". Returns an arena string ("" for no letters),
 * NULL on invalid UTF-8 or out-of-memory.
 */
char *eg_text_normalize(eg_arena *a, const char *s, size_t n);

/* Words of s: runs of characters other than space, tab, CR and LF (NULL counts 0). The
 * "tokens" Engram reports for ingest, embedding and context budgets. */
size_t eg_text_words(const char *s);

#endif
