/*
 * cfg.c — layered configuration: defaults < file < env < flags.
 */
#include "common/cfg.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/log.h"

typedef struct cfg_entry {
  const eg_cfg_opt *opt;
  char *value; /* owned text value */
  eg_cfg_source source;
} cfg_entry;

struct eg_cfg {
  cfg_entry *entries;
  size_t n;
  char **args; /* positional, borrowed from argv */
  int n_args;
  bool help;
};

static cfg_entry *find(const eg_cfg *cfg, const char *name) {
  for (size_t i = 0; i < cfg->n; i++)
    if (strcmp(cfg->entries[i].opt->name, name) == 0) return &cfg->entries[i];
  return NULL;
}

static cfg_entry *must_find(const eg_cfg *cfg, const char *name) {
  cfg_entry *e = find(cfg, name);
  if (!e) {
    fprintf(stderr, "engram: config option '%s' is not declared\n", name);
    abort();
  }
  return e;
}

/* Parse an int with an optional k/m/g (×1024) suffix. */
static bool parse_int(const char *s, int64_t *out) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (end == s || errno) return false;
  int64_t mul = 1;
  if (*end == 'k' || *end == 'K')
    mul = 1024, end++;
  else if (*end == 'm' || *end == 'M')
    mul = 1024 * 1024, end++;
  else if (*end == 'g' || *end == 'G')
    mul = 1024 * 1024 * 1024, end++;
  if (*end) return false;
  if (v > INT64_MAX / mul || v < INT64_MIN / mul) return false;
  *out = v * mul;
  return true;
}

bool eg_cfg_int_in(const char *s, int64_t lo, int64_t hi, int64_t *out) {
  int64_t v;
  if (!s || !parse_int(s, &v) || v < lo || v > hi) return false;
  *out = v;
  return true;
}

static bool parse_bool(const char *s, bool *out) {
  static const char *yes[] = {"1", "true", "yes", "on"}, *no[] = {"0", "false", "no", "off"};
  for (int i = 0; i < 4; i++) {
    if (strcasecmp(s, yes[i]) == 0) return *out = true, true;
    if (strcasecmp(s, no[i]) == 0) return *out = false, true;
  }
  return false;
}

static eg_code check_value(const eg_cfg_opt *o, const char *v, const char *where, eg_err *err) {
  int64_t i;
  bool b;
  char *end;
  switch (o->type) {
    case EG_CFG_STR:
      return EG_OK;
    case EG_CFG_INT:
      if (!parse_int(v, &i))
        return eg_err_set(err, EG_EINVAL, "%s: option '%s' wants an integer", where, o->name);
      if (o->min < o->max && (i < o->min || i > o->max))
        return eg_err_set(err, EG_EINVAL, "%s: option '%s' must be in [%lld, %lld]", where, o->name,
                          (long long)o->min, (long long)o->max);
      return EG_OK;
    case EG_CFG_BOOL:
      if (!parse_bool(v, &b))
        return eg_err_set(err, EG_EINVAL, "%s: option '%s' wants true or false", where, o->name);
      return EG_OK;
    case EG_CFG_DOUBLE:
      errno = 0;
      strtod(v, &end);
      if (end == v || *end || errno)
        return eg_err_set(err, EG_EINVAL, "%s: option '%s' wants a number", where, o->name);
      return EG_OK;
  }
  return eg_err_set(err, EG_EINTERNAL, "bad option type");
}

static eg_code set_value(cfg_entry *e, const char *v, eg_cfg_source src, const char *where,
                         eg_err *err) {
  eg_code rc = check_value(e->opt, v, where, err);
  if (rc) return rc;
  bool append = (e->opt->flags & EG_CFG_LIST) && src == EG_CFG_FROM_FLAG &&
                e->source == EG_CFG_FROM_FLAG && e->value && *e->value;
  char *copy = append ? malloc(strlen(e->value) + strlen(v) + 2) : strdup(v);
  if (!copy) return eg_err_set(err, EG_ENOMEM, "out of memory");
  if (append) sprintf(copy, "%s,%s", e->value, v);
  free(e->value);
  e->value = copy;
  e->source = src;
  return EG_OK;
}

/* "grpc_addr" → "ENGRAM_GRPC_ADDR" */
static void env_name(const char *name, char *out, size_t len) {
  size_t j = (size_t)snprintf(out, len, "ENGRAM_");
  for (size_t i = 0; name[i] && j + 1 < len; i++) out[j++] = (char)toupper((unsigned char)name[i]);
  out[j] = '\0';
}

