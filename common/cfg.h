/*
 * cfg.h — configuration from one table per daemon.
 *
 * Precedence, lowest first: the table's defaults < a config file < ENGRAM_* environment
 * variables < command-line flags. For an option named "grpc_addr" the environment
 * variable is ENGRAM_GRPC_ADDR and the flag is --grpc-addr (value as "--grpc-addr X" or
 * "--grpc-addr=X"). The file is named by --config or ENGRAM_CONFIG and holds
 * `name = value` lines; '#' starts a comment; values may be double-quoted.
 *
 * Unknown names (in the file, as flags) and badly typed values are errors: a typo must
 * never be silently ignored. Options marked EG_CFG_SECRET are masked when logged.
 */
#ifndef EG_CFG_H
#define EG_CFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

typedef enum eg_cfg_type {
  EG_CFG_STR = 0,
  EG_CFG_INT = 1,  /* int64, decimal; accepts k/m/g suffixes (×1024) for sizes */
  EG_CFG_BOOL = 2, /* true/false/1/0/yes/no/on/off */
  EG_CFG_DOUBLE = 3,
} eg_cfg_type;

#define EG_CFG_SECRET 1u /* never logged in clear */
#define EG_CFG_LIST \
  2u /* EG_CFG_STR: a flag given more than once keeps every value, joined by ',' */

typedef struct eg_cfg_opt {
  const char *name; /* snake_case, unique */
  eg_cfg_type type;
  const char *def;  /* default as text; NULL = empty string */
  const char *help; /* one line */
  unsigned flags;   /* EG_CFG_SECRET … */
  int64_t min, max; /* for EG_CFG_INT when min < max */
} eg_cfg_opt;

typedef enum eg_cfg_source {
  EG_CFG_FROM_DEFAULT = 0,
  EG_CFG_FROM_FILE,
  EG_CFG_FROM_ENV,
  EG_CFG_FROM_FLAG,
} eg_cfg_source;

typedef struct eg_cfg eg_cfg;

/*
 * Build the configuration from `n_tables` option tables (searched in order: a name may
 * appear only once across them), the argument vector and an environment array (envp,
 * NULL-terminated; pass `environ`). Positional arguments (not starting with "--") are
 * kept and available through eg_cfg_args. "--help" sets eg_cfg_help_requested.
 * On success *out is owned by the caller (free with eg_cfg_free).
 */
eg_code eg_cfg_load(const eg_cfg_opt *const *tables, const size_t *table_sizes, size_t n_tables,
                    int argc, char **argv, char **envp, eg_cfg **out, eg_err *err);
void eg_cfg_free(eg_cfg *cfg);

/* Typed getters; the name must be in the tables (a programmer error aborts). The string
 * is borrowed until eg_cfg_free. */
const char *eg_cfg_str(const eg_cfg *cfg, const char *name);
int64_t eg_cfg_int(const eg_cfg *cfg, const char *name);
bool eg_cfg_bool(const eg_cfg *cfg, const char *name);
double eg_cfg_double(const eg_cfg *cfg, const char *name);
eg_cfg_source eg_cfg_source_of(const eg_cfg *cfg, const char *name);

/* s as a whole number within [lo, hi] — the syntax of an int option (an optional k/m/g
 * suffix, ×1024); false for anything else. For tools that read counts from their own
 * arguments. */
bool eg_cfg_int_in(const char *s, int64_t lo, int64_t hi, int64_t *out);

/* Positional arguments, borrowed. */
int eg_cfg_args(const eg_cfg *cfg, char ***args);
bool eg_cfg_help_requested(const eg_cfg *cfg);

/* Log every option with its effective value and where it came from (one line each). */
void eg_cfg_log(const eg_cfg *cfg, const char *module);
/* Print a usage table (name, flag, env, default, help) to f (a FILE *). */
void eg_cfg_usage(const eg_cfg *cfg, void *f);

#endif
