/*
 * segment.c — sessions and documents into units, the chunks to be: a session by rounds
 * (a user message with the assistant replies that follow it), a document by sentence-
 * bounded passages overlapping by one sentence; a unit longer than a chunk takes is cut
 * into consecutive parts. Validation of both requests and their content hashes (the
 * receipt's, receipt.c) live here too.
 */
#include <stdio.h>
#include <string.h>

#include "common/map.h"
#include "common/text.h"
#include "common/time.h"
#include "services/ingestd/ingest_int.h"

/* Where to end a part of s[0..len) at most max bytes long: after a line break, else a
 * sentence end, else a space in the second half of the span, else at a character boundary. */
static size_t part_end(const char *s, size_t len, size_t max) {
  size_t cut = eg_utf8_cut(s, len, max);
  if (cut == len) return len;
  for (int pass = 0; pass < 3; pass++)
    for (size_t p = cut; p > cut / 2; p--) {
      char c = s[p - 1];
      if ((pass == 0 && c == '\n') ||
          (pass == 1 && c == ' ' && p >= 2 && strchr(".!?", s[p - 2])) || (pass == 2 && c == ' '))
        return p;
    }
  return cut ? cut : len; /* cut is 0 only for max below one character */
}

/* Units whose content is longer than PART_BYTES become consecutive parts (same turn
 * index, same speaker and time), so no message is refused for length and every part is a
 * chunk vectord takes. renumber: documents number their chunks (turn_index = ordinal). */
static size_t split_units(const unit *u, size_t n, bool renumber, eg_arena *a, unit **out) {
  size_t total = 0;
  for (size_t i = 0; i < n; i++) {
    size_t len = strlen(u[i].content), parts = 0;
    for (size_t off = 0; off < len; parts++)
      off += part_end(u[i].content + off, len - off, PART_BYTES);
    total += parts ? parts : 1;
  }
  if (total == n && !renumber) {
    *out = (unit *)u;
    return n;
  }
  unit *v = eg_arena_calloc(a, total ? total : 1, sizeof *v);
  size_t k = 0;
  for (size_t i = 0; v && i < n; i++) {
    size_t len = strlen(u[i].content);
    if (len <= PART_BYTES) {
      v[k++] = u[i];
      continue;
    }
    for (size_t off = 0; off < len;) {
      size_t pl = part_end(u[i].content + off, len - off, PART_BYTES);
      v[k] = u[i];
      v[k].content = eg_arena_strndup(a, u[i].content + off, pl);
      v[k].seg.text = v[k].content; /* enrichment reads the part it writes */
      if (u[i].seg.said_to) {       /* the speaker's own words in this part (none: an empty span) */
        size_t sf = u[i].seg.said_from > off ? u[i].seg.said_from : off;
        size_t st = u[i].seg.said_to < off + pl ? u[i].seg.said_to : off + pl;
        v[k].seg.said_from = sf < st ? sf - off : pl;
        v[k].seg.said_to = sf < st ? st - off : pl;
      }
      if (!v[k].content) return 0;
      k++;
      off += pl;
    }
  }
  for (size_t i = 0; v && renumber && i < k; i++) v[i].turn_index = v[i].turn_end = (int32_t)i;
  *out = v;
  return v ? k : 0;
}

/* ---- sessions -------------------------------------------------------------------------- */

eg_code eg_ig_validate_session(const eg_ingest *g, const Engram__V1__IngestSessionRequest *r,
                               eg_err *err) {
  eg_code rc;
  if (!r->session_id || !*r->session_id)
    return eg_err_set(err, EG_EINVAL, "session_id is required");
  if ((rc = eg_ig_check_text(r->session_id, 256, "session_id", err))) return rc;
  if (!r->n_messages) return eg_err_set(err, EG_EINVAL, "no messages");
  if (r->n_messages > g->o.max_messages)
    return eg_err_set(err, EG_EINVAL, "more than %u messages in one session", g->o.max_messages);
  if (!eg_ig_time_ok(r->session_time))
    return eg_err_set(err, EG_EINVAL, "session_time out of range (1900..2200)");
  if (!(r->salience >= 0 && r->salience <= 1))
    return eg_err_set(err, EG_EINVAL,
                      "salience must be in [0, 1] (0: each chunk rated by the lexicon)");
  for (size_t i = 0; i < r->n_messages; i++) {
    const Engram__V1__Message *m = r->messages[i];
    char what[48];
    snprintf(what, sizeof what, "messages[%zu].content", i);
    if ((rc = eg_ig_check_text(m->content, g->o.max_message_bytes, what, err))) return rc;
    /* white space alone would be stored, embedded near everything and ranked first */
    if (eg_text_blank(m->content))
      return eg_err_set(err, EG_EINVAL, "messages[%zu].content is empty", i);
    const char *role = m->role ? m->role : "";
    if (strcmp(role, "user") && strcmp(role, "assistant") && strcmp(role, "system") &&
        strcmp(role, "tool"))
      return eg_err_set(err, EG_EINVAL,
                        "messages[%zu].role must be user, assistant, system or tool", i);
    if (!eg_ig_time_ok(m->time))
      return eg_err_set(err, EG_EINVAL, "messages[%zu].time out of range", i);
    if ((rc = eg_ig_check_text(m->name, 256, "messages[].name", err))) return rc;
  }
  return EG_OK;
}