/* "--grpc-addr" → entry for "grpc_addr" */
static cfg_entry *find_flag(const eg_cfg *cfg, const char *flag, size_t len) {
  char name[128];
  if (len >= sizeof name) return NULL;
  for (size_t i = 0; i < len; i++) name[i] = flag[i] == '-' ? '_' : flag[i];
  name[len] = '\0';
  return find(cfg, name);
}

static char *trim(char *s) {
  while (isspace((unsigned char)*s)) s++;
  char *e = s + strlen(s);
  while (e > s && isspace((unsigned char)e[-1])) *--e = '\0';
  return s;
}

static eg_code load_file(eg_cfg *cfg, const char *path, eg_err *err) {
  FILE *f = fopen(path, "r");
  if (!f) return eg_err_set(err, EG_EINVAL, "cannot open config file '%s'", path);
  char line[4096];
  int lineno = 0;
  eg_code rc = EG_OK;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    char where[64];
    snprintf(where, sizeof where, "config line %d", lineno);
    if (!strchr(line, '\n') && !feof(f)) {
      rc = eg_err_set(err, EG_EINVAL, "%s: line too long", where);
      break;
    }
    char *s = trim(line);
    if (!*s || *s == '#') continue;
    char *eq = strchr(s, '=');
    if (!eq) {
      rc = eg_err_set(err, EG_EINVAL, "%s: expected 'name = value'", where);
      break;
    }
    *eq = '\0';
    char *key = trim(s), *val = trim(eq + 1);
    size_t vl = strlen(val);
    if (vl >= 2 && val[0] == '"' && val[vl - 1] == '"') {
      val[vl - 1] = '\0';
      val++;
    } else {
      char *hash = strstr(val, " #");
      if (hash) *hash = '\0', val = trim(val);
    }
    cfg_entry *e = find(cfg, key);
    if (!e) {
      rc = eg_err_set(err, EG_EINVAL, "%s: unknown option '%.64s'", where, key);
      break;
    }
    if ((rc = set_value(e, val, EG_CFG_FROM_FILE, where, err))) break;
  }
  fclose(f);
  return rc;
}

eg_code eg_cfg_load(const eg_cfg_opt *const *tables, const size_t *table_sizes, size_t n_tables,
                    int argc, char **argv, char **envp, eg_cfg **out, eg_err *err) {
  eg_code rc = EG_OK;
  eg_cfg *cfg = calloc(1, sizeof *cfg);
  size_t total = 0;
  if (!cfg) return eg_err_set(err, EG_ENOMEM, "out of memory");
  for (size_t t = 0; t < n_tables; t++) total += table_sizes[t];
  cfg->entries = calloc(total ? total : 1, sizeof *cfg->entries);
  cfg->args = calloc((size_t)(argc > 0 ? argc : 1), sizeof *cfg->args);
  if (!cfg->entries || !cfg->args) {
    rc = eg_err_set(err, EG_ENOMEM, "out of memory");
    goto cleanup;
  }
  /* 1. defaults */
  for (size_t t = 0; t < n_tables; t++) {
    for (size_t i = 0; i < table_sizes[t]; i++) {
      const eg_cfg_opt *o = &tables[t][i];
      if (find(cfg, o->name)) {
        rc = eg_err_set(err, EG_EINTERNAL, "option '%s' declared twice", o->name);
        goto cleanup;
      }
      cfg_entry *e = &cfg->entries[cfg->n++];
      e->opt = o;
      if ((rc = set_value(e, o->def ? o->def : "", EG_CFG_FROM_DEFAULT, "default", err)))
        goto cleanup;
    }
  }
  /* 2. the file: --config wins over ENGRAM_CONFIG */
  const char *file = NULL;
  for (char **ep = envp; ep && *ep; ep++)
    if (strncmp(*ep, "ENGRAM_CONFIG=", 14) == 0) file = *ep + 14;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--config") == 0 && i + 1 < argc)
      file = argv[i + 1];
    else if (strncmp(argv[i], "--config=", 9) == 0)
      file = argv[i] + 9;
  }
  if (file && *file && (rc = load_file(cfg, file, err))) goto cleanup;
  /* 3. environment */
  for (size_t i = 0; i < cfg->n; i++) {
    char name[160];
    env_name(cfg->entries[i].opt->name, name, sizeof name);
    size_t nl = strlen(name);
    for (char **ep = envp; ep && *ep; ep++) {
      if (strncmp(*ep, name, nl) == 0 && (*ep)[nl] == '=') {
        if ((rc = set_value(&cfg->entries[i], *ep + nl + 1, EG_CFG_FROM_ENV, name, err)))
          goto cleanup;
      }
    }
  }
  /* 4. flags */
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      cfg->help = true;
      continue;
    }
    if (strcmp(a, "--") == 0) {
      while (++i < argc) cfg->args[cfg->n_args++] = argv[i];
      break;
    }
    if (strncmp(a, "--", 2) != 0 || a[2] == '\0') {
      cfg->args[cfg->n_args++] = argv[i];
      continue;
    }
    const char *name = a + 2, *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    if (len == 6 && strncmp(name, "config", 6) == 0) {
      if (!eq) i++;
      continue;
    }
    cfg_entry *e = find_flag(cfg, name, len);
    const char *val = eq ? eq + 1 : NULL;
    if (!e && !eq && len > 3 && strncmp(name, "no-", 3) == 0) {
      /* --no-foo for booleans */
      e = find_flag(cfg, name + 3, len - 3);
      if (e && e->opt->type == EG_CFG_BOOL)
        val = "false";
      else
        e = NULL;
    }
    if (!e) {
      rc = eg_err_set(err, EG_EINVAL, "unknown flag '--%.*s' (see --help)",
                      (int)(len > 64 ? 64 : len), name);
      goto cleanup;
    }
    if (!val) {
      if (e->opt->type == EG_CFG_BOOL && (i + 1 >= argc || strncmp(argv[i + 1], "--", 2) == 0 ||
                                          !parse_bool(argv[i + 1], &(bool){0}))) {
        val = "true";
      } else if (i + 1 < argc) {
        val = argv[++i];
      } else {
        rc = eg_err_set(err, EG_EINVAL, "flag '--%s' needs a value", name);
        goto cleanup;
      }
    }
    char where[96];
    snprintf(where, sizeof where, "flag --%.*s", (int)(len > 64 ? 64 : len), name);
    if ((rc = set_value(e, val, EG_CFG_FROM_FLAG, where, err))) goto cleanup;
  }
  *out = cfg;
  return EG_OK;
