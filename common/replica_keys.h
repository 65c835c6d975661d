/*
 * replica_keys.h — the encryption of a user's records in a shard's log, and their
 * shredding (deploy/REPLICATION.md, "Encryption").
 *
 * A record of a user's (the envelope's `user` set) is sealed when the writer appends it:
 * its body is encrypted with XChaCha20-Poly1305 under the user's key of the shard
 * (engram_replog_keys, made on the user's first write), with the shard, the position, the
 * tenant, the user and the key's number as associated data, and the envelope says format 2.
 * Records of no user's (the tenant's shared knowledge, its settings, erasures) stay in the
 * clear (format 1). Once a record that erases a user (or a tenant) is in the log, the
 * writer shreds the keys it made no later than that record; a replica that applies the
 * erasure shreds them too (harmless twice; it covers a writer that died in between).
 *
 * Reading, a replica opens each sealed record with the key it names (cached in memory,
 * never logged). A record whose key was shredded is handed on as shredded (body-less:
 * the erasure later in the log removes what it wrote); a record that does not open for
 * any other reason — altered bytes, a key that is not its own, a key that never existed,
 * an unknown format — is EG_ECORRUPT naming the position, and the replica stops there.
 */
#ifndef EG_REPLICA_KEYS_H
#define EG_REPLICA_KEYS_H

#include <protobuf-c/protobuf-c.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "common/kv.h"
#include "common/replog.h"

#define EG_RECORD_CLEAR 1    /* the body is the daemon's write */
#define EG_RECORD_SEALED 2   /* the body is that write, encrypted with key_id */
#define EG_RECORD_SHREDDED 3 /* never in the log: a sealed record whose key was shredded */

typedef struct eg_keyring eg_keyring;

/* A keyring for records of rec_desc (GraphLogRecord, VectorLogRecord: the envelope). */
eg_code eg_keyring_new(const ProtobufCMessageDescriptor *rec_desc, eg_keyring **out, eg_err *err);
void eg_keyring_free(eg_keyring *k); /* accepts NULL; the cached keys are wiped */

/*
 * The writer's append: seal each record of a user's, append them at first, first+1 … and
 * shred what the erasures among them erased. A record of a user whose erasure comes
 * earlier in the same group needs the user's next key, so the group is then appended in
 * parts, shredding in between. Errors: eg_replog_append's (EG_EABORTED: fenced), and the
 * key table's.
 */
eg_code eg_keyring_append(eg_keyring *k, eg_replog *log, uint64_t first, const eg_kv_record *recs,
                          size_t n, eg_err *err);

/* A batch read from the log, opened: *out (free with eg_keyring_opened_free) holds the
 * same records with every sealed one in the clear, or EG_RECORD_SHREDDED. */
typedef struct eg_keyring_opened {
  eg_replog_record *records;
  size_t n;
  void *mem;
  struct eg_keyring_erasure *erasures; /* the records that erase something */
  size_t n_erasures;
} eg_keyring_opened;
eg_code eg_keyring_open(eg_keyring *k, eg_replog *log, const eg_replog_batch *b,
                        eg_keyring_opened *out, eg_err *err);
void eg_keyring_opened_free(eg_keyring_opened *o);

/* The opened records are applied: forget the keys of what their erasures erased, and
 * shred them in the log (what the writer did already, unless it died first). */
void eg_keyring_applied(eg_keyring *k, eg_replog *log, const eg_keyring_opened *o);

/* The envelope field `name` of a log record (every record descriptor has them all). */
void *eg_record_field(const ProtobufCMessage *m, const char *name);

#endif