static uint64_t session_hash(const Engram__V1__IngestSessionRequest *r) {
  uint64_t h = eg_hash64(r->session_id, strlen(r->session_id), (uint64_t)r->session_time);
  for (size_t i = 0; i < r->n_messages; i++) {
    const Engram__V1__Message *m = r->messages[i];
    h = eg_hash64(m->content, strlen(m->content),
                  h ^ eg_hash64(m->role, strlen(m->role), (uint64_t)m->time));
    if (m->name) h = eg_hash64(m->name, strlen(m->name), h);
  }
  if (r->salience)
    h = eg_hash64(&r->salience, sizeof r->salience, h); /* a new salience is a new version */
  return h;
}

/* The end (exclusive) of the round starting at message i: a user message with the assistant
 * replies that follow it; anything else alone. */
static size_t round_end(const Engram__V1__IngestSessionRequest *r, size_t i) {
  size_t j = i + 1;
  if (!strcmp(r->messages[i]->role, "user"))
    while (j < r->n_messages && !strcmp(r->messages[j]->role, "assistant")) j++;
  return j;
}

/* One unit per round (round_end), in parts when long (split_units). *out NULL when out
 * of memory. */
size_t eg_ig_session_units(const Engram__V1__IngestSessionRequest *r, int64_t session_time,
                           eg_arena *a, unit **out) {
  unit *u = eg_arena_calloc(a, r->n_messages, sizeof *u);
  size_t n = 0;
  for (size_t i = 0; u && i < r->n_messages;) {
    const Engram__V1__Message *m = r->messages[i];
    size_t j = round_end(r, i);
    /* who said it, by name when known: "Maya: …" finds Maya's words for "what did Maya …" */
    eg_buf b = EG_BUF_INIT;
    size_t said_from = 0, said_to = 0; /* the first speaker's own words in b */
    for (size_t k = i; k < j; k++) {
      const Engram__V1__Message *mk = r->messages[k];
      eg_buf_printf(&b, "%s%s: ", k > i ? "\n" : "", mk->name && *mk->name ? mk->name : mk->role);
      if (k == i) said_from = b.len;
      eg_buf_printf(&b, "%s", mk->content);
      if (k == i) said_to = b.len;
    }
    unit *x = &u[n++];
    x->content =
        j == i + 1 && !(m->name && *m->name) ? m->content : eg_arena_strndup(a, b.data, b.len);
    eg_buf_free(&b);
    if (!x->content) {
      *out = NULL;
      return 0;
    }
    x->seg.text = m->content; /* enrichment reads the statement; the reply is context */
    if (j > i + 1) {          /* "user: <said>\nassistant: …" */
      x->seg.text = x->content;
      x->seg.said_from = said_from;
      x->seg.said_to = said_to; /* > 0: the role's name and ": " come first */
    }
    x->seg.role = m->role;
    x->seg.speaker = m->name ? m->name : "";
    x->seg.time = m->time ? m->time : session_time;
    x->turn_index = (int32_t)i;
    x->turn_end = (int32_t)(j - 1);
    i = j;
  }
  *out = NULL;
  return u ? split_units(u, n, false, a, out) : 0;
}

eg_code eg_ig_do_session(eg_ingest *g, const Engram__V1__IngestSessionRequest *r, eg_job *job,
                         eg_arena *a, Engram__V1__IngestReport *rep, char *wm, size_t wml,
                         eg_err *err) {
  int64_t t0 = eg_time_mono_us();
  int64_t st = r->session_time ? r->session_time : eg_time_now_us();
  unit *u;
  size_t n = eg_ig_session_units(r, st, a, &u);
  if (!u) return eg_err_set(err, EG_ENOMEM, "out of memory");
  eg_ig_stage(g, rep, a, "segment", t0);
  writer_in in = {r->scope, "session", r->session_id, session_hash(r), u, n, r->enricher, r->window,
                  NULL,     0,         job,           r->salience};
  return eg_ig_write_units(g, &in, a, rep, wm, wml, err);
}

/* ---- documents ------------------------------------------------------------------------- */