cleanup:
  eg_cfg_free(cfg);
  return rc;
}

void eg_cfg_free(eg_cfg *cfg) {
  if (!cfg) return;
  for (size_t i = 0; i < cfg->n; i++) free(cfg->entries[i].value);
  free(cfg->entries);
  free(cfg->args);
  free(cfg);
}

const char *eg_cfg_str(const eg_cfg *cfg, const char *name) { return must_find(cfg, name)->value; }

int64_t eg_cfg_int(const eg_cfg *cfg, const char *name) {
  int64_t v = 0;
  parse_int(must_find(cfg, name)->value, &v);
  return v;
}

bool eg_cfg_bool(const eg_cfg *cfg, const char *name) {
  bool v = false;
  parse_bool(must_find(cfg, name)->value, &v);
  return v;
}

double eg_cfg_double(const eg_cfg *cfg, const char *name) {
  return strtod(must_find(cfg, name)->value, NULL);
}

eg_cfg_source eg_cfg_source_of(const eg_cfg *cfg, const char *name) {
  return must_find(cfg, name)->source;
}

int eg_cfg_args(const eg_cfg *cfg, char ***args) {
  *args = cfg->args;
  return cfg->n_args;
}

bool eg_cfg_help_requested(const eg_cfg *cfg) { return cfg->help; }

static const char *source_name(eg_cfg_source s) {
  static const char *names[] = {"default", "file", "env", "flag"};
  return names[s];
}

void eg_cfg_log(const eg_cfg *cfg, const char *module) {
  for (size_t i = 0; i < cfg->n; i++) {
    const cfg_entry *e = &cfg->entries[i];
    bool secret = (e->opt->flags & EG_CFG_SECRET) && e->value[0];
    EG_INFO(module, "config", "name=%s value=\"%s\" source=%s", e->opt->name,
            secret ? "***" : e->value, source_name(e->source));
  }
}

void eg_cfg_usage(const eg_cfg *cfg, void *fp) {
  FILE *f = fp;
  for (size_t i = 0; i < cfg->n; i++) {
    const eg_cfg_opt *o = cfg->entries[i].opt;
    char flag[128], env[160];
    size_t j = 0;
    for (; o->name[j] && j < sizeof flag - 1; j++) flag[j] = o->name[j] == '_' ? '-' : o->name[j];
    flag[j] = '\0';
    env_name(o->name, env, sizeof env);
    fprintf(f, "  --%-24s %-30s default: %s\n      %s\n", flag, env,
            (o->def && *o->def) ? o->def : "(empty)", o->help ? o->help : "");
  }
}
