/*
 * text.c — UTF-8 validation and name normalization on utf8proc.
 */
#include "common/text.h"

#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

bool eg_utf8_valid(const char *s, size_t n) {
  const utf8proc_uint8_t *p = (const utf8proc_uint8_t *)s;
  utf8proc_ssize_t left = (utf8proc_ssize_t)n;
  while (left > 0) {
    if (*p < 0x80) { /* ASCII fast path */
      p++;
      left--;
      continue;
    }
    utf8proc_int32_t cp;
    utf8proc_ssize_t k = utf8proc_iterate(p, left, &cp);
    if (k <= 0) return false;
    p += k;
    left -= k;
  }
  return true;
}

size_t eg_utf8_drop_invalid(char *s) {
  utf8proc_uint8_t *r = (utf8proc_uint8_t *)s, *w = r;
  utf8proc_ssize_t left = (utf8proc_ssize_t)strlen(s);
  while (left > 0) {
    utf8proc_int32_t cp;
    utf8proc_ssize_t k = *r < 0x80 ? 1 : utf8proc_iterate(r, left, &cp);
    if (k <= 0) { /* not a character: drop its first byte and look again */
      r++;
      left--;
      continue;
    }
    memmove(w, r, (size_t)k);
    w += k;
    r += k;
    left -= k;
  }
  *w = '\0';
  return (size_t)(w - (utf8proc_uint8_t *)s);
}

bool eg_text_blank(const char *s) {
  const utf8proc_uint8_t *p = (const utf8proc_uint8_t *)(s ? s : "");
  utf8proc_ssize_t left = (utf8proc_ssize_t)strlen((const char *)p);
  while (left > 0) {
    utf8proc_int32_t cp;
    utf8proc_ssize_t k = utf8proc_iterate(p, left, &cp);
    if (k <= 0) return false; /* not text at all: the caller's UTF-8 check says so */
    switch (utf8proc_category(cp)) {
      case UTF8PROC_CATEGORY_ZS:
      case UTF8PROC_CATEGORY_ZL:
      case UTF8PROC_CATEGORY_ZP:
      case UTF8PROC_CATEGORY_CC:
      case UTF8PROC_CATEGORY_CF:
        break;
      default:
        return false;
    }
    p += k;
    left -= k;
  }
  return true;
}

size_t eg_utf8_cut(const char *s, size_t len, size_t max) {
  if (len <= max) return len;
  size_t n = max;
  while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80) n--; /* s[n] continues a character */
  return n;
}

static bool is_word_char(utf8proc_int32_t cp) {
  if (cp < 0x80)
    return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9');
  switch (utf8proc_category(cp)) {
    case UTF8PROC_CATEGORY_LU:
    case UTF8PROC_CATEGORY_LL:
    case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_LO:
    case UTF8PROC_CATEGORY_ND:
    case UTF8PROC_CATEGORY_NL:
    case UTF8PROC_CATEGORY_NO:
    case UTF8PROC_CATEGORY_MN:
    case UTF8PROC_CATEGORY_MC:
      return true;
    default:
      return false;
  }
}

char *eg_text_normalize(eg_arena *a, const char *s, size_t n) {
  if (!eg_utf8_valid(s, n)) return NULL;
  utf8proc_uint8_t *m = NULL;
  utf8proc_ssize_t len =
      utf8proc_map((const utf8proc_uint8_t *)s, (utf8proc_ssize_t)n, &m,
                   UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT | UTF8PROC_CASEFOLD |
                       UTF8PROC_STRIPMARK | UTF8PROC_LUMP | UTF8PROC_IGNORE | UTF8PROC_STRIPCC);
  if (len < 0) return NULL;
  char *out = eg_arena_alloc(a, (size_t)len + 1);
  if (!out) {
    free(m);
    return NULL;
  }
  size_t o = 0;
  bool pending_space = false;
  for (utf8proc_ssize_t i = 0; i < len;) {
    utf8proc_int32_t cp;
    utf8proc_ssize_t k = utf8proc_iterate(m + i, len - i, &cp);
    if (k <= 0) break;
    if (is_word_char(cp)) {
      if (pending_space && o > 0) out[o++] = ' ';
      pending_space = false;
      memcpy(out + o, m + i, (size_t)k);
      o += (size_t)k;
    } else {
      pending_space = true;
    }
    i += k;
  }
  out[o] = '\0';
  free(m);
  return out;
}

size_t eg_text_words(const char *s) {
  size_t n = 0;
  bool in = false;
  for (; s && *s; s++) {
    bool sp = *s == ' ' || *s == '\n' || *s == '\t' || *s == '\r';
    if (!sp && !in) n++;
    in = !sp;
  }
  return n;
}