eg_code eg_ig_validate_document(const eg_ingest *g, const Engram__V1__IngestDocumentRequest *r,
                                eg_err *err) {
  eg_code rc;
  if (!r->document_id || !*r->document_id)
    return eg_err_set(err, EG_EINVAL, "document_id is required");
  if ((rc = eg_ig_check_text(r->document_id, 256, "document_id", err)) ||
      (rc = eg_ig_check_text(r->text, g->o.max_document_bytes, "text", err)) ||
      (rc = eg_ig_check_text(r->title, 1024, "title", err)))
    return rc;
  if (eg_text_blank(r->text)) return eg_err_set(err, EG_EINVAL, "text is empty");
  if (!eg_ig_time_ok(r->time)) return eg_err_set(err, EG_EINVAL, "time out of range (1900..2200)");
  if (r->n_metadata > 32) return eg_err_set(err, EG_EINVAL, "more than 32 metadata entries");
  if (!(r->salience >= 0 && r->salience <= 1))
    return eg_err_set(err, EG_EINVAL, "salience must be in [0, 1] (0: rated by the lexicon)");
  return EG_OK;
}

/* Sentence-bounded chunks of about `words` words, overlapping by one sentence. */
size_t eg_ig_document_units(const Engram__V1__IngestDocumentRequest *r, uint32_t words, eg_arena *a,
                            unit **out) {
  const char *t = r->text;
  size_t len = strlen(t), ns = 0, cap = 64;
  size_t *ss = eg_arena_alloc(a, cap * sizeof *ss), *se = eg_arena_alloc(a, cap * sizeof *se);
  for (size_t p = 0; ss && se && p < len;) { /* sentence spans */
    while (p < len && (t[p] == ' ' || t[p] == '\n' || t[p] == '\t')) p++;
    if (p >= len) break;
    size_t s = p;
    while (p < len &&
           !(strchr(".!?", t[p]) && (p + 1 == len || t[p + 1] == ' ' || t[p + 1] == '\n')) &&
           !(t[p] == '\n' && p + 1 < len && t[p + 1] == '\n'))
      p++;
    if (p < len) p++;
    if (ns == cap) {
      size_t *a2 = eg_arena_alloc(a, cap * 2 * sizeof *a2),
             *b2 = eg_arena_alloc(a, cap * 2 * sizeof *b2);
      if (!a2 || !b2) break;
      memcpy(a2, ss, ns * sizeof *ss);
      memcpy(b2, se, ns * sizeof *se);
      ss = a2, se = b2, cap *= 2;
    }
    ss[ns] = s;
    se[ns++] = p;
  }
  unit *u = eg_arena_calloc(a, ns ? ns : 1, sizeof *u);
  size_t n = 0;
  for (size_t i = 0; u && i < ns;) {
    size_t j = i, w = 0;
    while (j < ns && (w < words || j == i)) {
      char *sent = eg_arena_strndup(a, t + ss[j], se[j] - ss[j]);
      w += eg_text_words(sent);
      j++;
    }
    unit *x = &u[n++];
    x->content = eg_arena_strndup(a, t + ss[i], se[j - 1] - ss[i]);
    x->seg.text = x->content;
    x->seg.role = "document";
    x->seg.speaker = r->title ? r->title : "";
    x->seg.time = r->time ? r->time : eg_time_now_us();
    x->turn_index = (int32_t)(n - 1);
    x->turn_end = (int32_t)(n - 1);
    if (j >= ns) break;
    i = j - 1 > i ? j - 1 : j; /* one sentence of overlap */
  }
  *out = NULL;
  return u ? split_units(u, n, true, a, out) : 0;
}

eg_code eg_ig_do_document(eg_ingest *g, const Engram__V1__IngestDocumentRequest *r, eg_job *job,
                          eg_arena *a, Engram__V1__IngestReport *rep, char *wm, size_t wml,
                          eg_err *err) {
  int64_t t0 = eg_time_mono_us();
  unit *u;
  size_t n = eg_ig_document_units(r, g->o.doc_chunk_words, a, &u);
  if (!u || !n) return eg_err_set(err, EG_EINVAL, "document has no text");
  eg_ig_stage(g, rep, a, "segment", t0);
  uint64_t h = eg_hash64(
      r->text, strlen(r->text),
      eg_hash64(r->title ? r->title : "", r->title ? strlen(r->title) : 0, (uint64_t)r->time));
  if (r->salience) h = eg_hash64(&r->salience, sizeof r->salience, h);
  writer_in in = {r->scope,  "document",  r->document_id, h,   u,          n, r->enricher,
                  r->window, r->metadata, r->n_metadata,  job, r->salience};
  return eg_ig_write_units(g, &in, a, rep, wm, wml, err);
}
