/*
 * fts5.c — the SQLite FTS5 baseline (see fts5.h).
 */
#include "bench/fts5.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"

struct eg_fts5 {
  sqlite3 *db;
  sqlite3_stmt *q;
  const eg_bgroup *g;
  eg_bunit *units; /* by rowid - 1 */
  size_t n;
};

static int fail(eg_fts5 *f, const char *what) {
  fprintf(stderr, "fts5: %s: %s\n", what, sqlite3_errmsg(f->db));
  return -1;
}

/* The unit's text: its messages, "role: content" on separate lines. */
static void unit_text(const eg_bsession *s, size_t i, eg_buf *b) {
  b->len = 0;
  for (size_t k = i; k < s->n && (k == i || eg_bunit_start(s, k) == (int32_t)i); k++)
    eg_buf_printf(b, "%s%s: %s", k > i ? "\n" : "", s->m[k].name ? s->m[k].name : s->m[k].role,
                  s->m[k].content);
}

static int fill(eg_fts5 *f) {
  const eg_bgroup *g = f->g;
  size_t cap = 0;
  for (size_t s = 0; s < g->ns; s++) cap += g->s[s].n;
  f->units = calloc(cap ? cap : 1, sizeof *f->units);
  sqlite3_stmt *ins = NULL;
  if (!f->units ||
      sqlite3_exec(f->db,
                   "CREATE VIRTUAL TABLE u USING fts5(text, tokenize='porter unicode61');"
                   "BEGIN;",
                   NULL, NULL, NULL) ||
      sqlite3_prepare_v2(f->db, "INSERT INTO u(rowid, text) VALUES (?, ?)", -1, &ins, NULL))
    return fail(f, "create");
  eg_buf b = EG_BUF_INIT;
  int rc = 0;
  for (size_t s = 0; s < g->ns && !rc; s++)
    for (size_t i = 0; i < g->s[s].n && !rc; i++) {
      if (eg_bunit_start(&g->s[s], i) != (int32_t)i) continue;
      unit_text(&g->s[s], i, &b);
      f->units[f->n++] = (eg_bunit){g->s[s].id, (int32_t)i, 0};
      sqlite3_bind_int64(ins, 1, (sqlite3_int64)f->n);
      sqlite3_bind_text(ins, 2, b.data, (int)b.len, SQLITE_STATIC);
      rc = sqlite3_step(ins) != SQLITE_DONE;
      sqlite3_reset(ins);
    }
  eg_buf_free(&b);
  sqlite3_finalize(ins);
  if (rc || sqlite3_exec(f->db, "COMMIT;", NULL, NULL, NULL)) return fail(f, "insert");
  if (sqlite3_prepare_v2(f->db, "SELECT rowid FROM u WHERE u MATCH ? ORDER BY rank LIMIT ?", -1,
                         &f->q, NULL))
    return fail(f, "prepare");
  return 0;
}

eg_fts5 *eg_fts5_open(const eg_bgroup *g) {
  eg_fts5 *f = calloc(1, sizeof *f);
  if (!f) return NULL;
  f->g = g;
  if (sqlite3_open(":memory:", &f->db) != SQLITE_OK || fill(f)) {
    eg_fts5_close(f);
    return NULL;
  }
  return f;
}

/* Every run of letters/digits (any byte ≥ 0x80 counts as a letter) as a quoted FTS5
 * string, joined with OR. */
static void match_expr(const char *q, eg_buf *b) {
  b->len = 0;
  for (const unsigned char *p = (const unsigned char *)q; *p;) {
    while (*p &&
           !(*p >= 0x80 || (*p >= '0' && *p <= '9') || ((*p | 0x20) >= 'a' && (*p | 0x20) <= 'z')))
      p++;
    const unsigned char *s = p;
    while (*p >= 0x80 || (*p >= '0' && *p <= '9') || ((*p | 0x20) >= 'a' && (*p | 0x20) <= 'z'))
      p++;
    if (p > s) eg_buf_printf(b, "%s\"%.*s\"", b->len ? " OR " : "", (int)(p - s), (const char *)s);
  }
}

int eg_fts5_rank(eg_fts5 *f, const char *query, size_t limit, eg_brank *out) {
  eg_buf m = EG_BUF_INIT;
  match_expr(query, &m);
  int rc = 0;
  if (m.len) {
    sqlite3_bind_text(f->q, 1, m.data, (int)m.len, SQLITE_STATIC);
    sqlite3_bind_int64(f->q, 2, (sqlite3_int64)limit);
    int st;
    while ((st = sqlite3_step(f->q)) == SQLITE_ROW) {
      sqlite3_int64 id = sqlite3_column_int64(f->q, 0);
      if (id >= 1 && (size_t)id <= f->n)
        eg_brank_add(out, f->g, f->units[id - 1].session, f->units[id - 1].turn);
    }
    if (st != SQLITE_DONE) rc = fail(f, "query");
    sqlite3_reset(f->q);
  }
  eg_buf_free(&m);
  return rc;
}

void eg_fts5_close(eg_fts5 *f) {
  if (!f) return;
  sqlite3_finalize(f->q);
  sqlite3_close(f->db);
  free(f->units);
  free(f);
}
